// Every metric the Grafana dashboard and the Prometheus rules read is in a real supportd's
// /metrics after traffic, with the labels they match on: the names come from the dashboard's
// and rules' own expressions (deploy_files.mjs), never from a list kept here. Also checks the
// metrics added for the dashboard against /v1/stats, which reads the same engine figures.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  dashboardExpressions, loadDashboard, loadRules, prometheusOwnSeries, recordedNames, ruleExpressions,
} from './deploy_files.mjs';
import { selectors } from './promql_names.mjs';
import { sendTraffic, startServer } from './traffic.mjs';

// Labels Prometheus attaches to every scraped series; no exporter has them.
const targetLabels = new Set(['job', 'instance']);

// The Prometheus text format as {name: {labels: Set of label names, values: [{labels, value}]}}.
function parseExposition(text) {
  const series = {};
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(m, `not an exposition line: ${line}`);
    const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/([A-Za-z_]\w*)="((?:[^"\\]|\\.)*)"/g)]
      .map(([, name, value]) => [name, value]));
    const entry = (series[m[1]] ??= { labels: new Set(), values: [] });
    Object.keys(labels).forEach(l => entry.labels.add(l));
    entry.values.push({ labels, value: Number(m[3]) });
  }
  return series;
}

// The value of the one sample of `name` whose labels include `labels`.
function value(series, name, labels = {}) {
  const matching = (series[name]?.values ?? [])
    .filter(v => Object.entries(labels).every(([k, want]) => v.labels[k] === want));
  assert.equal(matching.length, 1, `${name}${JSON.stringify(labels)}: ${matching.length} samples`);
  return matching[0].value;
}

let server;
let series;
let stats;

before(async () => {
  server = await startServer();
  await sendTraffic(server.url);
  const metrics = await fetch(`${server.url}/metrics`);
  assert.equal(metrics.status, 200);
  series = parseExposition(await metrics.text());
  stats = await (await fetch(`${server.url}/v1/stats`)).json();
});

after(async () => {
  await server?.stop();
});

function checkSelectors(expressions, skip) {
  let checked = 0;
  for (const { where, expr } of expressions) {
    for (const { metric, matchers } of selectors(expr)) {
      assert.ok(metric, `${where}: a selector without a metric name: ${expr}`);
      if (skip.has(metric)) continue;
      assert.ok(series[metric], `${where} reads ${metric}, which /metrics does not have`);
      for (const { label } of matchers) {
        if (targetLabels.has(label) || label === '__name__') continue;
        assert.ok(series[metric].labels.has(label), `${where} matches ${metric} on "${label}", a label it does not have`);
      }
      checked += 1;
    }
  }
  return checked;
}

test('every metric a dashboard panel or variable reads is in /metrics', () => {
  const checked = checkSelectors(dashboardExpressions(loadDashboard()), prometheusOwnSeries);
  assert.ok(checked > 20, `only ${checked} selectors checked`);
});

test('every metric a rule reads is in /metrics or made by another rule', () => {
  const rules = loadRules();
  const skip = new Set([...prometheusOwnSeries, ...recordedNames(rules)]);
  const checked = checkSelectors(ruleExpressions(rules), skip);
  assert.ok(checked > 5, `only ${checked} selectors checked`);
});

test('the SLO bound of the rules is a bucket boundary of the TTFT histogram', () => {
  const bounds = new Set(series.supportd_time_to_first_token_seconds_bucket.values.map(v => v.labels.le));
  for (const { where, expr } of ruleExpressions(loadRules())) {
    for (const { metric, matchers } of selectors(expr)) {
      if (metric !== 'supportd_time_to_first_token_seconds_bucket') continue;
      for (const { label, value: le } of matchers.filter(m => m.label === 'le'))
        assert.ok(bounds.has(le), `${where}: le="${le}" is not one of supportd's bounds ${[...bounds]}`);
    }
  }
});

test('the metrics added for the dashboard agree with /v1/stats', () => {
  assert.equal(value(series, 'supportd_ready'), 1);
  const engine = stats.engine;
  assert.equal(value(series, 'supportd_prefix_cache_lookups_total'), engine.prefix_lookups);
  assert.equal(value(series, 'supportd_prefix_cache_hits_total'), engine.prefix_hits);
  assert.equal(value(series, 'supportd_engine_step_tokens_total'), engine.step_tokens);
  assert.equal(value(series, 'supportd_engine_steps_total'), engine.steps);
  assert.ok(engine.step_tokens >= engine.steps && engine.steps > 0, JSON.stringify(engine));
  assert.ok(engine.prefix_lookups >= engine.prefix_hits, JSON.stringify(engine));
  // The answer cache's hit ratio on the dashboard: cache answers over cache lookups.
  const cacheAnswers = value(series, 'supportd_desk_answers_total', { source: 'cache' });
  const cacheLookups = value(series, 'supportd_desk_stage_seconds_count', { stage: 'cache' });
  assert.ok(cacheAnswers >= 1 && cacheAnswers <= cacheLookups, `${cacheAnswers} of ${cacheLookups}`);
});
