// The latency-spike drill with a real Prometheus: Debian's Prometheus scrapes a supportd (admin
// key, --faults, the anomaly watch reading every 100 ms) with deploy/prometheus's rules, and
// `supportd drill latency-spike --prometheus` runs against both at a short scale: its report
// has the "rule" step, passed, naming SupportdLatencyAnomaly for a latency alert supportd's
// detector raised after the injection, between the detection and the mitigation. Every process is stopped by its pid.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { binary, startSupportd, synthesizeModel } from '../e2e/supportd.mjs';
import { startPrometheus, stopProcess, testConfig } from './prometheus_process.mjs';

const key = 'drill-rule-admin-key-0123456789';
let dir;
let server;
let prometheus;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'supportd-drill-rule-'));
  writeFileSync(path.join(dir, 'admin.key'), `${key}\n`);
  server = await startSupportd(['--model', await synthesizeModel('tiny'), '--encoder', 'off',
                                '--parallel', '4', '--admin-key-file', path.join(dir, 'admin.key'),
                                '--faults', '--anomaly-interval-ms', '100', '--trace-slow-ms', '1']);
  const configFile = path.join(dir, 'prometheus.yml');
  writeFileSync(configFile, testConfig(new URL(server.url).host));
  prometheus = await startPrometheus(dir, configFile);
});

after(async () => {
  if (prometheus) await stopProcess(prometheus.child);
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the drill sees deploy/prometheus\'s SupportdLatencyAnomaly follow the detector', async () => {
  let stdout = '';
  let stderr = '';
  try {
    ({ stdout, stderr } = await promisify(execFile)(binary, [
      'drill', 'latency-spike', '--url', server.url, '--admin-key-file', path.join(dir, 'admin.key'),
      '--prometheus', prometheus.url, '--json', '--workers', '4', '--max-tokens', '8',
      '--learn-timeout', '60', '--settle-seconds', '2', '--baseline-seconds', '5',
      '--detect-timeout', '30', '--recover-timeout', '30', '--window-seconds', '3'], { timeout: 240000 }));
  } catch (error) {
    // Exit code 1 (a step failed) still prints the report: the assertions below say which.
    ({ stdout = '', stderr = '' } = error);
  }
  assert.ok(stdout, `no report; stderr:\n${stderr}`);
  const report = JSON.parse(stdout);
  const steps = report.steps.map(s => s.step);
  const rule = report.steps.find(s => s.step === 'rule');
  assert.ok(rule, `no rule step in ${steps}`);
  assert.ok(rule.passed, `rule step failed: ${rule.detail}\n${stdout}`);
  assert.ok(steps.indexOf('detect') < steps.indexOf('rule') &&
            steps.indexOf('rule') < steps.indexOf('mitigate'), `order: ${steps}`);
  // The same spike moves several latency signals (e2e and ttft, the two classes): any of them.
  assert.match(report.rule, /^SupportdLatencyAnomaly\{alert="(ttft|e2e|itl)_p\d\d\.(high|normal|low)"\} (pending|firing)$/);
  assert.ok(report.time_to_rule_s >= report.time_to_detect_s, JSON.stringify(report));
});
