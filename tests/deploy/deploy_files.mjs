// Reads deploy/: the Grafana dashboard, the Prometheus configuration and the rule files it
// loads, and lists every PromQL expression they hold with where it came from. The tests take
// everything from these files (no second list of metrics kept by hand).
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

export const sourceDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const prometheusDir = path.join(sourceDir, 'deploy/prometheus');
export const prometheusConfigFile = path.join(prometheusDir, 'prometheus.yml');
export const dashboardFile = path.join(sourceDir, 'deploy/grafana/supportd.json');
export const operationsDoc = path.join(sourceDir, 'docs/operations.md');

// Series Prometheus makes itself for every target; they are in no exporter's /metrics.
export const prometheusOwnSeries = new Set([
  'up', 'scrape_duration_seconds', 'scrape_samples_scraped', 'scrape_samples_post_metric_relabeling',
  'scrape_series_added', 'ALERTS', 'ALERTS_FOR_STATE']);

export function readYaml(file) {
  return YAML.parse(readFileSync(file, 'utf8'));
}

export function loadDashboard() {
  return JSON.parse(readFileSync(dashboardFile, 'utf8'));
}

// The dashboard's panels, those inside collapsed rows included.
export function dashboardPanels(dashboard) {
  return dashboard.panels.flatMap(p => [p, ...(p.panels ?? [])]);
}

// A query variable's query as PromQL: label_values(SELECTOR, LABEL) reads SELECTOR,
// query_result(EXPR) reads EXPR, label_values(LABEL) reads no metric. Anything else throws.
function variableQuery(variable) {
  const text = (typeof variable.query === 'string' ? variable.query : variable.query?.query) ?? '';
  let m = /^\s*label_values\(\s*(.*),\s*[A-Za-z_][A-Za-z0-9_]*\s*\)\s*$/s.exec(text);
  if (m) return m[1];
  if (/^\s*label_values\(\s*[A-Za-z_][A-Za-z0-9_]*\s*\)\s*$/.test(text)) return '';
  m = /^\s*query_result\((.*)\)\s*$/s.exec(text);
  if (m) return m[1];
  throw new Error(`variable ${variable.name}: unsupported query "${text}"`);
}

// [{where, expr}] for every panel target and query variable of the dashboard.
export function dashboardExpressions(dashboard) {
  const out = [];
  for (const panel of dashboardPanels(dashboard)) {
    for (const target of panel.targets ?? [])
      out.push({ where: `panel "${panel.title}" query ${target.refId}`, expr: target.expr });
  }
  for (const variable of dashboard.templating.list) {
    if (variable.type === 'query')
      out.push({ where: `variable $${variable.name}`, expr: variableQuery(variable) });
  }
  return out;
}

// The rule files prometheus.yml loads, as absolute paths.
export function ruleFiles() {
  const config = readYaml(prometheusConfigFile);
  return (config.rule_files ?? []).map(f => path.resolve(prometheusDir, f));
}

// Every rule of every rule file: [{file, group, rule}].
export function loadRules() {
  return ruleFiles().flatMap(file =>
    readYaml(file).groups.flatMap(group => group.rules.map(rule => ({ file, group: group.name, rule }))));
}

// [{where, expr}] for every recording and alerting rule.
export function ruleExpressions(rules) {
  return rules.map(({ rule }) => ({
    where: rule.alert ? `alert ${rule.alert}` : `record ${rule.record}`, expr: String(rule.expr) }));
}

// The names the recording rules create.
export function recordedNames(rules) {
  return new Set(rules.filter(r => r.rule.record).map(r => r.rule.record));
}

// The promtool unit test files (deploy/prometheus/tests/*.yml), parsed: [{file, doc}].
export function ruleTests() {
  const dir = path.join(prometheusDir, 'tests');
  return readdirSync(dir).filter(f => f.endsWith('.yml')).sort()
    .map(f => ({ file: path.join(dir, f), doc: readYaml(path.join(dir, f)) }));
}
