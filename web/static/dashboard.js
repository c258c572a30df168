// The operations dashboard (/dashboard): polls /v1/stats every second and draws the last five
// minutes as small inline SVG charts. Rates (requests/s, tokens/s, CPU, desk answers/s) are
// differences of the server's counters between two polls. The desk's tiles and chart series
// come from dashboard_desk.js; the slowest requests and their waterfalls from
// dashboard_traces.js; the anomaly alerts marked on the charts from dashboard_alerts.js.
import { api, ApiError, apiKey, setApiKey, el } from './client.js';
import { alertsFor, startAlerts } from './dashboard_alerts.js';
import { deskRates, deskSeries, drawDesk } from './dashboard_desk.js';
import { startTraces, tracesWantKey } from './dashboard_traces.js';
import { drawVersions } from './dashboard_versions.js';
import { fmt } from './format.js';

const $ = (id) => document.getElementById(id);
const HISTORY_MS = 5 * 60 * 1000;
const INTERVAL_MS = 1000;
const OUTCOMES = ['ok', 'cancelled', 'rejected_queue_full', 'rejected_deadline', 'rate_limited', 'error'];
const LATENCIES = [['time_to_first_token', 'Time to first token'], ['inter_token_latency', 'Inter-token latency'],
                   ['request_duration', 'End to end'], ['queue_wait', 'Queue wait']];
const SVG = 'http://www.w3.org/2000/svg';

const samples = [];  // {t, stats, rates}, oldest first
let failures = 0;
let lastOk = 0;

// ------------------------------------------------------------------ formatting
// A value axis label: short (1 s, not 1000 ms; 1.25, not 1.3), and 0 on every chart.
function axisLabel(v, format) {
  const short = (x) => x.toLocaleString('en-US', { maximumSignificantDigits: 3 });
  if (v === 0) return '0';
  if (format !== fmt.ms) return short(v);
  return v >= 1000 ? `${short(v / 1000)} s` : `${short(v)} ms`;
}

// ------------------------------------------------------------------ derived numbers
function outcomeTotals(stats) {
  const totals = Object.fromEntries(OUTCOMES.map((o) => [o, 0]));
  for (const c of Object.values(stats.classes || {})) {
    for (const [o, n] of Object.entries(c.outcomes || {})) totals[o] = (totals[o] || 0) + n;
  }
  return totals;
}

// Rates between two polls; null when the counters went back (the server restarted).
function ratesBetween(a, b) {
  const dt = (b.t - a.t) / 1000;
  if (dt <= 0) return null;
  const rate = (x, y) => (Number.isFinite(x) && Number.isFinite(y) && y >= x ? (y - x) / dt : null);
  const ta = outcomeTotals(a.stats);
  const tb = outcomeTotals(b.stats);
  const byOutcome = {};
  for (const o of Object.keys(tb)) byOutcome[o] = rate(ta[o] ?? 0, tb[o]);
  return {
    byOutcome,
    requests: Object.values(byOutcome).reduce((s, v) => (v === null ? s : s + v), 0),
    tokens: rate(a.stats.engine?.tokens_generated, b.stats.engine?.tokens_generated),
    steps: rate(a.stats.engine?.steps, b.stats.engine?.steps),
    desk: deskRates(a.stats.desk, b.stats.desk, dt),
    cpu: (() => {
      const r = rate(a.stats.process?.cpu_seconds, b.stats.process?.cpu_seconds);
      return r === null ? null : r * 100;
    })(),
  };
}

// ------------------------------------------------------------------ charts
function niceMax(v) {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (v <= m * p) return m * p;
  return 10 * p;
}

function svgEl(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

// series: [{name, points: [[t, value|null], ...], format}]
function drawChart(id, series, caption) {
  const svg = $(`chart-${id}`);
  const width = Math.max(200, Math.round(svg.clientWidth || 320));
  const height = 140;
  const right = 8;
  const top = 8;
  const bottom = 18;
  const now = Date.now();
  // The last five minutes, or since the page opened (at least a minute) while there is less.
  const span = Math.min(HISTORY_MS, Math.max(60000, now - (samples[0]?.t ?? now)));
  const t0 = now - span;
  let max = 0;
  for (const s of series) for (const [, v] of s.points) if (Number.isFinite(v) && v > max) max = v;
  max = niceMax(max);
  const y = (v) => top + (1 - v / max) * (height - top - bottom);
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  // The value labels first: the left margin is as wide as the widest of them needs.
  const axis = svgEl('g', { class: 'axis' });
  const ticks = [0, 0.5, 1].map((f) => {
    const label = svgEl('text', { y: y(max * f) + 3, 'text-anchor': 'end' });
    label.textContent = axisLabel(max * f, series[0]?.format);
    axis.append(label);
    return { at: y(max * f), label };
  });
  svg.replaceChildren(axis);
  const widest = Math.max(...ticks.map((t) => t.label.getComputedTextLength()));
  const left = Math.max(44, Math.ceil(widest) + 10);
  const x = (t) => left + ((t - t0) / span) * (width - left - right);
  const nodes = [];
  const grid = svgEl('g', { class: 'grid' });
  for (const { at, label } of ticks) {
    grid.append(svgEl('line', { x1: left, x2: width - right, y1: at, y2: at }));
    label.setAttribute('x', left - 6);
  }
  const ago = span >= 120000 ? `−${Math.round(span / 60000)} min` : `−${Math.round(span / 1000)} s`;
  for (const [t, text, anchor] of [[t0, ago, 'start'], [now, 'now', 'end']]) {
    const label = svgEl('text', { x: x(t), y: height - 4, 'text-anchor': anchor });
    label.textContent = text;
    axis.append(label);
  }
  nodes.push(grid, axis);
  // Anomaly alerts on this chart's signals: a band while active, a dashed line where raised.
  const marked = [];
  for (const a of alertsFor(id)) {
    const end = a.ended ?? now;
    if (end < t0) continue;
    const from = x(Math.max(a.since, t0));
    const g = svgEl('g', { class: `alert-marker${a.ended ? '' : ' active'}`, 'data-alert': a.alert });
    const title = svgEl('title', {});
    const raised = new Date(a.since).toLocaleTimeString();
    title.textContent = `alert ${a.alert}: raised ${raised}` +
      (a.ended ? `, cleared ${new Date(a.ended).toLocaleTimeString()}` : ', active');
    g.append(title, svgEl('rect', { x: from.toFixed(1), y: top, width: Math.max(1, x(end) - from).toFixed(1),
                                    height: height - top - bottom }));
    if (a.since >= t0) g.append(svgEl('line', { x1: from.toFixed(1), x2: from.toFixed(1), y1: top, y2: height - bottom }));
    nodes.push(g);
    marked.push(`${a.alert} ${a.ended ? 'cleared' : 'active'} since ${raised}`);
  }
  series.forEach((s, i) => {
    // One polyline per run of known values.
    let run = [];
    const flush = () => {
      if (run.length > 1) nodes.push(svgEl('polyline', { class: `series c${i}`, points: run.join(' ') }));
      if (run.length === 1) {
        const [cx, cy] = run[0].split(',');
        nodes.push(svgEl('circle', { class: `series c${i}`, cx, cy, r: 1.5 }));
      }
      run = [];
    };
    for (const [t, v] of s.points) {
      if (t < t0) continue;
      if (!Number.isFinite(v)) flush();
      else run.push(`${x(t).toFixed(1)},${y(v).toFixed(1)}`);
    }
    flush();
  });
  svg.replaceChildren(...nodes);
  // The legend doubles as the chart's text alternative.
  const current = series.map((s) => {
    const last = [...s.points].reverse().find(([, v]) => Number.isFinite(v));
    return [s.name, last ? (s.format || fmt.num)(last[1]) : '–'];
  });
  $(`legend-${id}`).replaceChildren(...current.map(([name, value], i) =>
    el('li', { class: `c${i}` }, `${name} `, el('b', { text: value }))));
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', `${caption}, last ${ago.slice(1)}. Now: ${current.map(([n, v]) => `${n} ${v}`).join(', ')}.` +
    (marked.length ? ` Alerts: ${marked.join('; ')}.` : ''));
}

function drawCharts() {
  const withRates = samples.filter((s) => s.rates);
  // Unknown values (an outage, the first poll) leave gaps in the lines.
  const points = (f) => samples.map((s) => [s.t, s.gap ? null : f(s)]);
  const ratePoints = (f) => samples.map((s) => [s.t, s.rates ? f(s.rates) : null]);
  const outcomes = new Set(['ok', 'error']);
  for (const s of withRates) {
    for (const [o, v] of Object.entries(s.rates.byOutcome)) if (v > 0) outcomes.add(o);
  }
  drawChart('rps', [...outcomes].map((o) => ({ name: o.replaceAll('_', ' '),
                                                points: ratePoints((r) => r.byOutcome[o] ?? 0) })),
            'Requests per second by outcome');
  if (samples.at(-1)?.stats.desk) drawChart('desk', deskSeries(samples), 'Desk answers per second by source');
  const classes = Object.keys(samples.at(-1)?.stats.classes || {});
  const busiest = classes.reduce((best, c) =>
    ((samples.at(-1).stats.classes[c].time_to_first_token?.count || 0) >
     (samples.at(-1).stats.classes[best]?.time_to_first_token?.count || 0) ? c : best), classes[0]);
  const ttft = (c, p) => points((s) => {
    const v = s.stats.classes?.[c]?.time_to_first_token;
    return v && v.count > 0 ? v[p] : null;
  });
  const ttftSeries = [];
  for (const c of classes) {
    const anyData = samples.some((s) => (s.stats.classes?.[c]?.time_to_first_token?.count || 0) > 0);
    if (!anyData && c !== busiest) continue;
    ttftSeries.push({ name: `${c} p50`, points: ttft(c, 'p50_ms'), format: fmt.ms },
                    { name: `${c} p99`, points: ttft(c, 'p99_ms'), format: fmt.ms });
  }
  drawChart('ttft', ttftSeries.slice(0, 6), 'Time to first token');
  drawChart('queue', classes.map((c) => ({ name: c, points: points((s) => s.stats.classes?.[c]?.waiting ?? null),
                                           format: fmt.int })), 'Queue depth by class');
  drawChart('engine', [
    { name: 'running', points: points((s) => s.stats.engine?.running ?? null), format: fmt.int },
    { name: 'KV used %', points: points((s) => {
      const e = s.stats.engine;
      return e && e.kv_cells_total > 0 ? (100 * e.kv_cells_used) / e.kv_cells_total : null;
    }), format: (v) => fmt.num(v, 0) },
  ], 'Running sequences and KV cells used');
  drawChart('tps', [{ name: 'tokens/s', points: ratePoints((r) => r.tokens) }], 'Generated tokens per second');
  drawChart('process', [
    { name: 'CPU %', points: ratePoints((r) => r.cpu), format: (v) => fmt.num(v, 0) },
    { name: 'RSS MiB', points: points((s) => {
      const b = s.stats.process?.resident_bytes;
      return Number.isFinite(b) ? b / 1048576 : null;
    }), format: (v) => fmt.num(v, 0) },
  ], 'Process CPU and resident memory');
}

// ------------------------------------------------------------------ tiles and tables
function setText(id, text) {
  $(id).textContent = text;
}

function drawTiles(stats, rates) {
  const e = stats.engine || {};
  const p = stats.process || {};
  setText('now-rps', rates ? fmt.num(rates.requests) : '–');
  const errors = rates ? (rates.requests - (rates.byOutcome.ok || 0)) : null;
  setText('now-rps-sub', rates ? `${fmt.num(errors)} /s not ok` : 'measuring…');
  setText('now-running', fmt.int(e.running));
  const waiting = Object.entries(stats.classes || {}).map(([c, v]) => `${c} ${fmt.int(v.waiting)}`).join(' · ');
  setText('now-waiting', `waiting ${fmt.int(e.waiting)}${waiting ? ` (${waiting})` : ''}`);
  setText('now-tps', rates ? fmt.num(rates.tokens) : '–');
  setText('now-steps', rates ? `${fmt.num(rates.steps)} steps/s · last ${fmt.ms(e.last_step_ms)}` : 'measuring…');
  const kvPct = e.kv_cells_total > 0 ? (100 * e.kv_cells_used) / e.kv_cells_total : NaN;
  setText('now-kv', fmt.pct(kvPct));
  setText('now-kv-sub', `${fmt.int(e.kv_cells_used)} / ${fmt.int(e.kv_cells_total)} cells · prefix ${fmt.int(e.prefix_cache_cells)}`);
  const meter = $('kv-meter');
  meter.style.width = `${Number.isFinite(kvPct) ? Math.min(100, kvPct) : 0}%`;
  meter.classList.toggle('high', kvPct > 90);
  const hitRate = e.prefix_lookups > 0 ? (100 * e.prefix_hits) / e.prefix_lookups : NaN;
  setText('now-prefix', Number.isFinite(hitRate) ? `${fmt.pct(hitRate)} hits` : '–');
  setText('now-prefix-sub', `${fmt.int(e.prefix_hits)} of ${fmt.int(e.prefix_lookups)} · ${fmt.int(e.prompt_tokens_reused)} tokens reused`);
  setText('now-rss', fmt.mib(p.resident_bytes));
  setText('now-cpu', `CPU ${rates ? fmt.pct(rates.cpu) : '–'} · ${fmt.int(p.threads)} threads · ${fmt.int(p.open_fds)} fds`);
  setText('model', stats.model ? `model: ${stats.model}` : '');
  setText('window-note', stats.window_s ? `(percentiles over the last ${stats.window_s} s)` : '');
}

function drawLatency(stats) {
  const rows = [];
  for (const [cls, c] of Object.entries(stats.classes || {})) {
    LATENCIES.forEach(([key, label], i) => {
      const v = c[key] || {};
      const empty = !(v.count > 0);
      const cells = ['p50_ms', 'p90_ms', 'p95_ms', 'p99_ms', 'max_ms'].map((k) => el('td', { text: empty ? '–' : fmt.ms(v[k]) }));
      rows.push(el('tr', { class: i === 0 ? 'first' : 'more-of-class' },
        el('th', { scope: 'row', text: cls }),
        el('td', { text: label }), el('td', { text: fmt.int(v.count ?? 0) }), ...cells));
    });
  }
  $('latency').tBodies[0].replaceChildren(...rows);
}

function drawOutcomes(stats) {
  const classes = Object.entries(stats.classes || {});
  const outcomes = new Set(OUTCOMES);
  for (const [, c] of classes) for (const o of Object.keys(c.outcomes || {})) outcomes.add(o);
  const table = $('outcomes');
  table.tHead.replaceChildren(el('tr', {}, el('th', { scope: 'col', text: 'Class' }),
    ...[...outcomes].map((o) => el('th', { scope: 'col', text: o.replaceAll('_', ' ') })),
    el('th', { scope: 'col', text: 'waiting now' })));
  table.tBodies[0].replaceChildren(...classes.map(([cls, c]) => el('tr', {},
    el('th', { scope: 'row', text: cls }),
    ...[...outcomes].map((o) => el('td', { text: fmt.int(c.outcomes?.[o] ?? 0) })),
    el('td', { text: fmt.int(c.waiting) }))));
}

// Every other number the server reports (engine, process, and sections added later such as
// the desk's), so nothing /v1/stats knows is hidden from the dashboard.
function drawMore(stats) {
  const groups = [];
  for (const [name, value] of Object.entries(stats)) {
    if (name === 'classes' || value === null || typeof value !== 'object') continue;
    const entries = [];
    const walk = (prefix, v) => {
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
        for (const [k, w] of Object.entries(v)) walk(prefix ? `${prefix}.${k}` : k, w);
      } else if (typeof v === 'number') {
        entries.push([prefix, Number.isInteger(v) ? fmt.int(v) : fmt.num(v, 3)]);
      } else if (typeof v === 'string' || typeof v === 'boolean') {
        entries.push([prefix, String(v)]);
      }
    };
    walk('', value);
    if (entries.length === 0) continue;
    const dl = el('dl');
    for (const [k, v] of entries) dl.append(el('dt', { text: k.replaceAll('_', ' ') }), el('dd', { text: v }));
    groups.push(el('div', { 'data-group': name }, el('h3', { text: name }), dl));
  }
  $('more').replaceChildren(...groups);
}

// ------------------------------------------------------------------ polling
function setConnection(text, kind) {
  const c = $('connection');
  c.textContent = text;
  c.className = `connection ${kind}`;
}
function showAlert(text) {
  const a = $('alert');
  a.textContent = text;
  a.hidden = false;
}

async function poll() {
  try {
    const stats = await api('GET', '/v1/stats', { timeout: 3000 });
    const sample = { t: Date.now(), stats, rates: null };
    const previous = samples.at(-1);
    if (previous && !previous.gap && sample.t - previous.t < 10000) sample.rates = ratesBetween(previous, sample);
    samples.push(sample);
    while (samples.length && samples[0].t < sample.t - HISTORY_MS - 5000) samples.shift();
    failures = 0;
    lastOk = sample.t;
    $('alert').hidden = true;
    $('key-form').hidden = !apiKey() && !tracesWantKey();
    document.body.classList.remove('stale');
    setConnection(`Live · updated ${new Date(sample.t).toLocaleTimeString()}`, 'live');
    drawTiles(stats, sample.rates);
    drawDesk(stats.desk);
    drawVersions(stats);
    drawCharts();
    drawLatency(stats);
    drawOutcomes(stats);
    drawMore(stats);
  } catch (e) {
    failures += 1;
    document.body.classList.add('stale');
    if (e instanceof ApiError && e.status === 401) {
      $('key-form').hidden = false;
      showAlert(apiKey() ? 'The API key was refused. Enter a valid key.' : 'This server needs an API key to show its statistics: enter it above.');
      setConnection('Needs an API key', 'down');
    } else {
      const since = lastOk ? ` (last data ${new Date(lastOk).toLocaleTimeString()})` : '';
      showAlert(`Cannot load /v1/stats: ${e.message}${since}. Retrying…`);
      setConnection('Server unreachable, retrying', 'down');
    }
    // A gap in the charts rather than a line drawn through the outage.
    samples.push({ t: Date.now(), stats: samples.at(-1)?.stats ?? {}, rates: null, gap: true });
  } finally {
    setTimeout(poll, failures > 0 ? Math.min(5000, INTERVAL_MS * 2 ** Math.min(failures - 1, 3)) : INTERVAL_MS);
  }
}

$('key-form').addEventListener('submit', (e) => {
  e.preventDefault();
  setApiKey($('api-key').value.trim());
});
$('api-key').value = apiKey();
window.addEventListener('resize', () => { if (samples.length) drawCharts(); });
poll();
startTraces();
startAlerts();
