// Every file under web/ is built into supportd and served at its address with the right
// Content-Type, an ETag that revalidates, and Cache-Control (the widget's parts in web/widget/
// as the one script /widget.js); unknown files get a JSON 404; the pages only load files that
// exist and nothing from another origin.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { startSupportd, synthesizeModel } from './supportd.mjs';
import { bounded, demoKnowledgeBase } from './web_helpers.mjs';

const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web');

const TYPES = {
  html: 'text/html; charset=utf-8', js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8', svg: 'image/svg+xml', json: 'application/json',
  png: 'image/png',
};

// The address each file is served at.
function urlPath(file) {
  const pages = { 'index.html': '/', 'widget.js': '/widget.js', 'agent.html': '/agent',
                  'dashboard.html': '/dashboard' };
  if (pages[file]) return pages[file];
  assert.ok(file.startsWith('static/'), `${file}: web/ files other than the pages live in web/static/`);
  return `/${file}`;
}

// The files served from web/: web/widget/ holds the parts of one of them, widget.js.
function webFiles(dir = webDir, prefix = '') {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory() && `${prefix}${entry.name}` === 'widget') return ['widget.js'];
    return entry.isDirectory() ? webFiles(path.join(dir, entry.name), `${prefix}${entry.name}/`)
                               : [`${prefix}${entry.name}`];
  });
}

// /widget.js is every part of web/widget/, each once and whole, in a script that parses.
function assertWidgetBuilt(body) {
  const text = body.toString('utf8');
  const parts = readdirSync(path.join(webDir, 'widget'));
  assert.ok(parts.length > 1, 'web/widget/ holds the parts');
  for (const part of parts) {
    const source = readFileSync(path.join(webDir, 'widget', part), 'utf8');
    const at = text.indexOf(source);
    assert.ok(at >= 0, `/widget.js holds web/widget/${part} whole`);
    assert.equal(text.indexOf(source, at + 1), -1, `/widget.js holds web/widget/${part} once`);
  }
  assert.doesNotThrow(() => new vm.Script(text, { filename: 'widget.js' }), '/widget.js parses');
}

// GET with the path sent exactly as written (fetch would resolve "..").
function rawGet(url, rawPath) {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url);
    http.get({ hostname, port, path: rawPath }, (r) => {
      let body = '';
      r.setEncoding('utf8');
      r.on('data', (c) => { body += c; });
      r.on('end', () => resolve({ status: r.statusCode, type: r.headers['content-type'], body }));
    }).on('error', reject);
  });
}

let server;
let dataDir;
before(async () => {
  const model = await synthesizeModel('tiny');
  dataDir = mkdtempSync(path.join(tmpdir(), 'supportd-web-pages-'));
  server = await startSupportd(['--model', model, '--data-dir', dataDir, '--kb', demoKnowledgeBase()]);
});
after(async () => {
  await server?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test('every file in web/ is served with its content type, ETag and Cache-Control', bounded, async () => {
  const files = webFiles();
  for (const page of ['index.html', 'widget.js', 'agent.html', 'dashboard.html']) {
    assert.ok(files.includes(page), `web/${page} exists`);
  }
  for (const file of files) {
    const url = `${server.url}${urlPath(file)}`;
    const r = await fetch(url);
    assert.equal(r.status, 200, `${url}`);
    const ext = path.extname(file).slice(1);
    assert.ok(TYPES[ext], `${file}: a type is known for .${ext}`);
    assert.equal(r.headers.get('content-type'), TYPES[ext], url);
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff', url);
    assert.equal(r.headers.get('cache-control'), 'no-cache', url);
    const body = Buffer.from(await r.arrayBuffer());
    if (file === 'widget.js') assertWidgetBuilt(body);
    else assert.ok(body.equals(readFileSync(path.join(webDir, file))), `${url} serves web/${file} as built`);
    const etag = r.headers.get('etag');
    assert.match(etag ?? '', /^"[0-9a-f]{16}"$/, url);
    const again = await fetch(url, { headers: { 'If-None-Match': etag } });
    assert.equal(again.status, 304, `${url} revalidates`);
    assert.equal((await again.arrayBuffer()).byteLength, 0);
    const stale = await fetch(url, { headers: { 'If-None-Match': '"0000000000000000"' } });
    assert.equal(stale.status, 200, `${url} with another ETag`);
    await stale.arrayBuffer();
  }
});

test('different files have different ETags', bounded, async () => {
  const tags = new Set();
  for (const p of ['/', '/widget.js', '/agent', '/dashboard']) {
    const r = await fetch(`${server.url}${p}`);
    await r.arrayBuffer();
    tags.add(r.headers.get('etag'));
  }
  assert.equal(tags.size, 4);
});

test('unknown pages and paths that climb out of static/ get a JSON 404', bounded, async () => {
  for (const p of ['/static/no-such-file.js', '/static/', '/static/%2e%2e/index.html', '/static/../widget.js',
                   '/static/static/demo.css']) {
    const r = await rawGet(server.url, p);
    assert.equal(r.status, 404, p);
    assert.match(r.type, /^application\/json/, p);
    assert.equal(JSON.parse(r.body).error.code, 'not_found', p);
  }
});

test('the operator pages forbid framing and foreign scripts; the widget may be loaded anywhere', bounded, async () => {
  for (const p of ['/agent', '/dashboard']) {
    const r = await fetch(`${server.url}${p}`);
    await r.arrayBuffer();
    const csp = r.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'self'/, p);
    assert.match(csp, /frame-ancestors 'none'/, p);
  }
  const widget = await fetch(`${server.url}/widget.js`);
  await widget.arrayBuffer();
  assert.equal(widget.headers.get('cross-origin-resource-policy'), 'cross-origin');
});

test('pages reference only files that exist, and nothing from another origin', bounded, async () => {
  const served = new Set(webFiles().map(urlPath));
  for (const page of ['index.html', 'agent.html', 'dashboard.html']) {
    const html = readFileSync(path.join(webDir, page), 'utf8');
    // Attributes of real tags only: the embed snippet shown as text (&lt;script src=...) is not one.
    const tags = [...html.matchAll(/<[a-z][^<>]*>/gi)].map((m) => m[0]);
    const refs = tags.flatMap((tag) => [...tag.matchAll(/\s(?:src|href)="([^"]+)"/g)].map((m) => m[1]));
    assert.ok(refs.length > 0, page);
    for (const ref of refs) {
      if (ref.startsWith('#')) continue;
      assert.ok(ref.startsWith('/'), `${page}: ${ref} is on this server`);
      assert.ok(served.has(ref.split(/[?#]/)[0]), `${page}: ${ref} is served`);
    }
  }
  // The widget's parts import nothing: they are joined inside one function (a script that
  // parses, checked above).
  for (const file of webFiles().filter((f) => f.endsWith('.js') && f !== 'widget.js')) {
    const js = readFileSync(path.join(webDir, file), 'utf8');
    const imports = [...js.matchAll(/^import .* from '([^']+)'/gm)].map((m) => m[1]);
    for (const spec of imports) {
      assert.ok(spec.startsWith('./'), `${file}: imports ${spec} from this server`);
      assert.ok(served.has(urlPath(path.posix.join(path.posix.dirname(file), spec))), `${file}: ${spec} exists`);
    }
  }
});
