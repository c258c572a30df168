// Helpers of the web pages' tests: headless Chromium (Debian's /usr/bin/chromium) driven by
// playwright-core (nothing is downloaded: `npx playwright install` is never needed), and the
// demo knowledge base imported once per build of supportd.
import { chromium } from 'playwright-core';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { binary } from './supportd.mjs';

const testData = process.env.SUPPORTD_TEST_DATA_DIR ?? path.join(tmpdir(), 'supportd-test-data');

// Every test of the pages ends within two minutes (they take seconds), even when a browser or
// the server hangs in a way no locator's timeout catches, such as a fetch that never answers.
export const bounded = { timeout: 120000 };

export const chromiumPath = process.env.SUPPORTD_CHROMIUM ?? '/usr/bin/chromium';

// Screenshots go under the build tree (test-data/screenshots), never into the sources.
export const screenshotDir = path.join(testData, 'screenshots');

// A browser with a fresh profile; close() also removes the profile.
export async function launchBrowser() {
  const profile = mkdtempSync(path.join(tmpdir(), 'supportd-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    timeout: 60000,
    viewport: { width: 1280, height: 800 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  // Waits without their own timeout give up after 15 s rather than playwright's 30 s: nothing in
  // these pages takes that long unless it is broken, and a broken run should end soon.
  context.setDefaultTimeout(15000);
  return {
    context,
    async close() {
      await context.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

// A new page that records uncaught exceptions and console errors (tests assert there are none).
export async function newPage(context, name) {
  const page = await context.newPage();
  page.problems = [];
  page.on('pageerror', (e) => page.problems.push(`${name}: uncaught ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') page.problems.push(`${name}: console error: ${m.text()}`);
  });
  return page;
}

// Opens url in page; fails at once, naming the address and status, unless the server sent the
// page (200, or 304 when the browser revalidated its copy): a missing page would otherwise
// surface only as a locator's timeout, much later.
export async function open(page, url) {
  served(await page.goto(url), url);
}

// Reloads page, with the same check as open().
export async function reload(page) {
  served(await page.reload(), `${page.url()} (reload)`);
}

function served(response, what) {
  assert.ok([200, 304].includes(response?.status()), `GET ${what}: status ${response?.status()}`);
}

export async function screenshot(page, name, options = {}) {
  mkdirSync(screenshotDir, { recursive: true });
  const file = path.join(screenshotDir, `${name}.png`);
  await page.screenshot({ path: file, ...options });
  return file;
}

// The built-in demo knowledge base (data/demo-kb) imported with `supportd kb import`, as
// `supportd serve` does on its first start, for `serve --kb DIR`: the import takes seconds, so
// it is done once per build of supportd and shared (read-only) by the tests.
export function demoKnowledgeBase() {
  const source = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../data/demo-kb');
  const files = readdirSync(source).filter((f) => f.endsWith('.md') || f.endsWith('.json'))
                                   .map((f) => path.join(source, f));
  const { size, mtimeMs } = statSync(binary);
  const name = `web-demo-kb-${size}-${Math.floor(mtimeMs)}`;
  const dir = path.join(testData, name);
  if (existsSync(dir)) return dir;
  mkdirSync(testData, { recursive: true });
  const partial = `${dir}.partial.${process.pid}`;
  execFileSync(binary, ['kb', 'import', '--kb', partial, ...files],
               { stdio: ['ignore', 'ignore', 'inherit'], timeout: 300000 });
  try {
    renameSync(partial, dir);
  } catch {
    rmSync(partial, { recursive: true, force: true });  // another test imported it first
  }
  for (const old of readdirSync(testData)) {
    if (old.startsWith('web-demo-kb-') && old !== name && !old.includes('.partial.')) {
      rmSync(path.join(testData, old), { recursive: true, force: true });  // made by an older build
    }
  }
  return dir;
}
