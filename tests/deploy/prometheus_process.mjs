// Debian's real Prometheus for the deploy tests: deploy/prometheus/prometheus.yml pointed at a
// test's supportd (every interval one second, the rules of deploy/ loaded), started on a free
// loopback port and stopped by its pid.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import YAML from 'yaml';
import { prometheusConfigFile, readYaml, ruleFiles } from './deploy_files.mjs';

export const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));

// A port free on loopback now (Prometheus cannot be told to pick one and say which).
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

// deploy/prometheus/prometheus.yml with the supportd job pointed at `target`, every interval
// at one second, and the rule files at their absolute paths.
export function testConfig(target) {
  const config = readYaml(prometheusConfigFile);
  Object.assign(config.global, { scrape_interval: '1s', evaluation_interval: '1s' });
  const job = config.scrape_configs.find(c => c.job_name === 'supportd');
  assert.ok(job, 'prometheus.yml scrapes a job named supportd');
  job.scrape_timeout = '1s';
  job.static_configs = [{ targets: [target] }];
  config.rule_files = ruleFiles();
  return YAML.stringify(config);
}

// Starts Prometheus on a free loopback port; resolves once /-/ready answers. A port taken in
// the meantime makes it exit: then it tries another, three times at most.
export async function startPrometheus(dir, configFile) {
  for (let attempt = 1; attempt <= 3; ++attempt) {
    const port = await freePort();
    const child = spawn('prometheus', [
      `--config.file=${configFile}`, `--storage.tsdb.path=${path.join(dir, `data-${attempt}`)}`,
      `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'], { stdio: ['ignore', 'inherit', 'inherit'] });
    let exited = null;
    child.on('exit', code => { exited = code ?? 'signal'; });
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 60000;
    while (Date.now() < deadline && exited === null) {
      try {
        if ((await fetch(`${url}/-/ready`)).status === 200) return { url, child };
      } catch { /* not listening yet */ }
      await sleep(100);
    }
    if (exited === null) {
      child.kill('SIGKILL');
      throw new Error('Prometheus was not ready within 60 s');
    }
  }
  throw new Error('Prometheus exited at start three times (see its log above)');
}

export async function stopProcess(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise(resolve => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 30000);
  await exited;
  clearTimeout(timer);
}
