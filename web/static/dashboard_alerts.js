// Anomaly alerts on the operations dashboard's charts: polls GET /v1/alerts (the alerts active
// and recently ended) and gives each chart the alerts of its signals, drawn by dashboard.js as
// a shaded band from when the alert was raised to when it cleared (or now) with a dashed line
// where it was raised, titled with the alert's name and times. Without the anomaly watch (404)
// it stops asking and the charts have no markers.
import { api, ApiError } from './client.js';

const INTERVAL_MS = 3000;
let alerts = [];  // {alert, since, ended (ms, null while active), value}
let off = false;

// Which chart shows an alert's signal.
export function chartOf(alert) {
  if (/^(ttft|e2e|itl)_/.test(alert)) return 'ttft';
  if (alert.startsWith('queue_depth')) return 'queue';
  if (alert === 'tokens_per_second') return 'tps';
  if (alert === 'refusals_per_second' || alert === 'errors_per_second') return 'rps';
  if (alert === 'rss_bytes' || alert === 'memory_leak') return 'process';
  if (alert === 'kv_cell_leak') return 'engine';
  return null;
}

// The alerts a chart shows, oldest first.
export function alertsFor(chart) {
  return alerts.filter((a) => chartOf(a.alert) === chart);
}

function toAlert(entry) {
  return {
    alert: entry.alert,
    since: Date.parse(entry.since),
    ended: entry.active ? null : Date.parse(entry.ended),
    value: entry.raised_by?.value,
  };
}

async function poll() {
  try {
    const document = await api('GET', '/v1/alerts', { timeout: 3000 });
    alerts = [...document.active, ...document.recent].map(toAlert)
      .filter((a) => Number.isFinite(a.since)).sort((a, b) => a.since - b.since);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) {
      off = true;
      alerts = [];
    }
  } finally {
    if (!off) setTimeout(poll, INTERVAL_MS);
  }
}

export function startAlerts() {
  poll();
}
