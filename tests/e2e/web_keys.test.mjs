// The pages on a server that requires API keys: the agent console asks for a key on 401, works
// with it (polling, since a browser's WebSocket cannot send the key), and a widget without a
// key shows the server's own error message instead of hanging (in Chinese, the widget's own
// text for the error's code). The dashboard's kept traces (every tenant's requests) wait for the
// admin key, which it asks for; an agent's key does not show them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startSupportd, synthesizeModel } from './supportd.mjs';
import { bounded, demoKnowledgeBase, launchBrowser, newPage, open, screenshot } from './web_helpers.mjs';

const KEY = 'sk-lumen-agents-7c1f';
const ADMIN = 'sk-lumen-admin-0d5e9a7b3c';
let server;
let browser;
let dir;

before(async () => {
  const model = await synthesizeModel('tiny');
  dir = mkdtempSync(path.join(tmpdir(), 'supportd-web-keys-'));
  const config = path.join(dir, 'supportd.toml');
  writeFileSync(config, `[[api_keys]]\nkey = "${KEY}"\ntenant = "lumen"\nrole = "agent"\n`);
  const adminKey = path.join(dir, 'admin.key');
  writeFileSync(adminKey, `${ADMIN}\n`);
  // Every request counts as slow, so there are traces to keep.
  server = await startSupportd(['--model', model, '--data-dir', path.join(dir, 'data'), '--kb', demoKnowledgeBase(),
                                '--config', config, '--admin-key-file', adminKey, '--trace-slow-ms', '0.001']);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function call(method, p, body) {
  const r = await fetch(`${server.url}${p}`, {
    method, body: body === undefined ? undefined : JSON.stringify(body),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
  });
  return { status: r.status, body: await r.json() };
}

test('the agent console asks for the key, then works with it', bounded, async () => {
  const unauthorized = await fetch(`${server.url}/v1/agent/conversations?state=waiting`);
  assert.equal(unauthorized.status, 401);
  await unauthorized.arrayBuffer();

  const created = await call('POST', '/v1/sessions', { user: 'dora' });
  assert.equal(created.status, 201);
  const session = created.body.session;
  assert.equal((await call('POST', `/v1/sessions/${encodeURIComponent(session)}/handoff`, {})).status, 200);

  const agent = await newPage(browser.context, 'agent');
  await open(agent, `${server.url}/agent`);
  await agent.getByRole('alert').getByText('This server needs an API key').waitFor({ timeout: 10000 });
  await agent.getByRole('status').getByText('Needs an API key').waitFor();
  const keyField = agent.getByLabel('API key');
  assert.equal(await keyField.isVisible(), true);
  await screenshot(agent, 'agent-needs-key');

  // A wrong key is refused with a clear message; the right one loads the waiting list.
  await keyField.fill('sk-wrong');
  await keyField.press('Enter');
  await agent.getByRole('alert').getByText('The API key was refused').waitFor({ timeout: 10000 });
  await keyField.fill(KEY);
  await agent.getByRole('button', { name: 'Use key' }).click();
  const item = agent.locator(`#waiting li[data-session="${session}"] button`);
  await item.waitFor({ timeout: 10000 });
  await agent.getByText('Polling every 2 s').waitFor();

  await agent.getByLabel('Your name').fill('Erin');
  await agent.getByLabel('Your name').press('Tab');
  await item.click();
  await agent.getByRole('button', { name: 'Take conversation' }).click();
  await agent.getByText('You have this conversation').waitFor();
  await agent.getByLabel('Your reply').fill('Hi Dora, Erin here.');
  await agent.getByRole('button', { name: 'Send' }).click();
  await agent.locator('#history .entry.agent', { hasText: 'Hi Dora, Erin here.' }).waitFor();

  const history = await call('GET', `/v1/sessions/${encodeURIComponent(session)}/messages`);
  assert.equal(history.body.handoff, 'taken');
  assert.equal(history.body.agent, 'Erin');
  assert.ok(history.body.messages.some((m) => m.role === 'agent' && m.text === 'Hi Dora, Erin here.'));
  await agent.close();
});

test('a widget without a key shows the server\'s message', bounded, async () => {
  const expected = await fetch(`${server.url}/v1/sessions`, { method: 'POST', body: '{}',
                                                             headers: { 'content-type': 'application/json' } });
  assert.equal(expected.status, 401);
  const message = (await expected.json()).error.message;
  const page = await newPage(browser.context, 'customer');
  await open(page, `${server.url}/`);
  await page.getByRole('button', { name: 'Chat with us' }).click();
  const panel = page.getByRole('dialog');
  await panel.getByRole('alert').getByText(message).waitFor({ timeout: 10000 });
  await panel.getByText('Chat is not available right now.').waitFor();
  await page.close();
});

test('a Chinese widget without a key says so in Chinese', bounded, async () => {
  const refused = await fetch(`${server.url}/v1/sessions`, { method: 'POST', body: '{}',
                                                            headers: { 'content-type': 'application/json' } });
  assert.equal(refused.status, 401);
  const { message, code } = (await refused.json()).error;
  assert.equal(code, 'invalid_api_key');
  const page = await newPage(browser.context, 'customer-zh');
  const embed = `${server.url}/embedded-zh.html`;  // the shop's own page, served by the browser
  await page.route(embed, (route) => route.fulfill({
    contentType: 'text/html',
    body: '<!doctype html><html lang="zh-CN"><title>商店</title><script src="/widget.js" data-supportd></script>',
  }));
  await open(page, embed);
  await page.getByRole('button', { name: '联系客服' }).click();
  const panel = page.getByRole('dialog');
  await panel.getByRole('alert').getByText('出错了：本网站的客服服务未获授权').waitFor({ timeout: 10000 });
  await panel.getByText('在线客服暂时不可用。').waitFor();
  assert.equal(await panel.getByText(message).count(), 0, 'the English message is not shown');
  await page.close();
});

test('the dashboard shows the kept traces to the admin key only', bounded, async () => {
  for (const key of [undefined, KEY]) {
    const refused = await fetch(`${server.url}/v1/traces`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
    assert.equal(refused.status, 401);
    await refused.arrayBuffer();
  }

  const page = await newPage(browser.context, 'dashboard-keys');
  await open(page, `${server.url}/dashboard`);
  // The statistics need no key; the traces panel asks for the admin key, and the key form stays.
  await page.getByRole('status').getByText('Live').waitFor({ timeout: 10000 });
  const note = page.locator('#traces-key');
  await note.waitFor({ state: 'visible', timeout: 10000 });
  const keyField = page.getByLabel('API key');
  await page.waitForTimeout(1500);  // a statistics poll or two later, the form is still there
  assert.equal(await keyField.isVisible(), true);
  await screenshot(page, 'dashboard-needs-admin-key');

  // An agent's key is not enough; the admin key lists the kept requests.
  await keyField.fill(KEY);
  await page.getByRole('button', { name: 'Use key' }).click();
  await page.waitForTimeout(3500);  // a traces poll later
  assert.equal(await note.isVisible(), true);
  await keyField.fill(ADMIN);
  await page.getByRole('button', { name: 'Use key' }).click();
  // (The newest kept requests: the dashboard's own polls, each "slow" on this server.)
  await page.locator('#traces button[data-trace]', { hasText: 'GET /v1/' }).first().waitFor({ timeout: 10000 });
  assert.equal(await note.isVisible(), false);
  await page.close();
});
