// Debian's real Prometheus scrapes a real supportd with deploy/prometheus/prometheus.yml (its
// target moved to the test's supportd, scraping every second, rules loaded from deploy/): the
// target is up, a histogram_quantile over the TTFT histogram is a number, the rules load and
// the SLO recording rule computes. Both processes run on loopback and are stopped by pid.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadRules } from './deploy_files.mjs';
import { sleep, startPrometheus, stopProcess, testConfig } from './prometheus_process.mjs';
import { chat, startServer } from './traffic.mjs';

let server;
let prometheus;
let dir;

before(async () => {
  server = await startServer();
  dir = mkdtempSync(path.join(tmpdir(), 'supportd-prometheus-'));
  const configFile = path.join(dir, 'prometheus.yml');
  writeFileSync(configFile, testConfig(new URL(server.url).host));
  prometheus = await startPrometheus(dir, configFile);
});

after(async () => {
  if (prometheus) await stopProcess(prometheus.child);
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// The result vector of an instant query.
async function query(expr) {
  const response = await fetch(`${prometheus.url}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = await response.json();
  assert.equal(body.status, 'success', JSON.stringify(body));
  return body.data.result;
}

// Polls `expr` (sending one completion before each try, so rates move) until it gives one
// finite number, for at most `seconds`; returns that number.
async function waitForNumber(expr, seconds) {
  const deadline = Date.now() + seconds * 1000;
  let last = [];
  while (Date.now() < deadline) {
    await chat(server.url, { tokens: 2 });
    last = await query(expr);
    if (last.length === 1 && Number.isFinite(Number(last[0].value[1]))) return Number(last[0].value[1]);
    await sleep(500);
  }
  assert.fail(`${expr} gave no number within ${seconds} s; last result ${JSON.stringify(last)}`);
}

test('Prometheus scrapes supportd: up is 1 and supportd_ready is 1', async () => {
  const up = await waitForNumber('up{job="supportd"}', 60);
  assert.equal(up, 1);
  assert.equal(await waitForNumber('supportd_ready{job="supportd"}', 30), 1);
});

test('histogram_quantile over the TTFT histogram is a number of seconds', async () => {
  const p50 = await waitForNumber(
    'histogram_quantile(0.5, sum by (le) (rate(supportd_time_to_first_token_seconds_bucket{job="supportd"}[10s])))', 90);
  assert.ok(p50 > 0 && p50 < 60, `p50 TTFT ${p50} s`);
});

test('the alert and recording rules load, and the SLO ratio computes on real data', async () => {
  const response = await (await fetch(`${prometheus.url}/api/v1/rules`)).json();
  assert.equal(response.status, 'success');
  const loaded = response.data.groups.flatMap(g => g.rules);
  const expected = loadRules().map(({ rule }) => rule.alert ?? rule.record);
  assert.deepEqual(loaded.map(r => r.name).sort(), expected.sort());
  const ratio = await waitForNumber('job:supportd_ttft_slo_misses:ratio_rate5m{job="supportd"}', 90);
  assert.ok(ratio >= 0 && ratio <= 1, `SLO miss ratio ${ratio}`);
  const unhealthy = (await (await fetch(`${prometheus.url}/api/v1/rules`)).json())
    .data.groups.flatMap(g => g.rules).filter(r => r.health !== 'ok');
  assert.deepEqual(unhealthy.map(r => `${r.name}: ${r.lastError}`), []);
});
