// The pages under their Content-Security-Policy, in headless Chromium against a real supportd on
// the demo knowledge base: the demo page with the chat widget (a conversation answered), the
// agent console (a waiting conversation listed and taken) and the dashboard (live charts) each
// carry the policy and work under it, without one violation report or console error. A style
// the policy forbids, put in on purpose, is reported: the listening works.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startSupportd, synthesizeModel } from './supportd.mjs';
import { bounded, demoKnowledgeBase, launchBrowser, newPage, open } from './web_helpers.mjs';

let server;
let browser;
let dataDir;

before(async () => {
  const model = await synthesizeModel('tiny');
  dataDir = mkdtempSync(path.join(tmpdir(), 'supportd-web-csp-'));
  server = await startSupportd(['--model', model, '--data-dir', dataDir, '--kb', demoKnowledgeBase()]);
  browser = await launchBrowser();
  // Every page records the violations the browser reports (the event a report-uri would get).
  await browser.context.addInitScript(() => {
    window.cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.cspViolations.push(`${e.violatedDirective} blocked ${e.blockedURI || 'inline'} ` +
                                `(${e.sourceFile || 'page'}:${e.lineNumber})`);
    });
  });
});

after(async () => {
  await browser?.close();
  await server?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

// Opens `p` in a new page, checking that it came with the policy.
async function openUnderPolicy(name, p) {
  const page = await newPage(browser.context, name);
  const response = await page.goto(`${server.url}${p}`);
  assert.equal(response.status(), 200, p);
  const policy = (await response.allHeaders())['content-security-policy'] ?? '';
  for (const directive of ["default-src 'self'", "style-src 'self'", "object-src 'none'",
                           "frame-ancestors 'none'"]) {
    assert.ok(policy.includes(directive), `${p}: ${directive} in "${policy}"`);
  }
  assert.ok(!policy.includes('unsafe-inline') && !policy.includes('unsafe-eval'), `${p}: ${policy}`);
  return page;
}

// Fails on any violation or console error the page recorded.
async function assertClean(page, what) {
  const violations = await page.evaluate(() => window.cspViolations);
  assert.deepEqual(violations, [], `${what}: Content-Security-Policy violations`);
  assert.deepEqual(page.problems, [], `${what}: errors`);
}

test('the widget, the agent console and the dashboard work under the policy', bounded, async () => {
  // A customer talks to the widget on the demo page, then asks for a person.
  const customer = await openUnderPolicy('widget', '/');
  const launcher = customer.getByRole('button', { name: 'Chat with us' });
  // The widget's own style applies (a constructed style sheet): its launcher is the round 60 px
  // button, not an unstyled one.
  const style = await launcher.evaluate((b) => {
    const s = getComputedStyle(b);
    return { width: s.width, radius: s.borderTopLeftRadius };
  });
  assert.equal(style.width, '60px', JSON.stringify(style));
  assert.equal(style.radius, '50%', JSON.stringify(style));
  await launcher.click();
  const panel = customer.getByRole('dialog');
  await panel.getByText('Online', { exact: true }).waitFor({ timeout: 10000 });
  await panel.getByLabel('Your message').fill('Where is my parcel?');
  await panel.getByLabel('Your message').press('Enter');
  await panel.locator('.msg.assistant .thumbs').first().waitFor({ timeout: 15000 });
  await panel.getByRole('button', { name: 'Talk to a person' }).click();
  const session = await customer.evaluate((key) => localStorage.getItem(key), `supportd.session:${server.url}`);
  assert.ok(session, 'the widget remembers its conversation');

  // An agent sees it waiting and takes it.
  const agent = await openUnderPolicy('agent', '/agent');
  await agent.getByLabel('Your name').fill('Ines');
  await agent.getByLabel('Your name').press('Tab');
  const item = agent.locator(`#waiting li[data-session="${session}"] button`);
  await item.waitFor({ timeout: 15000 });
  await item.click();
  await agent.getByRole('button', { name: 'Take conversation' }).click();
  await agent.getByText('You have this conversation').waitFor();

  // The dashboard draws its live charts.
  const dashboard = await openUnderPolicy('dashboard', '/dashboard');
  await dashboard.getByText(/^Live · updated/).waitFor({ timeout: 10000 });
  await dashboard.waitForFunction(() => document.querySelectorAll('.chart svg polyline, .chart svg circle').length > 0);

  for (const [page, what] of [[customer, 'demo page and widget'], [agent, 'agent console'], [dashboard, 'dashboard']]) {
    await assertClean(page, what);
    await page.close();
  }
});

test('what the policy forbids is reported', bounded, async () => {
  const page = await openUnderPolicy('forbidden', '/agent');
  await page.evaluate(() => {
    const style = document.createElement('style');
    style.textContent = 'body { color: red; }';
    document.head.append(style);
  });
  await page.waitForFunction(() => window.cspViolations.length > 0, null, { timeout: 10000 });
  const violations = await page.evaluate(() => window.cspViolations);
  assert.match(violations[0], /^style-src/);
  await page.close();
});
