// The "Slowest requests" panel of the operations dashboard: the recent slow or failed requests
// the server kept (GET /v1/traces), newest first, each opening a waterfall of its spans
// (GET /v1/traces/{id}): one row per span, indented under its parent, a bar placed by its start
// and length within the request, its events as ticks. Without tracing (404) it says so.
import { api, ApiError, el } from './client.js';
import { fmt } from './format.js';

const $ = (id) => document.getElementById(id);
const INTERVAL_MS = 3000;
let open = null;  // the trace id whose waterfall is shown
let wantsKey = false;  // the server shows its traces to the admin key only (it has API keys)

// Whether the panel waits for the admin key (dashboard.js keeps the key form shown then).
export function tracesWantKey() {
  return wantsKey;
}

// Spans in tree order (each after its parent, siblings by start), with their depth.
export function treeOrder(spans) {
  const ids = new Set(spans.map((s) => s.span_id));
  const children = new Map();
  for (const s of spans) {
    const parent = ids.has(s.parent_span_id) ? s.parent_span_id : '';
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent).push(s);
  }
  const out = [];
  const walk = (parent, depth) => {
    const list = (children.get(parent) || []).sort((a, b) => a.start_ms - b.start_ms);
    for (const s of list) {
      out.push({ span: s, depth });
      walk(s.span_id, depth + 1);
    }
  };
  walk('', 0);
  return out;
}

function stagesText(stages) {
  return stages.map((s) => `${s.name} ${fmt.ms(s.duration_ms)}`).join(' · ');
}

function drawWaterfall(trace) {
  const box = $('waterfall');
  box.replaceChildren();
  box.hidden = false;
  const total = Math.max(trace.duration_ms, ...trace.spans.map((s) => s.start_ms + s.duration_ms), 0.001);
  box.append(el('h3', { text: `${trace.name} · ${fmt.ms(trace.duration_ms)} · trace ${trace.trace_id}` }));
  const list = el('ol', { class: 'spans', 'aria-label': 'Spans of the request' });
  for (const { span, depth } of treeOrder(trace.spans)) {
    const left = (100 * span.start_ms) / total;
    const width = Math.max((100 * span.duration_ms) / total, 0.3);
    const bar = el('span', { class: `span-bar${span.status === 'error' ? ' failed' : ''}`,
                             style: { left: `${left}%`, width: `${Math.min(width, 100 - left)}%` } });
    const track = el('span', { class: 'track' }, bar);
    for (const e of span.events || []) {
      track.append(el('span', { class: 'event', title: `${e.name} at ${fmt.ms(e.time_ms)}`,
                                style: { left: `${(100 * e.time_ms) / total}%` } }));
    }
    const title = Object.entries(span.attributes || {}).map(([k, v]) => `${k}: ${v}`).join('\n');
    list.append(el('li', { class: 'span-row', 'data-name': span.name, title },
      el('span', { class: 'span-name', style: { paddingLeft: `${depth * 14}px` }, text: span.name }),
      track,
      el('span', { class: 'span-ms', text: fmt.ms(span.duration_ms) })));
  }
  box.append(list);
}

async function show(id) {
  open = id;
  try {
    drawWaterfall(await api('GET', `/v1/traces/${id}`, { timeout: 5000 }));
  } catch (e) {
    $('waterfall').hidden = false;
    $('waterfall').replaceChildren(el('p', { class: 'note', text: `Cannot show trace ${id}: ${e.message}` }));
  }
}

function drawList(body) {
  $('traces-note').textContent = `(over ${fmt.ms(body.slow_ms)}, or failed; ${body.traces.length} kept)`;
  const rows = body.traces.map((t) => el('tr', { class: t.trace_id === open ? 'chosen' : null },
    el('td', { text: new Date(t.start_unix_ms).toLocaleTimeString() }),
    el('th', { scope: 'row' }, el('button', { class: 'link', type: 'button', 'data-trace': t.trace_id,
                                              onclick: () => show(t.trace_id), text: t.name })),
    el('td', { text: fmt.ms(t.latency_ms) }),
    el('td', { text: t.status ? String(t.status) : '–' }),
    el('td', { text: t.error_type || t.reason }),
    el('td', { class: 'stages', text: stagesText(t.stages) })));
  $('traces').querySelector('tbody').replaceChildren(...rows);
  $('traces-empty').hidden = rows.length > 0;
}

async function poll() {
  try {
    drawList(await api('GET', '/v1/traces?limit=20', { timeout: 3000 }));
    $('traces-off').hidden = true;
    wantsKey = false;
    $('traces-key').hidden = true;
  } catch (e) {
    wantsKey = e instanceof ApiError && e.status === 401;
    $('traces-key').hidden = !wantsKey;
    if (e instanceof ApiError && e.status === 404) {
      $('traces-off').hidden = false;
      $('traces-panel').querySelector('.table-wrap').hidden = true;
      return;  // tracing is off on this server: nothing to poll
    }
  }
  setTimeout(poll, INTERVAL_MS);
}

export function startTraces() {
  poll();
}
