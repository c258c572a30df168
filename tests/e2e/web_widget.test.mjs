// The chat widget when things do not go smoothly, in headless Chromium against a real supportd on
// the demo knowledge base:
// - an answer streaming into a long conversation stays in view, unless the customer scrolled up;
// - after a rating, the thanks is in view;
// - without WebSockets, polling never shows the customer's message twice;
// - a message sent while the server cannot be reached, or lost with the socket, is marked not
//   sent, and Retry sends it;
// - a paste longer than one message may be says it was cut;
// - a page may name its customer by e-mail address;
// - after a reload, answers still show their source's badge and Sources, and agents their name;
// - the Chinese widget's own network errors are in Chinese.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startSupportd, synthesizeModel } from './supportd.mjs';
import { bounded, demoKnowledgeBase, launchBrowser, newPage, open, reload, screenshot } from './web_helpers.mjs';

let server;
let browser;
let dataDir;

before(async () => {
  const model = await synthesizeModel('tiny');
  dataDir = mkdtempSync(path.join(tmpdir(), 'supportd-web-widget-'));
  server = await startSupportd(['--model', model, '--data-dir', dataDir, '--kb', demoKnowledgeBase()]);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const sessionKey = () => `supportd.session:${server.url}`;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function post(p, body) {
  const r = await fetch(`${server.url}${p}`, { method: 'POST', body: JSON.stringify(body),
                                               headers: { 'content-type': 'application/json' } });
  return { status: r.status, body: await r.json() };
}

async function history(session) {
  return (await fetch(`${server.url}/v1/sessions/${encodeURIComponent(session)}/messages`)).json();
}

// Resolves with what the promise gives, or fails naming what never happened.
function within(ms, promise, what) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

// Opens the demo page with the widget's panel open on a new conversation (or on `session`, which
// the browser then remembers as its own).
async function openWidget(page, session = null) {
  await open(page, `${server.url}/`);
  await page.evaluate(([key, id]) => (id ? localStorage.setItem(key, id) : localStorage.removeItem(key)),
                      [sessionKey(), session]);
  await reload(page);
  await page.getByRole('button', { name: 'Chat with us' }).click();
  return page.getByRole('dialog');
}

// A conversation with four questions answered already: more than the widget's log shows at once.
async function longConversation() {
  const session = (await post('/v1/sessions', {})).body.session;
  for (const text of ['Where is my parcel?', 'How do I return an item?', 'Can I pay with PayPal?',
                      'How do I reset my password?']) {
    assert.equal((await post(`/v1/sessions/${encodeURIComponent(session)}/messages`, { text })).status, 200);
  }
  return session;
}

// How far the log's end is below what it shows, in pixels (0: the end is in view).
const belowView = (panel) => panel.locator('.log').evaluate((l) => l.scrollHeight - l.scrollTop - l.clientHeight);

// The customer's socket goes through `control`: `hold` keeps the server's frames in `held`
// (calling `onHeld`) until the test passes them on with `release(frame)`; `down` closes new
// sockets before they open, as when the server is gone; `dropNext` closes the socket on the
// customer's next message instead of passing it on; `sockets` are the ones that opened.
async function controlSocket(page) {
  const control = { hold: false, held: [], onHeld: () => {}, down: false, dropNext: false, sockets: [] };
  await page.routeWebSocket(/\/v1\/ws/, async (ws) => {
    if (control.down) {
      await ws.close();  // before it opens: the page sees a socket that never connected
      return;
    }
    control.sockets.push(ws);
    const upstream = ws.connectToServer();
    ws.onMessage((m) => {
      if (control.dropNext && m.includes('"message"')) {
        control.dropNext = false;
        ws.close();
      } else {
        upstream.send(m);
      }
    });
    upstream.onMessage((m) => {
      if (!control.hold) {
        ws.send(m);
        return;
      }
      control.held.push(m);
      control.onHeld();
    });
    control.release = (frame) => ws.send(frame);
  });
  return control;
}

test('an answer streaming into a long conversation stays in view, unless the customer scrolled up', bounded, async () => {
  const page = await newPage(browser.context, 'customer-long-stream');
  const control = await controlSocket(page);
  const panel = await openWidget(page, await longConversation());
  await panel.getByText('Online', { exact: true }).waitFor({ timeout: 10000 });
  await panel.locator('.msg.assistant').nth(3).waitFor();
  assert.ok(await panel.locator('.log').evaluate((l) => l.scrollHeight > l.clientHeight * 1.5), 'the log scrolls');
  assert.ok(await belowView(panel) < 2, 'the conversation opens at its end');

  // The server's events for the next answer are held, then passed on one at a time.
  control.hold = true;
  const allHeld = new Promise((resolve) => {
    control.onHeld = () => { if (control.held.some((m) => JSON.parse(m).type === 'done')) resolve(); };
  });
  await panel.getByLabel('Your message').fill('How long does delivery take?');
  await panel.getByLabel('Your message').press('Enter');
  await within(15000, allHeld, 'the answer');
  const types = control.held.map((m) => JSON.parse(m).type);
  assert.deepEqual(types.slice(-1), ['done'], JSON.stringify(types));
  assert.ok(types.includes('citations') && types.includes('token'), JSON.stringify(types));
  const streaming = panel.locator('.msg.assistant[aria-busy="true"]');
  for (const frame of control.held.slice(0, -1)) {
    const event = JSON.parse(frame);
    control.release(frame);
    if (event.type === 'citations') await streaming.locator('.cite').first().waitFor();
    if (event.type === 'token') await streaming.locator('.bubble', { hasText: event.text.slice(0, 20) }).waitFor();
    assert.ok(await belowView(panel) < 2, `in view after the ${event.type} event: ${await belowView(panel)} px below`);
  }
  await screenshot(page, 'widget-mid-stream');

  // The customer scrolls up to read; the end of the answer does not pull them back down.
  await panel.locator('.log').focus();
  await page.keyboard.press('Home');
  for (let i = 0; i < 100 && await panel.locator('.log').evaluate((l) => l.scrollTop) > 0; i++) await sleep(50);
  assert.equal(await panel.locator('.log').evaluate((l) => l.scrollTop), 0);
  control.hold = false;
  control.release(control.held.at(-1));
  await panel.locator('.msg.assistant').nth(4).locator('.thumbs').waitFor();
  assert.equal(await panel.locator('.log').evaluate((l) => l.scrollTop), 0, 'still where the customer is reading');

  // Back at the end, it follows again.
  await page.keyboard.press('End');
  for (let i = 0; i < 100 && await belowView(panel) >= 2; i++) await sleep(50);
  await panel.getByLabel('Your message').fill('Can I pay with PayPal?');
  await panel.getByLabel('Your message').press('Enter');
  await panel.locator('.msg.assistant').nth(5).locator('.thumbs').waitFor({ timeout: 15000 });
  assert.ok(await belowView(panel) < 2);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('after rating the conversation the thanks is in view', bounded, async () => {
  const page = await newPage(browser.context, 'customer-csat-mobile');
  await page.setViewportSize({ width: 390, height: 844 });
  const session = await longConversation();
  const e = encodeURIComponent(session);
  assert.equal((await post(`/v1/sessions/${e}/handoff`, {})).status, 200);
  assert.equal((await post(`/v1/agent/conversations/${e}/take`, { agent: 'Alice' })).status, 200);
  const panel = await openWidget(page, session);
  await panel.getByText('Online', { exact: true }).waitFor({ timeout: 10000 });
  assert.equal((await post(`/v1/agent/conversations/${e}/close`, { agent: 'Alice' })).status, 200);
  await panel.getByRole('button', { name: '5 out of 5' }).click({ timeout: 10000 });
  await panel.getByText('Thank you for your rating!').waitFor();
  const [box, log] = await Promise.all([panel.locator('.csat').boundingBox(), panel.locator('.log').boundingBox()]);
  assert.ok(box.y >= log.y && box.y + box.height <= log.y + log.height,
            `the rating box (${box.y}..${box.y + box.height}) is inside the log (${log.y}..${log.y + log.height})`);
  await screenshot(page, 'widget-csat-mobile');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('without WebSockets, polling never shows the customer\'s message twice', bounded, async () => {
  const page = await newPage(browser.context, 'customer-ws-blocked');
  await page.routeWebSocket(/\/v1\/ws/, async (ws) => { await ws.close(); });  // never opens
  const panel = await openWidget(page);
  await panel.getByText('Online (without live connection)').waitFor({ timeout: 15000 });

  // The answer is held back until the widget's polling has seen the question in the history.
  const question = 'How long does delivery take?';
  let release;
  const released = new Promise((resolve) => { release = resolve; });
  await page.route(/\/v1\/sessions\/[^/]+\/messages$/, async (route) => {
    if (route.request().method() !== 'POST') return route.continue();
    const response = await route.fetch();
    await released;
    return route.fulfill({ response });
  });
  const polled = () => page.waitForResponse(async (r) => r.request().method() === 'GET' &&
      /\/messages\?/.test(r.url()) && (await r.json()).messages.some((m) => m.text === question));
  await panel.getByLabel('Your message').fill(question);
  await panel.getByLabel('Your message').press('Enter');
  await polled();
  await polled();  // the next poll, 3 s later: the first one has been shown by then
  release();
  const answer = panel.locator('.msg.assistant').filter({ has: page.locator('.thumbs') });
  await answer.waitFor({ timeout: 15000 });
  await polled();  // and one after the answer
  assert.equal(await panel.locator('.msg.user', { hasText: question }).count(), 1);
  assert.equal(await answer.count(), 1);
  await screenshot(page, 'widget-polling');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('a message sent while the server cannot be reached is marked not sent, and Retry sends it', bounded, async () => {
  const page = await newPage(browser.context, 'customer-server-down');
  const control = await controlSocket(page);
  const panel = await openWidget(page);
  await panel.getByText('Online', { exact: true }).waitFor({ timeout: 10000 });
  const session = await page.evaluate((key) => localStorage.getItem(key), sessionKey());

  // The server goes away: the socket drops and nothing answers over HTTP.
  control.down = true;
  await page.route(`${server.url}/v1/**`, (route) => route.abort('connectionrefused'));
  for (const ws of control.sockets.splice(0)) await ws.close();
  await panel.getByText('Connection lost. Reconnecting…').waitFor();
  await panel.getByLabel('Your message').fill('Where is my parcel?');
  await panel.getByLabel('Your message').press('Enter');
  const mine = panel.locator('.msg.user', { hasText: 'Where is my parcel?' });
  await mine.locator('[role="alert"]', { hasText: 'Not sent: cannot reach the server' }).waitFor();
  assert.match(await mine.getAttribute('class'), /\bfailed\b/);
  const retry = mine.getByRole('button', { name: 'Retry sending “Where is my parcel?”' });
  assert.equal(await retry.textContent(), 'Retry');
  await screenshot(page, 'widget-not-sent');

  // It comes back; Retry, from the keyboard, sends the message the customer wrote.
  control.down = false;
  await page.unroute(`${server.url}/v1/**`);
  await panel.getByText('Online', { exact: true }).waitFor({ timeout: 20000 });
  await retry.focus();
  await page.keyboard.press('Enter');
  const answer = panel.locator('.msg.assistant').filter({ has: page.locator('.badge') }).last();
  await answer.waitFor({ timeout: 15000 });
  assert.match(await answer.locator('.bubble').textContent(), /track/i);
  await panel.locator('.msg.user.failed').waitFor({ state: 'detached' });
  assert.equal(await mine.count(), 1);
  assert.equal(await panel.locator('.unsent').count(), 0);
  const asked = (await history(session)).messages.filter((m) => m.role === 'user');
  assert.deepEqual(asked.map((m) => m.text), ['Where is my parcel?'], 'stored once');
  assert.deepEqual(page.problems.filter((p) => !p.includes('ERR_CONNECTION_REFUSED')), []);
  await page.close();
});

test('a message lost with the socket is marked not sent; Retry sends it over the new socket', bounded, async () => {
  const page = await newPage(browser.context, 'customer-socket-drops');
  const control = await controlSocket(page);
  const panel = await openWidget(page);
  await panel.getByText('Online', { exact: true }).waitFor({ timeout: 10000 });
  const session = await page.evaluate((key) => localStorage.getItem(key), sessionKey());

  control.dropNext = true;  // the socket closes before the server has the message
  await panel.getByLabel('Your message').fill('How do I return an item?');
  await panel.getByLabel('Your message').press('Enter');
  const mine = panel.locator('.msg.user', { hasText: 'How do I return an item?' });
  await mine.locator('[role="alert"]', { hasText: 'Not sent: the connection was lost' }).waitFor();
  assert.equal((await history(session)).messages.filter((m) => m.role === 'user').length, 0);

  await panel.getByText('Online', { exact: true }).waitFor({ timeout: 20000 });
  await mine.getByRole('button', { name: /^Retry sending/ }).click();
  await panel.locator('.msg.assistant .badge').waitFor({ timeout: 15000 });
  await panel.locator('.msg.user.failed').waitFor({ state: 'detached' });
  assert.equal(await mine.count(), 1);
  const asked = (await history(session)).messages.filter((m) => m.role === 'user');
  assert.deepEqual(asked.map((m) => m.text), ['How do I return an item?'], 'stored once');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('a paste longer than a message may be says it was cut; a counter shows near the limit', bounded, async () => {
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  const page = await newPage(browser.context, 'customer-long-paste');
  const panel = await openWidget(page);
  const input = panel.getByLabel('Your message');
  const counter = panel.locator('.counter');
  await input.fill('x'.repeat(3000));
  assert.equal(await counter.isVisible(), false, 'no counter far from the limit');
  await input.fill('x'.repeat(3700));
  assert.equal(await counter.textContent(), '3,700 / 4,000 characters');

  await input.fill('Order 12345: ');
  await page.evaluate((text) => navigator.clipboard.writeText(text), 'y'.repeat(5000));
  await input.press('End');
  await input.press('ControlOrMeta+V');
  await counter.getByText('Your text was cut to 4,000 characters').waitFor();
  assert.equal(await counter.getAttribute('role'), 'alert');
  assert.equal((await input.inputValue()).length, 4000);
  assert.equal(await input.getAttribute('aria-describedby'), await counter.getAttribute('id'));
  await screenshot(page, 'widget-paste-cut');
  // Shorter again: the counter counts.
  await input.press('Backspace');
  assert.equal(await counter.textContent(), '3,999 / 4,000 characters');
  assert.equal(await counter.getAttribute('role'), null);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('a page may name its customer by e-mail address: the conversation opens and is answered', bounded, async () => {
  const page = await newPage(browser.context, 'customer-email-user');
  const embed = `${server.url}/embedded-by-email.html`;
  await page.route(embed, (route) => route.fulfill({
    contentType: 'text/html',
    body: '<!doctype html><html lang="en"><title>shop</title>' +
          '<script src="/widget.js" data-supportd data-user="alice.smith@example-shop.com"></script>',
  }));
  await open(page, embed);
  await page.evaluate((key) => localStorage.removeItem(key), sessionKey());  // a new customer
  await reload(page);
  await page.getByRole('button', { name: 'Chat with us' }).click();
  const panel = page.getByRole('dialog');
  await panel.getByLabel('Your message').fill('Where is my parcel?');
  await panel.getByLabel('Your message').press('Enter');
  await panel.locator('.msg.assistant .cite').first().waitFor({ timeout: 15000 });
  const session = await page.evaluate((key) => localStorage.getItem(key), sessionKey());
  assert.match(session ?? '', /^anonymous\.alice_smith_example-shop_com\./);
  // Chromium treats a page the test fulfilled itself as public and keeps its sockets from
  // loopback (Local Network Access); the widget answers over HTTP then, which is all this needs.
  assert.deepEqual(page.problems.filter((p) => !p.includes('ERR_BLOCKED_BY_LOCAL_NETWORK_ACCESS_CHECKS')), []);
  await page.close();
});

test('after a reload, answers keep their badge and Sources, and an agent’s message its name', bounded, async () => {
  const page = await newPage(browser.context, 'customer-reload-history');
  const panel = await openWidget(page);
  await panel.getByText('Online', { exact: true }).waitFor({ timeout: 10000 });
  await panel.getByLabel('Your message').fill('How long does delivery take?');
  await panel.getByLabel('Your message').press('Enter');
  const live = panel.locator('.msg.assistant').filter({ has: page.locator('.cite') }).last();
  await live.locator('.badge').waitFor({ timeout: 15000 });
  const badge = await live.locator('.badge').textContent();
  const sources = await live.locator('.cite strong').allTextContents();
  assert.ok(sources.length > 0, 'the live answer shows its Sources');

  // A person takes over and writes.
  const session = await page.evaluate((key) => localStorage.getItem(key), sessionKey());
  const e = encodeURIComponent(session);
  assert.equal((await post(`/v1/sessions/${e}/handoff`, {})).status, 200);
  assert.equal((await post(`/v1/agent/conversations/${e}/take`, { agent: 'Ann' })).status, 200);
  const reply = 'Hello, this is Ann. Your parcel is on its way.';
  assert.equal((await post(`/v1/agent/conversations/${e}/reply`, { agent: 'Ann', text: reply })).status, 200);
  await panel.locator('.msg.agent', { hasText: reply }).waitFor({ timeout: 10000 });

  // Everything now comes from the history: the same answer, badge, Sources and name.
  await reload(page);
  await page.getByRole('button', { name: 'Chat with us' }).click();
  const agent = panel.locator('.msg.agent', { hasText: reply });
  await agent.waitFor({ timeout: 10000 });
  assert.equal(await agent.locator('.who').textContent(), 'Ann');
  const kept = panel.locator('.msg.assistant').filter({ hasText: /business days/ }).last();
  await kept.waitFor();
  assert.equal(await kept.locator('.badge').textContent(), badge);
  await kept.getByText('Sources', { exact: true }).waitFor();
  assert.deepEqual(await kept.locator('.cite strong').allTextContents(), sources);
  await screenshot(page, 'widget-history-after-reload');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('the Chinese widget says in Chinese that it cannot reach the server', bounded, async () => {
  const page = await newPage(browser.context, 'customer-zh-unreachable');
  const embed = `${server.url}/embedded-zh.html`;
  await page.route(embed, (route) => route.fulfill({
    contentType: 'text/html',
    body: '<!doctype html><html lang="en"><title>shop</title>' +
          '<script src="/widget.js" data-supportd data-lang="zh"></script>',
  }));
  await page.route(`${server.url}/v1/**`, (route) => route.abort('connectionrefused'));
  await open(page, embed);
  await page.evaluate((key) => localStorage.removeItem(key), sessionKey());
  await reload(page);
  await page.getByRole('button', { name: '联系客服' }).click();
  const panel = page.getByRole('dialog');
  await panel.getByRole('alert').getByText('出错了：无法连接服务器').waitFor({ timeout: 10000 });
  assert.equal(await panel.getByText('cannot reach the server').count(), 0);
  assert.deepEqual(page.problems.filter((p) => !p.includes('ERR_CONNECTION_REFUSED') &&
                                                !p.includes('ERR_FAILED')), []);
  await page.close();
});
