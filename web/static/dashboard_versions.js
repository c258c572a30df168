// The model versions side by side on the operations dashboard (an A/B view), from the
// `versions` array of /v1/stats (a server with named versions: --model NAME=PATH): one column
// per version with its state, its share of the default deployment's traffic (and shadow
// copies), requests, time to first token and whole-request p99, errors and refusals, and the
// desk's figures for its arm (`desk.versions`: every turn of the conversations routed to it,
// each answer source's share of those turns, handoffs with their rate per turn, CSAT). Without
// versions the section stays hidden.
import { el } from './client.js';
import { fmt } from './format.js';

const $ = (id) => document.getElementById(id);

// The desk's answer sources (desk.versions[NAME].answers), in the order of a turn's pipeline;
// an arm's shares of them add up to its turns.
const SOURCES = [['faq', 'FAQ'], ['kb', 'knowledge base'], ['cache', 'cache'], ['model', 'model'],
  ['fallback', 'fallback'], ['refused', 'refused'], ['handoff', 'handed over'],
  ['agent', 'to an agent']];

// The rows: a label and how to read the cell from a version `v` (its /v1/stats object) and
// `desk` (desk.versions[its name], or undefined).
const ROWS = [
  ['State', (v) => v.state],
  ['Traffic (default)', (v) => {
    const weight = v.traffic_percent?.default;
    const shadow = v.shadow_percent?.default;
    const text = weight !== undefined ? `${fmt.int(weight)} %` : '0 %';
    return shadow !== undefined ? `${text} · shadow ${fmt.int(shadow)} %` : text;
  }],
  ['Requests', (v) => fmt.int(v.requests)],
  ['In flight', (v) => fmt.int(v.in_flight)],
  ['TTFT p50', (v) => (v.requests > 0 ? fmt.ms(v.ttft_p50_ms) : '–')],
  ['TTFT p99', (v) => (v.requests > 0 ? fmt.ms(v.ttft_p99_ms) : '–')],
  ['E2E p99', (v) => (v.requests > 0 ? fmt.ms(v.e2e_p99_ms) : '–')],
  ['Errors', (v) => share(v.errors, v.requests)],
  ['Refusals', (v) => share(v.refusals, v.requests)],
  ['Desk: turns', (v, desk) => fmt.int(desk?.answers_total ?? 0)],
  ...SOURCES.map(([source, label]) => [`Desk: ${label}`,
    (v, desk) => share(desk?.answers?.[source] ?? 0, desk?.answers_total)]),
  ['Desk: handoffs', (v, desk) => share(desk?.handoffs ?? 0, desk?.answers_total)],
  ['Desk: CSAT', (v, desk) => (desk?.csat?.count > 0
    ? `${fmt.num(desk.csat.mean, 2)} / 5 (${fmt.int(desk.csat.count)})` : '–')],
];

// `count` with its share of `total` ("3 (25.0 %)"); the count alone when there is no total.
function share(count, total) {
  if (!(total > 0)) return fmt.int(count ?? 0);
  return `${fmt.int(count)} (${fmt.pct((100 * count) / total)})`;
}

// Fills the section from `stats` (/v1/stats); hides it when the server has no versions.
export function drawVersions(stats) {
  const versions = Array.isArray(stats.versions) ? stats.versions : [];
  $('versions-panel').hidden = versions.length === 0;
  if (versions.length === 0) return;
  const deskVersions = stats.desk?.versions ?? {};
  const table = $('versions');
  table.tHead.replaceChildren(el('tr', {}, el('th', { scope: 'col', text: 'Version' }),
    ...versions.map((v) => el('th', { scope: 'col', 'data-version': v.name, text: v.name }))));
  table.tBodies[0].replaceChildren(...ROWS.map(([label, read]) => el('tr', {},
    el('th', { scope: 'row', text: label }),
    ...versions.map((v) => el('td', { 'data-version': v.name, text: read(v, deskVersions[v.name]) })))));
}
