// `supportd capacity --url` against a running supportd: after a few requests of two classes,
// /v1/stats carries the load it measured ("capacity": arrivals, service time per slot, slots,
// the busy levels and the engine's iteration costs), and the planner starts from those numbers
// (the engine's slots as servers and per engine; the engine simulated once it measured enough).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { binary, startSupportd, synthesizeModel } from './supportd.mjs';

const run = promisify(execFile);
let server;

before(async () => {
  const model = await synthesizeModel('tiny');
  server = await startSupportd(['--model', model, '--parallel', '3', '--ctx-size', '4096']);
});

after(async () => {
  await server?.stop();
});

async function complete(priority, maxTokens = 8) {
  const r = await fetch(`${server.url}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-priority': priority },
    body: JSON.stringify({ prompt: 'Where is my parcel?', max_tokens: maxTokens, ignore_eos: true,
                           temperature: 0 }),
  });
  assert.equal(r.status, 200, await r.text());
}

test('an idle server reports no traffic, in valid JSON, and there is nothing to plan from', async () => {
  const stats = await (await fetch(`${server.url}/v1/stats`)).json();
  assert.equal(stats.capacity.arrivals, 0);
  assert.equal(stats.capacity.arrival_rate, 0);
  assert.equal(stats.capacity.classes.high.arrival_rate, 0);
  assert.equal(stats.capacity.service_time_s, null);
  await assert.rejects(run(binary, ['capacity', '--url', server.url], { timeout: 60000 }),
                       (e) => e.code === 2 && /has no arrivals to plan from/.test(e.stderr));
});

test('plans from the load the server measured', async () => {
  for (let i = 0; i < 12; i++) await complete(i % 4 === 0 ? 'high' : 'normal');

  const stats = await (await fetch(`${server.url}/v1/stats`)).json();
  const c = stats.capacity;
  assert.equal(c.slots, 3);
  assert.equal(stats.engine.slots, 3);
  assert.equal(c.arrivals, 12);
  assert.ok(c.arrival_rate > 0);
  assert.equal(c.served, 12);
  assert.ok(c.service_time_s > 0);
  assert.equal(c.classes.high.arrivals, 3);
  assert.equal(c.classes.normal.arrivals, 9);

  const { stdout } = await run(binary, ['capacity', '--url', server.url, '--json'],
                               { timeout: 60000 });
  const plan = JSON.parse(stdout);
  assert.equal(plan.inputs.servers, 3);
  assert.equal(plan.inputs.slots_per_engine, 3);
  assert.ok(Math.abs(plan.inputs.service_time_s - c.service_time_s) / c.service_time_s < 0.5);
  assert.ok(plan.inputs.source.includes(server.url));
  assert.equal(plan.classes.classes.length, 3);
  for (const field of ['utilization', 'p_wait', 'mean_wait_s', 'wait_p95_s', 'wait_p99_s',
                       'servers_needed', 'engines_needed']) {
    assert.equal(typeof plan[field], 'number', field);
  }
});

test('a server kept busy with several requests at once gives the plan its engine to simulate', async () => {
  // Three clients, each idle for as long as its last request took: the engine spends the time
  // with 0 to 3 in service, busy about half of it (a steady state to plan from, not a
  // saturated one). In rounds of four seconds until some level was seen long enough for the
  // planner (2 s, 5 departures: plan/busy_curve.h), at most 45 s on a slow machine.
  const measured = (busy) => busy.some((level) => level.seconds >= 2 && level.departures >= 5);
  let busy = [];
  for (const stop = Date.now() + 45000; Date.now() < stop && !measured(busy);) {
    const deadline = Date.now() + 4000;
    const client = async () => {
      while (Date.now() < deadline) {
        const started = Date.now();
        await complete('normal', 48);
        await new Promise((resolve) => setTimeout(resolve, Date.now() - started));
      }
    };
    await Promise.all([client(), client(), client()]);
    busy = (await (await fetch(`${server.url}/v1/stats`)).json()).capacity.busy;
  }
  assert.ok(measured(busy), JSON.stringify(busy));
  assert.ok(busy.length <= 3, JSON.stringify(busy));
  busy.forEach((level, i) => assert.equal(level.in_service, i + 1));

  // The plan is for a quarter of the slowest measured level's completions: on a machine busy
  // with other work the measured arrivals can outrun the curve (the planner then rightly says
  // there is no steady state), and this test is about the curve, not about today's machine.
  const slowest = Math.min(...busy.filter((level) => level.seconds > 0 && level.departures > 0)
                                  .map((level) => level.departures / level.seconds));
  const { stdout } = await run(binary, ['capacity', '--url', server.url, '--json',
                                        '--arrival-rate', String(slowest / 4)],
                               { timeout: 60000 });
  const plan = JSON.parse(stdout);
  // What the engine measured of its own iterations and requests (engine/iteration_cost.h):
  // the plan simulates that engine, which it prefers to the curve (bench/capacity-backtest).
  const cost = (await (await fetch(`${server.url}/v1/stats`)).json()).capacity.iteration_cost;
  assert.ok(cost.iterations >= 200 && cost.requests >= 20, JSON.stringify(cost));
  assert.ok(cost.fixed_ms + cost.per_decode_token_ms > 0, JSON.stringify(cost));
  assert.ok(cost.output_tokens > 8 && cost.output_tokens <= 48, JSON.stringify(cost));  // 8 and 48 asked
  assert.ok(cost.prompt_tokens > 0, JSON.stringify(cost));
  assert.equal(cost.step_tokens, 256);
  // Every fitted iteration summed: as many as fitted, with the time and tokens they took.
  assert.equal(cost.totals.iterations, cost.iterations);
  assert.ok(cost.totals.milliseconds > 0, JSON.stringify(cost.totals));
  assert.ok(cost.totals.decode_tokens >= cost.requests * 8, JSON.stringify(cost.totals));
  assert.ok(cost.totals.prompt_tokens > 0, JSON.stringify(cost.totals));
  assert.ok(cost.totals.splits >= 0 && cost.totals.splits <= cost.iterations, JSON.stringify(cost.totals));
  // Pairs of decode tokens: this load runs up to 4 at once (up to 6 pairs an iteration).
  assert.ok(cost.per_decode_pair_ms >= 0, JSON.stringify(cost));
  assert.ok(cost.totals.decode_pairs > 0 && cost.totals.decode_pairs <= 6 * cost.iterations,
            JSON.stringify(cost.totals));
  // How the iterations scattered around the fit: 128 values, ascending, with their shares
  // summing to 1, from 256 iterations on (null before; this load makes thousands), and the
  // plan draws from them.
  assert.ok(cost.iterations >= 256, JSON.stringify(cost));
  assert.ok(Array.isArray(cost.excess_ms) && cost.excess_ms.length === 128, JSON.stringify(cost.excess_ms));
  assert.ok(Array.isArray(cost.excess_shares) && cost.excess_shares.length === 128,
            JSON.stringify(cost.excess_shares));
  cost.excess_ms.forEach((value, i) => {
    assert.equal(typeof value, 'number');
    assert.ok(cost.excess_shares[i] > 0, JSON.stringify(cost.excess_shares));
    if (i > 0) assert.ok(value >= cost.excess_ms[i - 1], JSON.stringify(cost.excess_ms));
  });
  assert.ok(Math.abs(cost.excess_shares.reduce((a, b) => a + b, 0) - 1) < 1e-9,
            JSON.stringify(cost.excess_shares));
  assert.ok(plan.inputs.notes.some((n) => /excess over the fit, drawn at random/.test(n)),
            JSON.stringify(plan.inputs.notes));
  assert.match(plan.model, /continuous batching, simulated/);
  assert.ok(plan.inputs.notes.some((n) => /^iteration costs: fitted by the engine/.test(n)),
            JSON.stringify(plan.inputs.notes));
  assert.ok(plan.inputs.notes.some((n) => /^service curve: set aside/.test(n)),
            JSON.stringify(plan.inputs.notes));
  assert.ok(plan.inputs.notes.some((n) => /^one engine of 3 slots simulated/.test(n)),
            JSON.stringify(plan.inputs.notes));
  assert.equal(plan.inputs.servers, 3);
  assert.equal(typeof plan.ttft_mean_s, 'number');
  assert.ok(plan.mean_wait_s >= 0);
});

test('a server without /v1/stats fails with exit code 1, naming its answer', async () => {
  // A base URL under which nothing answers: /nothing/v1/stats is a 404.
  await assert.rejects(run(binary, ['capacity', '--url', `${server.url}/nothing`], { timeout: 60000 }),
                       (e) => e.code === 1 && /HTTP 404/.test(e.stderr));
});
