// deploy/ on its own, without a server: the Grafana dashboard imports cleanly (its data source
// is a variable, its panels fit the grid, its queries read metrics and use only variables it
// defines), every alert explains itself and links a runbook section that exists, and every
// alert has promtool tests that make it fire and keep it silent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  dashboardExpressions, dashboardPanels, loadDashboard, loadRules, operationsDoc, ruleFiles,
  ruleTests,
} from './deploy_files.mjs';
import { metricNames } from './promql_names.mjs';

const dashboard = loadDashboard();
const rules = loadRules();
const alerts = rules.filter(r => r.rule.alert).map(r => r.rule);

test('the dashboard reads Prometheus through a data source variable', () => {
  const variable = dashboard.templating.list.find(v => v.type === 'datasource');
  assert.ok(variable, 'a variable of type datasource');
  assert.equal(variable.query, 'prometheus');
  const uses = `\${${variable.name}}`;
  for (const panel of dashboardPanels(dashboard).filter(p => p.type !== 'row')) {
    assert.deepEqual(panel.datasource, { type: 'prometheus', uid: uses }, panel.title);
    for (const target of panel.targets)
      assert.deepEqual(target.datasource, { type: 'prometheus', uid: uses }, `${panel.title} ${target.refId}`);
  }
  for (const v of dashboard.templating.list.filter(v => v.type === 'query'))
    assert.deepEqual(v.datasource, { type: 'prometheus', uid: uses }, v.name);
  assert.equal(dashboard.id, null, 'an exported dashboard has no id: Grafana gives it one on import');
  assert.ok(dashboard.uid && dashboard.title && dashboard.schemaVersion);
});

test('every panel has a unique id and a place on the 24-column grid, and none overlap', () => {
  const panels = dashboardPanels(dashboard);
  const ids = panels.map(p => p.id);
  assert.equal(new Set(ids).size, ids.length, `duplicate panel ids in ${ids}`);
  for (const { title, gridPos: g } of panels) {
    assert.ok(Number.isInteger(g.x) && Number.isInteger(g.y) && g.w > 0 && g.h > 0, title);
    assert.ok(g.x >= 0 && g.x + g.w <= 24, `${title} is off the grid: ${JSON.stringify(g)}`);
  }
  for (let i = 0; i < panels.length; ++i) {
    for (let j = i + 1; j < panels.length; ++j) {
      const [a, b] = [panels[i].gridPos, panels[j].gridPos];
      const apart = a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y;
      assert.ok(apart, `"${panels[i].title}" and "${panels[j].title}" overlap`);
    }
  }
});

test('every panel query reads a metric and uses only variables the dashboard defines', () => {
  const defined = new Set(dashboard.templating.list.map(v => v.name));
  const builtIn = new Set(['__rate_interval', '__interval', '__range', '__range_s']);
  const panels = dashboardPanels(dashboard).filter(p => p.type !== 'row');
  assert.ok(panels.length > 0);
  for (const panel of panels) {
    assert.ok(panel.targets?.length > 0, `${panel.title} has no query`);
    assert.ok(panel.description, `${panel.title} has no description`);
  }
  for (const { where, expr } of dashboardExpressions(dashboard)) {
    if (where.startsWith('panel')) assert.ok(metricNames(expr).size > 0, `${where} reads no metric: ${expr}`);
    for (const [, braced, bare] of expr.matchAll(/\$\{([A-Za-z_]\w*)[^}]*\}|\$([A-Za-z_]\w*)/g)) {
      const name = braced ?? bare;
      assert.ok(defined.has(name) || builtIn.has(name), `${where} uses the undefined $${name}`);
    }
  }
});

// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens.
function anchor(heading) {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
}

test('every alert explains itself and links its section of docs/operations.md', () => {
  const doc = readFileSync(operationsDoc, 'utf8');
  const anchors = new Set([...doc.matchAll(/^#{1,6} (.+)$/gm)].map(m => anchor(m[1])));
  assert.ok(alerts.length > 0);
  for (const alert of alerts) {
    assert.match(alert.labels?.severity ?? '', /^(page|warning)$/, `${alert.alert} severity`);
    assert.ok(alert.annotations?.summary, `${alert.alert} has no summary`);
    assert.ok(alert.annotations?.description, `${alert.alert} has no description`);
    const m = /^docs\/operations\.md#(.+)$/.exec(alert.annotations?.runbook_url ?? '');
    assert.ok(m, `${alert.alert}: runbook_url ${alert.annotations?.runbook_url} is not docs/operations.md#...`);
    assert.equal(m[1], anchor(alert.alert), `${alert.alert}: its anchor is its name`);
    assert.ok(anchors.has(m[1]), `docs/operations.md has no section #${m[1]}`);
  }
});

test('every alert has promtool tests that make it fire and keep it silent', () => {
  const cases = ruleTests().flatMap(({ doc }) => doc.tests.flatMap(t => t.alert_rule_test ?? []));
  for (const { alert } of alerts) {
    const mine = cases.filter(c => c.alertname === alert);
    assert.ok(mine.some(c => c.exp_alerts?.length > 0), `no promtool test makes ${alert} fire`);
    assert.ok(mine.some(c => (c.exp_alerts ?? []).length === 0), `no promtool test keeps ${alert} silent`);
  }
});

test('the promtool tests load exactly the rule files prometheus.yml loads', () => {
  const loaded = ruleFiles().sort();
  assert.ok(loaded.length > 0);
  for (const { file, doc } of ruleTests()) {
    const theirs = doc.rule_files.map(f => path.resolve(path.dirname(file), f)).sort();
    assert.deepEqual(theirs, loaded, file);
  }
});
