// The customer-service desk on the operations dashboard: tiles (share answered from the
// knowledge base, handoffs, conversations waiting for a person now, CSAT) and the series of its
// answers-per-second chart, from the `desk` object of /v1/stats. Without that object (a server
// running without the desk) the section says "Desk off" and shows no numbers.
import { fmt } from './format.js';

const $ = (id) => document.getElementById(id);

// Chart series: answer sources grouped so that six colours are enough.
const GROUPS = [
  ['knowledge base', ['faq', 'kb']],
  ['model', ['model']],
  ['cache', ['cache']],
  ['to a person', ['handoff', 'agent']],
  ['no answer', ['fallback']],
  ['refused', ['refused']],
];
const ALWAYS_DRAWN = new Set(['knowledge base', 'model', 'to a person']);

const sum = (counts, sources) => sources.reduce((s, k) => s + (counts?.[k] ?? 0), 0);

// Answers per second by group between two /v1/stats desk objects `dt` seconds apart; null when
// either has no desk, a group's null when its counters went back (the server restarted).
export function deskRates(a, b, dt) {
  if (!a?.answers || !b?.answers || !(dt > 0)) return null;
  return Object.fromEntries(GROUPS.map(([name, sources]) => {
    const x = sum(a.answers, sources);
    const y = sum(b.answers, sources);
    return [name, y >= x ? (y - x) / dt : null];
  }));
}

// The chart's series over `samples` ({t, rates: {desk}}): the main groups always, the others
// once they have answered something in the window.
export function deskSeries(samples) {
  const seen = new Set(ALWAYS_DRAWN);
  for (const s of samples) {
    for (const [name, v] of Object.entries(s.rates?.desk || {})) if (v > 0) seen.add(name);
  }
  return GROUPS.filter(([name]) => seen.has(name)).map(([name]) => ({
    name, points: samples.map((s) => [s.t, s.rates?.desk ? s.rates.desk[name] : null]),
  }));
}

const REASONS = { asked: 'asked', topic: 'topic', low_confidence: 'low confidence' };

// Fills the desk's tiles from `desk` (the /v1/stats object, or undefined when the desk is
// off). Returns whether the desk is on.
export function drawDesk(desk) {
  const on = Boolean(desk && desk.answers);
  $('desk-off').hidden = on;
  $('desk-tiles').hidden = !on;
  $('desk-chart').hidden = !on;
  $('desk-note').textContent = on ? '(since start)' : '';
  if (!on) return false;

  const total = desk.answers_total ?? 0;
  const fromKb = sum(desk.answers, ['faq', 'kb']);
  $('desk-kb').textContent = total > 0 ? fmt.pct((100 * fromKb) / total) : '–';
  $('desk-kb-sub').textContent = total > 0
    ? `${fmt.int(fromKb)} of ${fmt.int(total)} answers · model ${fmt.int(desk.answers.model ?? 0)}`
    : 'no answers yet';

  $('desk-handoffs').textContent = fmt.int(desk.handoffs_total ?? 0);
  const reasons = Object.entries(desk.handoffs || {}).filter(([, n]) => n > 0)
    .map(([r, n]) => `${REASONS[r] ?? r.replaceAll('_', ' ')} ${fmt.int(n)}`);
  $('desk-handoffs-sub').textContent = reasons.length ? reasons.join(' · ') : 'none yet';

  $('desk-waiting').textContent = `${fmt.int(desk.waiting_for_human)}${desk.waiting_capped ? '+' : ''}`;
  $('desk-waiting-sub').textContent = desk.waiting_partial
    ? 'conversations now (a store is unreachable: at least)' : 'conversations now';

  const csat = desk.csat || {};
  $('desk-csat').textContent = csat.count > 0 ? `${fmt.num(csat.mean, 2)} / 5` : '–';
  $('desk-csat-sub').textContent = csat.count > 0
    ? `mean of ${fmt.int(csat.count)} score${csat.count === 1 ? '' : 's'}` : 'no scores yet';
  return true;
}
