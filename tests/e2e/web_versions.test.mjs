// The dashboard's model versions side by side (the A/B view) in headless Chromium: a server
// with two named versions split 50/50 shows one column per version with its state, its share
// of the default deployment's traffic, and its requests, TTFT / E2E p99, errors and refusals as
// /v1/stats reports them, and the desk's turns of each arm with their sources' shares (FAQ
// answers, which no version generated, count for an arm too); a server without versions hides
// the section.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startSupportd, synthesizeModel } from './supportd.mjs';
import { bounded, launchBrowser, newPage, open, screenshot } from './web_helpers.mjs';

const KEY = 'versions-dashboard-admin-key-0123456789';
let server;
let browser;
let dir;

before(async () => {
  const one = await synthesizeModel('tiny');
  const two = await synthesizeModel('tiny', 'q8_0');
  dir = mkdtempSync(path.join(tmpdir(), 'supportd-web-versions-'));
  const keyFile = path.join(dir, 'admin.key');
  writeFileSync(keyFile, `${KEY}\n`, { mode: 0o600 });
  server = await startSupportd(['--model', `v1=${one}`, '--model', `v2=${two}`, '--admin-key-file', keyFile,
                                '--data-dir', path.join(dir, 'data'), '--parallel', '2', '--ctx-size', '2048']);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function call(method, url, body, headers = {}) {
  const r = await fetch(`${server.url}${url}`, {
    method, headers: { 'content-type': 'application/json', ...headers }, body: body && JSON.stringify(body) });
  const json = await r.json();
  assert.ok(r.ok, `${method} ${url}: ${r.status} ${JSON.stringify(json)}`);
  return json;
}

test('two versions split 50/50 are shown side by side with the figures /v1/stats has', bounded, async () => {
  await call('PUT', '/admin/routes/default', { weights: { v1: 50, v2: 50 }, sticky: false },
             { authorization: `Bearer ${KEY}` });
  for (let i = 0; i < 12; i += 1) {
    await call('POST', '/v1/completions', { prompt: `question ${i}`, max_tokens: 2, ignore_eos: true });
  }
  // Desk turns answered from the FAQ table: each counts for the arm of its conversation.
  for (let i = 0; i < 4; i += 1) {
    const { session } = await call('POST', '/v1/sessions', { user: `customer-${i}` });
    const { answer } = await call('POST', `/v1/sessions/${session}/messages`, { text: 'Where is my parcel?' });
    assert.equal(answer.source, 'faq');
  }
  const stats = await call('GET', '/v1/stats');
  const arms = stats.desk.versions;
  assert.equal((arms.v1?.answers_total ?? 0) + (arms.v2?.answers_total ?? 0), stats.desk.answers_total);
  assert.equal((arms.v1?.answers?.faq ?? 0) + (arms.v2?.answers?.faq ?? 0), 4);
  const byName = Object.fromEntries(stats.versions.map((v) => [v.name, v]));
  assert.equal(byName.v1.requests + byName.v2.requests, 12);

  const page = await newPage(browser.context, 'dashboard-versions');
  await page.setViewportSize({ width: 1280, height: 900 });
  await open(page, `${server.url}/dashboard`);
  await page.getByText(/^Live · updated/).waitFor({ timeout: 10000 });
  const panel = page.locator('#versions-panel');
  await panel.waitFor({ state: 'visible', timeout: 10000 });
  const table = await page.evaluate(() => {
    const t = document.getElementById('versions');
    return {
      head: [...t.tHead.rows[0].cells].map((c) => c.textContent),
      rows: Object.fromEntries([...t.tBodies[0].rows].map((r) => [r.cells[0].textContent,
                                                                   [...r.cells].slice(1).map((c) => c.textContent)])),
    };
  });
  assert.deepEqual(table.head, ['Version', 'v1', 'v2']);
  assert.deepEqual(table.rows.State, ['ready', 'ready']);
  assert.deepEqual(table.rows['Traffic (default)'], ['50 %', '50 %']);
  assert.deepEqual(table.rows.Requests, [String(byName.v1.requests), String(byName.v2.requests)]);
  for (const [i, name] of ['v1', 'v2'].entries()) {
    const v = byName[name];
    if (v.requests > 0) {
      assert.match(table.rows['TTFT p99'][i], /^[\d.,]+ (ms|s)$/, `${name}: ${table.rows['TTFT p99'][i]}`);
      assert.match(table.rows['E2E p99'][i], /^[\d.,]+ (ms|s)$/);
    }
    assert.equal(table.rows.Errors[i], v.requests > 0 ? '0 (0.0 %)' : '0');
    assert.equal(table.rows.Refusals[i], v.requests > 0 ? '0 (0.0 %)' : '0');
    const turns = arms[name]?.answers_total ?? 0;
    assert.equal(table.rows['Desk: turns'][i], String(turns));
    assert.equal(table.rows['Desk: FAQ'][i], turns > 0 ? `${turns} (100 %)` : '0');
    assert.equal(table.rows['Desk: model'][i], turns > 0 ? '0 (0.0 %)' : '0');
  }
  await panel.scrollIntoViewIfNeeded();
  await screenshot(page, 'dashboard-versions');

  // A rollback moves the traffic column at the next poll.
  await call('POST', '/admin/routes/default/rollback', {}, { authorization: `Bearer ${KEY}` });
  await page.waitForFunction(() => [...document.querySelectorAll('#versions tbody tr')]
    .find((r) => r.cells[0].textContent === 'Traffic (default)')?.cells[2].textContent === '0 %',
  null, { timeout: 10000 });
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('a server without versions hides the section', bounded, async () => {
  const page = await newPage(browser.context, 'dashboard-no-versions');
  await page.route('**/v1/stats', async (route) => {
    const response = await route.fetch();
    const stats = await response.json();
    delete stats.versions;
    await route.fulfill({ response, json: stats });
  });
  await open(page, `${server.url}/dashboard`);
  await page.getByText(/^Live · updated/).waitFor({ timeout: 10000 });
  assert.equal(await page.locator('#versions-panel').isHidden(), true);
  assert.deepEqual(page.problems, []);
  await page.close();
});
