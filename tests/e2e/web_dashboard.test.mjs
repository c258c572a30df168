// The operations dashboard in headless Chromium: after some traffic it shows the server's
// numbers (requests, latency percentiles per class, KV cells, process) and draws its charts;
// the desk's tiles count a question answered from the knowledge base, a handoff, the
// conversation waiting and its CSAT, and say "Desk off" when /v1/stats has no desk; when the
// server goes away it says so instead of showing stale numbers as live. The "Slowest requests"
// panel lists the kept requests and opens a waterfall of one's spans. Anomaly alerts are marked
// on the charts of their signals.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startSupportd, synthesizeModel } from './supportd.mjs';
import { bounded, demoKnowledgeBase, launchBrowser, newPage, open, screenshot } from './web_helpers.mjs';

let server;
let browser;
let dataDir;

before(async () => {
  const model = await synthesizeModel('tiny');
  dataDir = mkdtempSync(path.join(tmpdir(), 'supportd-web-dashboard-'));
  // Every request counts as slow, so the "Slowest requests" panel has something to show.
  server = await startSupportd(['--model', model, '--data-dir', dataDir, '--kb', demoKnowledgeBase(),
                                '--parallel', '4', '--trace-slow-ms', '0.001']);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function traffic(n) {
  await Promise.all(Array.from({ length: n }, (_, i) => fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: `question ${i}` }], max_tokens: 8,
                           ignore_eos: true, temperature: 0 }),
  }).then((r) => r.json())));
}

// The value labels of every chart: text, and whether all of it is inside the SVG's box.
function axisLabels(page) {
  return page.evaluate(() => Object.fromEntries([...document.querySelectorAll('.chart svg')].map((svg) => [
    svg.id, [...svg.querySelectorAll('.axis text[text-anchor="end"]')].filter((t) => t.textContent !== 'now')
                 .map((t) => ({ text: t.textContent, inside: t.getBBox().x >= 0 }))])));
}

test('chart labels fit: a slow time to first token reads 1 s, not a clipped 1000 ms', bounded, async () => {
  const page = await newPage(browser.context, 'dashboard-axis');
  // The server is quick: its statistics are made to say that time to first token is slow.
  let ttft = [400, 900];
  await page.route('**/v1/stats', async (route) => {
    const response = await route.fetch();
    const stats = await response.json();
    for (const c of Object.values(stats.classes)) {
      c.time_to_first_token = { ...c.time_to_first_token, count: 10, p50_ms: ttft[0], p99_ms: ttft[1] };
    }
    await route.fulfill({ response, json: stats });
  });
  for (const [width, height] of [[1280, 800], [390, 844]]) {
    await page.setViewportSize({ width, height });
    await open(page, `${server.url}/dashboard`);
    await page.getByText(/^Live · updated/).waitFor({ timeout: 10000 });
    await page.waitForFunction(() => document.querySelectorAll('#chart-ttft polyline, #chart-ttft circle').length > 0);
    const labels = await axisLabels(page);
    assert.deepEqual(labels['chart-ttft'].map((l) => l.text), ['0', '500 ms', '1 s']);
    for (const [id, list] of Object.entries(labels)) {
      assert.equal(list[0]?.text, '0', `${id}: ${JSON.stringify(list)}`);
      for (const l of list) assert.ok(l.inside, `${width} px wide, ${id}: "${l.text}" is cut off`);
    }
  }
  ttft = [40, 2400];
  await page.waitForFunction(() => document.querySelector('#chart-ttft .axis text:nth-child(3)').textContent === '2.5 s',
                             null, { timeout: 10000 });
  assert.deepEqual((await axisLabels(page))['chart-ttft'].map((l) => l.text), ['0', '1.25 s', '2.5 s']);
  await page.locator('#chart-ttft').scrollIntoViewIfNeeded();
  await screenshot(page, 'dashboard-axis');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('anomaly alerts are marked on their charts: a band while active, the raise as a line', bounded, async () => {
  const page = await newPage(browser.context, 'dashboard-alerts');
  // The server's alerts are made to say that TTFT went wrong 20 s ago and still is, and that a
  // queue alert came and went a minute ago.
  const ago = (s) => new Date(Date.now() - s * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
  const alert = (name, since, ended) => ({ alert: name, signal: name, active: !ended, since,
                                            ...(ended ? { ended } : {}), raised_by: { value: 3.2, score: 0.9 },
                                            peak_score: 0.9, readings: 5, values: [] });
  await page.route('**/v1/alerts', (route) => route.fulfill({ json: {
    active: [alert('ttft_p99.normal', ago(20))],
    recent: [alert('queue_depth.low', ago(70), ago(50))],
    signals: [], thresholds: { raise: 0.78, clear: 0.62, clear_after: 60 } } }));
  await open(page, `${server.url}/dashboard`);
  await page.getByText(/^Live · updated/).waitFor({ timeout: 10000 });
  await page.waitForFunction(() => document.querySelector('#chart-ttft .alert-marker.active') !== null,
                             null, { timeout: 15000 });
  const ttft = page.locator('#chart-ttft .alert-marker');
  assert.equal(await ttft.count(), 1);
  assert.equal(await ttft.getAttribute('data-alert'), 'ttft_p99.normal');
  assert.match(await ttft.locator('title').textContent(), /^alert ttft_p99\.normal: raised .*, active$/);
  assert.equal(await ttft.locator('line').count(), 1);
  assert.match(await page.locator('#chart-ttft').getAttribute('aria-label'), /Alerts: ttft_p99\.normal active since/);
  // The ended alert is on the queue chart, not on the latency one.
  const queue = page.locator('#chart-queue .alert-marker');
  await queue.first().waitFor({ timeout: 10000 });
  assert.equal(await queue.getAttribute('class'), 'alert-marker');
  assert.match(await queue.locator('title').textContent(), /queue_depth\.low: raised .*, cleared /);
  assert.equal(await page.locator('#chart-tps .alert-marker').count(), 0);
  await page.locator('#chart-ttft').scrollIntoViewIfNeeded();
  await screenshot(page, 'dashboard-alerts');
  assert.deepEqual(page.problems, []);
  await page.close();
});

async function post(url, body) {
  const r = await fetch(`${server.url}${url}`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = await r.json();
  assert.ok(r.ok, `${url}: ${r.status} ${JSON.stringify(json)}`);
  return json;
}

// Every text of the desk's tiles fits its box and overlaps no other.
function deskTilesLayout(page) {
  return page.evaluate(() => [...document.querySelectorAll('#desk-tiles .tile')].flatMap((tile) => {
    const parts = [...tile.children].filter((c) => c.getBoundingClientRect().height > 0);
    const problems = parts.filter((p) => p.scrollWidth > p.clientWidth + 1).map((p) => `${p.id || p.tagName} overflows`);
    for (let i = 1; i < parts.length; i++) {
      if (parts[i].getBoundingClientRect().top < parts[i - 1].getBoundingClientRect().bottom - 1) {
        problems.push(`${parts[i].id || parts[i].tagName} overlaps ${parts[i - 1].id || parts[i - 1].tagName}`);
      }
    }
    return problems;
  }));
}

test('the desk tiles and chart show what the desk did, and "Desk off" without it', bounded, async () => {
  const page = await newPage(browser.context, 'dashboard-desk');
  await open(page, `${server.url}/dashboard`);
  await page.getByText(/^Live · updated/).waitFor({ timeout: 10000 });
  assert.equal(await page.locator('#desk-kb-sub').textContent(), 'no answers yet');

  // One customer gets an answer from the knowledge base and rates the conversation 5; another
  // asks for a person and waits.
  const happy = (await post('/v1/sessions', { user: 'erin' })).session;
  const answered = await post(`/v1/sessions/${encodeURIComponent(happy)}/messages`, { text: 'Where is my parcel?' });
  assert.equal(answered.answer.source, 'faq');
  await post(`/v1/sessions/${encodeURIComponent(happy)}/feedback`, { csat: 5 });
  const waiting = (await post('/v1/sessions', { user: 'frank' })).session;
  const handed = await post(`/v1/sessions/${encodeURIComponent(waiting)}/messages`, { text: 'I want to talk to a human please' });
  assert.equal(handed.answer.source, 'handoff');

  // The handoff came last: a poll that shows it shows everything before it too.
  await page.waitForFunction(() => document.getElementById('desk-handoffs').textContent === '1', null, { timeout: 10000 });
  assert.equal(await page.locator('#desk-kb').textContent(), '50 %');
  assert.equal(await page.locator('#desk-kb-sub').textContent(), '1 of 2 answers · model 0');
  assert.equal(await page.locator('#desk-handoffs').textContent(), '1');
  assert.equal(await page.locator('#desk-handoffs-sub').textContent(), 'asked 1');
  assert.equal(await page.locator('#desk-waiting').textContent(), '1');
  assert.equal(await page.locator('#desk-csat').textContent(), '5 / 5');
  assert.equal(await page.locator('#desk-csat-sub').textContent(), 'mean of 1 score');
  // The chart of answers per second by source has drawn the answers.
  await page.waitForFunction(() => document.querySelectorAll('#chart-desk polyline').length > 0, null, { timeout: 10000 });
  assert.match(await page.locator('#chart-desk').getAttribute('aria-label'), /Now: knowledge base .*to a person/);

  for (const [width, height] of [[1280, 800], [390, 844]]) {
    await page.setViewportSize({ width, height });
    // The chart is redrawn at its new width.
    await page.waitForFunction(() => {
      const svg = document.getElementById('chart-desk');
      return svg.viewBox.baseVal.width === Math.max(200, Math.round(svg.clientWidth));
    }, null, { timeout: 10000 });
    assert.deepEqual(await deskTilesLayout(page), [], `${width} px wide`);
    const cut = await page.evaluate(() => {
      const svg = document.getElementById('chart-desk');
      return [...svg.querySelectorAll('.axis text')].filter((t) => {
        const b = t.getBBox();
        return b.x < 0 || b.x + b.width > svg.viewBox.baseVal.width;
      }).map((t) => t.textContent);
    });
    assert.deepEqual(cut, [], `${width} px wide: axis labels cut off`);
    await page.locator('#desk-tiles').scrollIntoViewIfNeeded();
    await screenshot(page, `dashboard-desk-${width}`, { fullPage: true });
  }

  // The same page on a server without the desk: no desk numbers, a plain "Desk off".
  await page.route('**/v1/stats', async (route) => {
    const response = await route.fetch();
    const stats = await response.json();
    delete stats.desk;
    await route.fulfill({ response, json: stats });
  });
  await page.getByText(/^Desk off/).waitFor({ timeout: 10000 });
  assert.equal(await page.locator('#desk-tiles').isVisible(), false);
  assert.equal(await page.locator('#desk-chart').isVisible(), false);
  await screenshot(page, 'dashboard-desk-off');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('the slowest requests open a waterfall of their spans, bars inside the panel', bounded, async () => {
  await traffic(2);
  const page = await newPage(browser.context, 'dashboard-traces');
  await page.setViewportSize({ width: 1280, height: 900 });
  await open(page, `${server.url}/dashboard`);
  const request = page.locator('#traces button[data-trace]', { hasText: 'POST /v1/chat/completions' }).first();
  await request.waitFor({ timeout: 15000 });
  const row = request.locator('xpath=ancestor::tr');
  assert.match(await row.locator('td.stages').textContent(), /chat .* ms/);
  const id = await request.getAttribute('data-trace');
  await request.click();
  await page.locator('#waterfall .span-row[data-name="decode"]').waitFor({ timeout: 10000 });
  const trace = await (await fetch(`${server.url}/v1/traces/${id}`)).json();
  const rows = await page.$$eval('#waterfall .span-row', (list) => list.map((r) => {
    const track = r.querySelector('.track').getBoundingClientRect();
    const element = r.querySelector('.span-bar');
    const bar = element.getBoundingClientRect();
    return { name: r.dataset.name, indent: parseFloat(r.querySelector('.span-name').style.paddingLeft),
             inside: bar.left >= track.left - 0.5 && bar.right <= track.right + 0.5, width: bar.width,
             // as wide as its share of the track says: no other rule widens it (the console's
             // header .bar padding once made every short bar 40 px wide)
             scaled: Math.abs(bar.width - (track.width * parseFloat(element.style.width)) / 100) <= 1,
             placed: `bar ${bar.left}-${bar.right} px (left ${element.style.left}, width ${element.style.width}) ` +
                     `in track ${track.left}-${track.right} px` };
  }));
  const names = rows.map((r) => r.name);
  assert.equal(names[0], 'POST /v1/chat/completions');
  for (const phase of ['queue', 'prefill', 'decode']) assert.ok(names.includes(phase), names.join(', '));
  // queue, prefill and decode sit one level under the generation, which sits under the request.
  const generation = rows.find((r) => r.name.startsWith('chat '));
  assert.ok(generation, names.join(', '));
  assert.equal(rows.find((r) => r.name === 'decode').indent, generation.indent + 14);
  for (const r of rows) {
    assert.ok(r.inside, `${r.name}'s bar leaves its track: ${r.placed}; the trace: ${JSON.stringify(trace)}`);
    assert.ok(r.width > 0, `${r.name} has no bar`);
    assert.ok(r.scaled, `${r.name}'s bar is not its share of the track: ${r.placed}`);
  }
  await page.locator('#waterfall').scrollIntoViewIfNeeded();
  await screenshot(page, 'dashboard-waterfall');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('the dashboard shows numbers and charts after some traffic', bounded, async () => {
  await traffic(6);
  const stats = await (await fetch(`${server.url}/v1/stats`)).json();
  const page = await newPage(browser.context, 'dashboard');
  await open(page, `${server.url}/dashboard`);
  await page.getByText(/^Live · updated/).waitFor({ timeout: 10000 });
  // More traffic while the page watches: rates need two polls around it.
  await traffic(6);
  await page.waitForFunction(() => Number(document.getElementById('now-rps').textContent) > 0 ||
                                   document.querySelectorAll('#chart-rps polyline').length > 0,
                             null, { timeout: 10000 });
  await page.waitForFunction(() => document.querySelectorAll('#chart-rps polyline').length > 0 &&
                                   document.querySelectorAll('#chart-tps polyline').length > 0,
                             null, { timeout: 10000 });

  // Tiles: the model, the KV cache size and the process memory come from /v1/stats.
  assert.equal(await page.locator('#model').textContent(), `model: ${stats.model}`);
  const kv = await page.locator('#now-kv-sub').textContent();
  assert.ok(kv.includes(stats.engine.kv_cells_total.toLocaleString('en-US')), kv);
  assert.match(await page.locator('#now-rss').textContent(), /^\d+ MiB$/);
  assert.match(await page.locator('#now-running').textContent(), /^\d+$/);

  // The latency table has a row per class and metric; the normal class has counted requests.
  const rows = page.locator('#latency tbody tr');
  assert.equal(await rows.count(), Object.keys(stats.classes).length * 4);
  const ttftNormal = page.locator('#latency tbody tr', { hasText: 'Time to first token' })
                         .filter({ has: page.locator('th', { hasText: /^normal$/ }) });
  const count = Number((await ttftNormal.locator('td').nth(1).textContent()).replaceAll(',', ''));
  assert.ok(count >= 12, `TTFT count for normal: ${count}`);
  assert.match(await ttftNormal.locator('td').nth(2).textContent(), /\d+(\.\d)? (ms|s)$/);
  // Outcomes since start: the ok column of the normal class.
  const okCell = page.locator('#outcomes tbody tr', { has: page.locator('th', { hasText: /^normal$/ }) }).locator('td').first();
  assert.ok(Number((await okCell.textContent()).replaceAll(',', '')) >= 12);

  // Every chart is an SVG with lines and a text alternative naming its current values.
  for (const id of ['rps', 'ttft', 'queue', 'engine', 'tps', 'process']) {
    const svg = page.locator(`#chart-${id}`);
    assert.equal(await svg.getAttribute('role'), 'img');
    assert.match(await svg.getAttribute('aria-label'), /Now: /);
    assert.ok(await svg.locator('polyline, circle').count() > 0, `chart ${id} has data`);
  }
  // Everything else the server reports is listed, the engine's counters among it.
  await page.locator('#more [data-group="engine"] dt', { hasText: 'tokens generated' }).waitFor();
  await screenshot(page, 'dashboard', { fullPage: true });
  assert.deepEqual(page.problems, []);

  // The server goes away: the dashboard says it cannot reach it.
  await server.stop();
  await page.getByText('Server unreachable, retrying').waitFor({ timeout: 10000 });
  await page.getByRole('alert').getByText(/Cannot load \/v1\/stats/).waitFor();
  await screenshot(page, 'dashboard-offline');
  await page.close();
});
