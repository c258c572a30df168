// The PromQL scanner the deploy tests rely on: it must find every metric an expression reads
// and nothing else (functions, label names, keywords, strings, durations, Grafana variables).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { metricNames, selectors } from './promql_names.mjs';

const names = expr => [...metricNames(expr)].sort();

test('a bare selector and one with matchers', () => {
  assert.deepEqual(names('up'), ['up']);
  assert.deepEqual(selectors('supportd_ready{job="supportd", instance=~"a.*"} == 0'), [
    { metric: 'supportd_ready', matchers: [
      { label: 'job', op: '=', value: 'supportd' }, { label: 'instance', op: '=~', value: 'a.*' }] }]);
});

test('functions, aggregations and their label lists are not metrics', () => {
  const expr = 'histogram_quantile(0.99, sum by (le, priority) ' +
    '(rate(supportd_time_to_first_token_seconds_bucket{priority=~"high|normal"}[5m])))';
  assert.deepEqual(names(expr), ['supportd_time_to_first_token_seconds_bucket']);
  assert.deepEqual(names('sum(rate(a_total[1m])) without (instance, tenant) / ignoring(x) b'), ['a_total', 'b']);
  assert.deepEqual(names('a > on(job) group_left(priority) b'), ['a', 'b']);
  assert.deepEqual(names('sum  by  (le) (c)'), ['c']);
});

test('keywords, numbers, durations, offsets and subqueries are skipped', () => {
  assert.deepEqual(names('x > bool 1e-3 and y or z unless w'), ['w', 'x', 'y', 'z']);
  assert.deepEqual(names('min_over_time(rss[1h] offset 6h) > 1.25 * min_over_time(rss[1h:5m] offset 1h30m)'), ['rss']);
  assert.deepEqual(names('vector(0.99) + 0x1F - Inf + NaN'), []);
  assert.deepEqual(names('a @ start()'), ['a']);
});

test('strings are skipped, escaped quotes included', () => {
  assert.deepEqual(names('label_replace(a, "dst", "not_a_metric \\" still", "src", \'(.*)\')'), ['a']);
  assert.deepEqual(selectors('a{x="q\\"uote"}')[0].matchers, [{ label: 'x', op: '=', value: 'q\\"uote' }]);
});

test('recording-rule names with colons are names; comments are skipped', () => {
  assert.deepEqual(names('job:supportd_ttft_slo_misses:ratio_rate1h > 0.144 # not_this\n'),
                   ['job:supportd_ttft_slo_misses:ratio_rate1h']);
});

test('Grafana variables are blanked', () => {
  const expr = 'sum(rate(supportd_requests_total{job=~"$job", instance=~"${instance}"}[$__rate_interval])) ' +
    '/ sum(rate(x_total[[[interval]]]))';
  assert.deepEqual(names(expr), ['supportd_requests_total', 'x_total']);
});

test('a selector by __name__ alone', () => {
  assert.deepEqual(selectors('{__name__="supportd_ready", job="s"}')[0].metric, 'supportd_ready');
  assert.deepEqual(names('{job="s"}'), []);
});

test('text it cannot read is an error, not a silent empty answer', () => {
  assert.throws(() => selectors('sum(rate(a{job="x}[5m]))'), /unterminated string/);
  assert.throws(() => selectors('a{job="x"'), /unbalanced/);
  assert.throws(() => selectors('a{job}'), /label matchers/);
});
