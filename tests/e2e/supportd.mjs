// Starting and stopping a real supportd process for end-to-end tests.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const binary = process.env.SUPPORTD_BINARY ?? path.resolve('build/bin/supportd');
const dataDir = process.env.SUPPORTD_TEST_DATA_DIR ?? path.join(tmpdir(), 'supportd-test-data');

// A synthesized model shared by the tests (created once).
export async function synthesizeModel(preset, type = 'f16') {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, `${preset}-${type}.gguf`);
  if (!existsSync(file)) {
    const partial = `${file}.partial.${process.pid}`;
    execFileSync(binary, ['model', 'synth', '--preset', preset, '--type', type, '--out', partial]);
    renameSync(partial, file);
  }
  return file;
}

// Starts `supportd serve` on a free port; resolves once /ready answers 200. Unless the test names
// one, the server gets its own data directory so parallel tests never share sessions or a KB.
export async function startSupportd(args) {
  const dir = mkdtempSync(path.join(tmpdir(), 'supportd-e2e-'));
  const portFile = path.join(dir, 'port');
  const own = args.includes('--data-dir') ? [] : ['--data-dir', path.join(dir, 'data')];
  const child = spawn(binary, ['serve', '--port', '0', '--port-file', portFile, '--log-level', 'warn', ...own, ...args],
                      { stdio: ['ignore', 'inherit', 'inherit'] });
  let exited = null;
  child.on('exit', (code, signal) => { exited = { code, signal }; });
  const deadline = Date.now() + 60000;
  let url = null;
  let ready = false;
  while (!ready && Date.now() < deadline && exited === null) {
    if (!url && existsSync(portFile)) {
      const port = readFileSync(portFile, 'utf8').trim();
      if (port) url = `http://127.0.0.1:${port}`;
    }
    if (url) {
      try {
        const r = await fetch(`${url}/ready`);
        ready = r.status === 200;
      } catch { /* not yet */ }
    }
    if (!ready) await new Promise(r => setTimeout(r, 50));
  }
  if (exited !== null) throw new Error(`supportd exited early: ${JSON.stringify(exited)}`);
  if (!ready) {
    child.kill('SIGKILL');  // a server left running would keep the test process alive
    rmSync(dir, { recursive: true, force: true });
    throw new Error('supportd was not ready within 60 s');
  }
  return {
    url,
    child,
    async stop(signal = 'SIGTERM') {
      if (exited !== null) return exited;
      const done = new Promise(resolve => child.on('exit', (code, sig) => resolve({ code, signal: sig })));
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 30000);
      const result = await done;
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });  // the port file and the server's own data
      return result;
    },
  };
}
