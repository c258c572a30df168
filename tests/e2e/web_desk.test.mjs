// The chat widget and the agent console in headless Chromium against a real supportd on the
// demo knowledge base (data/demo-kb, what `supportd serve` imports by default): a customer asks, sees the answer arrive over the socket with
// its citations, asks for a person; an agent takes the conversation and answers; the customer
// sees it, answers back, and rates the conversation once the agent closes it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startSupportd, synthesizeModel } from './supportd.mjs';
import { bounded, demoKnowledgeBase, launchBrowser, newPage, open, reload, screenshot } from './web_helpers.mjs';

let server;
let browser;
let dataDir;

before(async () => {
  const model = await synthesizeModel('tiny');
  dataDir = mkdtempSync(path.join(tmpdir(), 'supportd-web-desk-'));
  server = await startSupportd(['--model', model, '--data-dir', dataDir, '--kb', demoKnowledgeBase()]);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const sessionKey = () => `supportd.session:${server.url}`;

async function post(p, body, headers = {}) {
  const r = await fetch(`${server.url}${p}`, { method: 'POST', body: JSON.stringify(body),
                                               headers: { 'content-type': 'application/json', ...headers } });
  return { status: r.status, body: await r.json() };
}

// The socket events the widget received, in order.
function recordSocketEvents(page) {
  const events = [];
  page.on('websocket', (ws) => {
    if (!ws.url().includes('/v1/ws?session=')) return;
    ws.on('framereceived', (f) => {
      try { events.push(JSON.parse(f.payload)); } catch { /* not JSON */ }
    });
  });
  return events;
}

test('customer asks, sees the answer and its citations, asks for a person; an agent takes it and answers', bounded, async () => {
  const customer = await newPage(browser.context, 'customer');
  const events = recordSocketEvents(customer);
  await open(customer, `${server.url}/`);
  await customer.getByRole('heading', { name: 'How can we help?' }).waitFor();

  // One script tag put the widget on the page; its panel opens from the floating button.
  await customer.getByRole('button', { name: 'Chat with us' }).click();
  const panel = customer.getByRole('dialog', { name: 'Lumen & Co. support' });
  await panel.waitFor();
  await panel.getByText('Online').waitFor();
  const input = panel.getByLabel('Your message');
  await input.fill('Where is my parcel?');
  await input.press('Enter');

  // The answer streams in over the socket: citations, tokens, then done.
  const answer = panel.locator('.msg.assistant').filter({ has: customer.locator('.badge') }).last();
  await answer.waitFor({ timeout: 15000 });
  const types = events.map((e) => e.type);
  const done = events.find((e) => e.type === 'done');
  assert.ok(done, `a done event arrived: ${JSON.stringify(types)}`);
  assert.ok(types.includes('token'), `tokens arrived: ${JSON.stringify(types)}`);
  assert.ok(types.indexOf('token') < types.indexOf('done'), 'tokens before done');
  const tokens = events.filter((e) => e.type === 'token').map((e) => e.text).join('');
  assert.ok(['faq', 'kb', 'cache'].includes(done.answer.source), `answered from the knowledge base: ${done.answer.source}`);
  const bubbleText = await answer.locator('.bubble').textContent();
  assert.equal(bubbleText, done.answer.text);
  assert.equal(bubbleText, tokens, 'what streamed is what is shown');
  assert.match(bubbleText, /track/i);
  // Citations as cards: title and snippet, as the server sent them.
  assert.ok(done.answer.citations.length > 0, 'the answer has citations');
  const cards = answer.locator('.cite');
  assert.equal(await cards.count(), done.answer.citations.length);
  assert.equal(await cards.first().locator('strong').textContent(), done.answer.citations[0].title);
  assert.equal(await cards.first().locator('span').textContent(), done.answer.citations[0].snippet);
  assert.ok((await answer.locator('.badge').textContent()).length > 0, 'a source badge');

  // Thumbs up is recorded.
  await answer.getByRole('button', { name: 'Helpful', exact: true }).click();
  await answer.getByText('Thanks for your feedback.').waitFor();
  assert.equal(await answer.getByRole('button', { name: 'Helpful', exact: true }).getAttribute('aria-pressed'), 'true');
  await screenshot(customer, 'widget-answer');

  // Ask for a person.
  await panel.getByRole('button', { name: 'Talk to a person' }).click();
  await panel.getByText('We are finding someone to help you').waitFor();
  const session = await customer.evaluate((key) => localStorage.getItem(key), sessionKey());
  assert.ok(session, 'the session is remembered in localStorage');

  // The agent sees the waiting conversation and takes it.
  const agent = await newPage(browser.context, 'agent');
  await open(agent, `${server.url}/agent`);
  await agent.getByLabel('Your name').fill('Bob');
  await agent.getByLabel('Your name').press('Tab');
  const item = agent.locator(`#waiting li[data-session="${session}"] button`);
  await item.waitFor({ timeout: 10000 });
  await agent.getByText('Live', { exact: true }).waitFor();
  await item.click();
  // The history shows what the customer asked the bot, and the bot's answer with its source
  // and the articles it cited.
  await agent.locator('#history .entry.user', { hasText: 'Where is my parcel?' }).waitFor();
  const botAnswer = agent.locator('#history .entry.assistant', { hasText: done.answer.text.slice(0, 30) });
  assert.equal(await botAnswer.locator('.badge').textContent(), done.answer.source);
  assert.equal(await botAnswer.locator('.sources').textContent(),
               `Sources: ${done.answer.citations.map((c) => c.title).join(' · ')}`);
  await agent.getByRole('button', { name: 'Take conversation' }).click();
  await agent.getByText('You have this conversation').waitFor();
  await agent.locator(`#mine li[data-session="${session}"]`).waitFor();
  assert.equal(await agent.locator(`#waiting li[data-session="${session}"]`).count(), 0);
  const reply = 'Hello, this is Bob. Your parcel left our warehouse yesterday.';
  await agent.getByLabel('Your reply').fill(reply);
  await agent.getByLabel('Your reply').press('Enter');
  await agent.locator('#history .entry.agent', { hasText: reply }).waitFor();

  // The customer sees that Bob joined, and his message, set apart from the bot's.
  await panel.getByText('Bob joined the conversation.').waitFor({ timeout: 10000 });
  const agentMessage = panel.locator('.msg.agent', { hasText: reply });
  await agentMessage.waitFor({ timeout: 10000 });
  assert.equal(await agentMessage.locator('.who').textContent(), 'Bob');
  await screenshot(customer, 'widget-agent-message');

  // The customer answers; the message reaches the agent live.
  await input.fill('Thank you! 谢谢');
  await input.press('Enter');
  await agent.locator('#history .entry.user', { hasText: 'Thank you! 谢谢' }).waitFor({ timeout: 10000 });
  await screenshot(agent, 'agent-console');

  // The agent closes; the customer is asked to rate the conversation.
  await agent.getByRole('button', { name: 'Close conversation' }).click();
  await panel.getByText('This conversation was closed.').waitFor({ timeout: 10000 });
  await panel.getByRole('button', { name: '5 out of 5' }).click();
  await panel.getByText('Thank you for your rating!').waitFor();
  await screenshot(customer, 'widget-csat');

  // A reload keeps the conversation.
  await reload(customer);
  await customer.getByRole('button', { name: 'Chat with us' }).click();
  await panel.locator('.msg.user', { hasText: 'Where is my parcel?' }).waitFor({ timeout: 10000 });
  await panel.locator('.msg.agent', { hasText: reply }).waitFor();
  assert.equal(await customer.evaluate((key) => localStorage.getItem(key), sessionKey()), session);

  assert.deepEqual([...customer.problems, ...agent.problems], []);
  await customer.close();
  await agent.close();
});

test('taking a conversation someone else took first says so', bounded, async () => {
  const created = await post('/v1/sessions', { user: 'carol' });
  assert.equal(created.status, 201);
  const session = created.body.session;
  assert.equal((await post(`/v1/sessions/${encodeURIComponent(session)}/handoff`, {})).body.handoff, 'waiting');

  const agent = await newPage(browser.context, 'agent');
  await open(agent, `${server.url}/agent`);
  await agent.getByLabel('Your name').fill('Bob');
  await agent.getByLabel('Your name').press('Tab');
  await agent.locator(`#waiting li[data-session="${session}"] button`).click({ timeout: 10000 });
  await agent.getByRole('button', { name: 'Take conversation' }).waitFor();
  // Alice is faster: Bob's click reaches the server after hers (whether or not his console has
  // heard of it yet, the server decides).
  const taken = await post(`/v1/agent/conversations/${encodeURIComponent(session)}/take`, { agent: 'Alice' });
  assert.equal(taken.status, 200);
  await agent.locator('#take').dispatchEvent('click');
  await agent.getByRole('alert').getByText('Someone else took this conversation first.').waitFor();
  await agent.getByText('Taken by Alice').waitFor();
  assert.equal(await agent.getByLabel('Your reply').isVisible(), false, 'no reply box for a conversation Bob does not hold');
  assert.deepEqual(agent.problems.filter((p) => !p.includes('409')), []);
  await agent.close();
});

test('taking a conversation that went back to the bot meanwhile says so, not that someone took it', bounded, async () => {
  const session = (await post('/v1/sessions', { user: 'dave' })).body.session;
  const e = encodeURIComponent(session);
  assert.equal((await post(`/v1/sessions/${e}/handoff`, {})).body.handoff, 'waiting');

  const agent = await newPage(browser.context, 'agent-released');
  await open(agent, `${server.url}/agent`);
  await agent.getByLabel('Your name').fill('Bob');
  await agent.getByLabel('Your name').press('Tab');
  await agent.locator(`#waiting li[data-session="${session}"] button`).click({ timeout: 10000 });
  await agent.getByRole('button', { name: 'Take conversation' }).waitFor();
  // Alice takes it and hands it back to the bot before Bob clicks: the server answers 409.
  assert.equal((await post(`/v1/agent/conversations/${e}/take`, { agent: 'Alice' })).status, 200);
  assert.equal((await post(`/v1/agent/conversations/${e}/release`, { agent: 'Alice' })).status, 200);
  await agent.locator('#take').dispatchEvent('click');
  await agent.getByRole('alert').getByText('This conversation is no longer waiting (with the bot).').waitFor();
  assert.equal(await agent.getByText('Someone else took this conversation first.').count(), 0);
  assert.equal(await agent.getByLabel('Your reply').isVisible(), false, 'no reply box: Bob does not hold it');
  assert.deepEqual(agent.problems.filter((p) => !p.includes('409')), []);
  await agent.close();
});

test('asking for a person in words (Chinese) hands the conversation over, as the button does', bounded, async () => {
  const page = await newPage(browser.context, 'customer-asks-in-words');
  await open(page, `${server.url}/`);
  await page.evaluate((key) => localStorage.removeItem(key), sessionKey());
  await reload(page);
  await page.getByRole('button', { name: 'Chat with us' }).click();
  const panel = page.getByRole('dialog');
  await panel.getByText('Online', { exact: true }).waitFor({ timeout: 10000 });
  await panel.getByLabel('Your message').fill('转人工');
  await panel.getByLabel('Your message').press('Enter');
  // The desk's own answer (in Chinese), then the widget shows it is waiting for a person.
  const answer = panel.locator('.msg.assistant').filter({ has: page.locator('.badge') }).last();
  await answer.waitFor({ timeout: 15000 });
  assert.match(await answer.locator('.bubble').textContent(), /人工/);
  await panel.getByText('We are finding someone to help you').waitFor();
  const human = panel.getByRole('button', { name: 'Waiting for a person…' });
  assert.equal(await human.isDisabled(), true, 'no second request for a person');
  const session = await page.evaluate((key) => localStorage.getItem(key), sessionKey());
  const waiting = await (await fetch(`${server.url}/v1/agent/conversations?state=waiting`)).json();
  assert.ok(waiting.conversations.some((c) => c.session === session), 'the conversation waits for an agent');
  assert.deepEqual(page.problems, []);
  await page.close();
});

// Asks the widget's panel how long delivery takes; the answer, from the knowledge base, arrives
// with its citations.
async function askAboutDelivery(page, panel) {
  await panel.getByLabel('Your message').fill('How long does delivery take?');
  await panel.getByLabel('Your message').press('Enter');
  const answer = panel.locator('.msg.assistant').filter({ has: page.locator('.badge') }).last();
  await answer.waitFor({ timeout: 15000 });
  assert.match(await answer.locator('.bubble').textContent(), /business days/);
  assert.ok(await answer.locator('.cite').count() > 0, 'citations');
}

test('without WebSockets the widget streams answers over HTTP', bounded, async () => {
  const page = await newPage(browser.context, 'customer-no-ws');
  await page.addInitScript(() => { delete window.WebSocket; });
  await open(page, `${server.url}/`);
  await page.evaluate((key) => localStorage.removeItem(key), sessionKey());
  await reload(page);
  let streamed = false;
  page.on('response', (r) => {
    if (/\/v1\/sessions\/[^/]+\/messages$/.test(r.url()) && r.request().method() === 'POST' &&
        (r.headers()['content-type'] ?? '').startsWith('text/event-stream')) streamed = true;
  });
  await page.getByRole('button', { name: 'Chat with us' }).click();
  const panel = page.getByRole('dialog');
  await panel.getByText('Online (without live connection)').waitFor({ timeout: 10000 });
  await askAboutDelivery(page, panel);
  assert.ok(streamed, 'the answer came as server-sent events');
  assert.deepEqual(page.problems, []);
  await page.close();
});

// A business's own page on another site (another port is another origin) with the one script
// tag: the widget's calls there are cross-origin, so they work only with supportd's CORS
// answers (preflights for its JSON posts, headers on deferred and streamed answers).
async function startShopSite() {
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head>
<body><h1>Our shop</h1><script src="${server.url}/widget.js" data-supportd data-title="Shop help"></script></body></html>`;
  const site = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(page);
  });
  await new Promise((resolve) => site.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${site.address().port}/`,
    close: () => new Promise((resolve) => {
      site.close(resolve);
      site.closeAllConnections();  // the browser keeps its connection alive; do not wait for it
    }),
  };
}

for (const transport of ['socket', 'http']) {
  test(`the widget on another site's page answers over ${transport === 'socket' ? 'the WebSocket' : 'HTTP'}`, bounded, async () => {
    const site = await startShopSite();
    const page = await newPage(browser.context, `shop-${transport}`);
    try {
      if (transport === 'http') await page.addInitScript(() => { delete window.WebSocket; });
      const crossOrigin = [];
      page.on('response', (r) => {
        if (r.url().startsWith(server.url) && r.url().includes('/v1/')) {
          crossOrigin.push({ method: r.request().method(), status: r.status(),
                             allow: r.headers()['access-control-allow-origin'] });
        }
      });
      await open(page, site.url);
      await page.getByRole('button', { name: 'Chat with us' }).click();
      const panel = page.getByRole('dialog', { name: 'Shop help' });
      await panel.getByText(transport === 'socket' ? 'Online' : 'Online (without live connection)',
                            { exact: true }).waitFor({ timeout: 10000 });
      await askAboutDelivery(page, panel);
      const posts = crossOrigin.filter((r) => r.method === 'POST');
      assert.ok(posts.length >= (transport === 'http' ? 2 : 1), JSON.stringify(crossOrigin));
      for (const r of crossOrigin.filter((r) => r.method !== 'OPTIONS' && r.status !== 101)) {
        assert.equal(r.allow, '*', `CORS header on ${JSON.stringify(r)}`);
      }
      assert.deepEqual(page.problems, []);
    } finally {
      await page.close();
      await site.close();
    }
  });
}

test('when the server cannot be reached the widget says so, and recovers', bounded, async () => {
  const page = await newPage(browser.context, 'customer-offline');
  await open(page, `${server.url}/`);
  await page.evaluate((key) => localStorage.removeItem(key), sessionKey());
  await page.route('**/v1/sessions', (route) => route.abort('connectionrefused'));
  await reload(page);
  await page.getByRole('button', { name: 'Chat with us' }).click();
  const panel = page.getByRole('dialog');
  await panel.getByRole('alert').getByText('cannot reach the server').waitFor({ timeout: 10000 });
  await panel.getByText('Cannot reach the server. Retrying…').waitFor();
  await screenshot(page, 'widget-offline');
  // The network comes back: the widget retries by itself.
  await page.unroute('**/v1/sessions');
  await panel.getByText('Online', { exact: true }).waitFor({ timeout: 15000 });
  await page.close();
});

test('a session id the server never issued is dropped for a new one', bounded, async () => {
  // A real id with its signature changed (forged: 404 unknown_session), and one that is not an id
  // at all (400): either way the widget starts a new conversation instead of failing.
  const issued = (await post('/v1/sessions', {})).body.session;
  const last = issued.at(-1) === 'A' ? 'B' : 'A';
  const forged = `${issued.slice(0, -1)}${last}`;
  assert.equal((await fetch(`${server.url}/v1/sessions/${encodeURIComponent(forged)}/messages`)).status, 404);
  for (const stale of [forged, 'anonymous.web.forged.forged']) {
    const page = await newPage(browser.context, `customer-stale-id ${stale}`);
    await open(page, `${server.url}/`);
    await page.evaluate(([key, id]) => localStorage.setItem(key, id), [sessionKey(), stale]);
    await reload(page);
    await page.getByRole('button', { name: 'Chat with us' }).click();
    const panel = page.getByRole('dialog');
    await panel.getByText('Online', { exact: true }).waitFor({ timeout: 10000 });
    const fresh = await page.evaluate((key) => localStorage.getItem(key), sessionKey());
    assert.ok(fresh && fresh !== stale && fresh !== issued, fresh);
    await panel.getByLabel('Your message').fill('How do I return an item?');
    await panel.getByLabel('Your message').press('Enter');
    await panel.locator('.msg.assistant .badge').waitFor({ timeout: 15000 });
    const history = await (await fetch(`${server.url}/v1/sessions/${encodeURIComponent(fresh)}/messages`)).json();
    assert.ok(history.messages.some((m) => m.role === 'user' && m.text === 'How do I return an item?'),
              'the question went to the new conversation');
    // The refused id is the only thing the browser may complain about.
    assert.deepEqual(page.problems.filter((p) => !/status of 40[04]/.test(p)), []);
    await page.close();
  }
});

test('the widget works from the keyboard alone', bounded, async () => {
  const page = await newPage(browser.context, 'customer-keyboard');
  await open(page, `${server.url}/`);
  await page.evaluate((key) => localStorage.removeItem(key), sessionKey());
  await reload(page);
  const launcher = page.getByRole('button', { name: 'Chat with us' });
  // Tab through the page until the launcher has focus (it comes after the page's own links).
  const launcherFocused = () => launcher.evaluate((b) => b.getRootNode().activeElement === b);
  for (let i = 0; i < 30 && !(await launcherFocused()); i++) await page.keyboard.press('Tab');
  assert.ok(await launcherFocused(), 'Tab reaches the launcher');
  await page.keyboard.press('Enter');
  const panel = page.getByRole('dialog');
  const input = panel.getByLabel('Your message');
  await input.waitFor();
  assert.ok(await input.evaluate((t) => t.getRootNode().activeElement === t), 'the message box has focus');
  assert.equal(await launcher.getAttribute('aria-expanded'), 'true');
  await page.keyboard.type('How much is shipping?');
  await page.keyboard.press('Enter');
  await panel.locator('.msg.assistant .badge').waitFor({ timeout: 15000 });
  // Escape closes the panel and gives focus back to the launcher.
  await page.keyboard.press('Escape');
  await panel.waitFor({ state: 'hidden' });
  assert.ok(await launcherFocused(), 'focus returns to the launcher');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('on a phone the agent sees the newest message and the reply box after every message', bounded, async () => {
  const session = (await post('/v1/sessions', { user: 'erin' })).body.session;
  const e = encodeURIComponent(session);
  for (const text of ['Where is my parcel?', 'How do I return an item?', 'Can I pay with PayPal?',
                      'How long does delivery take?', 'How do I reset my password?']) {
    assert.equal((await post(`/v1/sessions/${e}/messages`, { text })).status, 200);
  }
  assert.equal((await post(`/v1/sessions/${e}/handoff`, {})).status, 200);
  assert.equal((await post(`/v1/agent/conversations/${e}/take`, { agent: 'Dee' })).status, 200);

  const agent = await newPage(browser.context, 'agent-phone');
  await agent.setViewportSize({ width: 390, height: 844 });
  // Dee took it from this browser (set before the console's script runs: a console still
  // loading would write back the list it read).
  await agent.addInitScript((s) => {
    localStorage.setItem('supportd.agent.name', 'Dee');
    localStorage.setItem('supportd.agent.mine', JSON.stringify([s]));
  }, session);
  await open(agent, `${server.url}/agent`);
  await agent.locator(`#mine li[data-session="${session}"] button`).click({ timeout: 10000 });
  await agent.locator('#history .entry.assistant').nth(4).waitFor();
  await agent.getByText('Live', { exact: true }).waitFor();
  const inView = async (locator) => {
    const box = await locator.boundingBox();
    return box !== null && box.y >= 0 && box.y + box.height <= 844;
  };
  const newest = () => agent.locator('#history .entry').last();
  const reply = agent.getByLabel('Your reply');

  await reply.fill('Hi, Dee here.');
  await reply.press('Enter');
  await agent.locator('#history .entry.agent', { hasText: 'Hi, Dee here.' }).waitFor();
  assert.ok(await inView(newest()), 'the reply just sent is in view');
  assert.ok(await inView(reply), 'the reply box is in view');
  for (const text of ['Thanks! It is order 12345.', 'It was due on Monday.']) {
    assert.equal((await post(`/v1/sessions/${e}/messages`, { text })).status, 200);
    await agent.locator('#history .entry.user', { hasText: text }).waitFor({ timeout: 10000 });
    assert.ok(await inView(newest()), `the customer's newest message is in view: ${text}`);
    assert.ok(await inView(reply), 'the reply box is in view');
  }
  await screenshot(agent, 'agent-phone');
  assert.deepEqual(agent.problems, []);
  await agent.close();
});
