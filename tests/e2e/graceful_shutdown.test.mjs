// SIGTERM: supportd stops accepting, lets short requests finish, cancels what outlives the grace
// period with a clear error event, and exits 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSupportd, synthesizeModel } from './supportd.mjs';

async function readStream(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text;
    text += decoder.decode(value, { stream: true });
  }
}

test('SIGTERM drains, cancels the rest cleanly and exits 0', async () => {
  const model = await synthesizeModel('tiny');
  const server = await startSupportd(['--model', model, '--parallel', '4', '--ctx-size', '65536', '--shutdown-grace', '2']);
  const ask = (maxTokens) => fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'hello' }], max_tokens: maxTokens,
                           ignore_eos: true, stream: true }),
  });
  const short = await ask(40);
  const long = await ask(1000000);
  const shortBody = readStream(short);
  const longBody = readStream(long);
  await new Promise(r => setTimeout(r, 200));
  const exit = server.stop('SIGTERM');

  const shortText = await shortBody;
  assert.match(shortText, /"finish_reason":"length"/);
  assert.match(shortText, /data: \[DONE\]/);

  const longText = await longBody;
  assert.match(longText, /shutting down/);
  assert.match(longText, /data: \[DONE\]/);

  const result = await exit;
  assert.equal(result.code, 0);
  await assert.rejects(fetch(`${server.url}/health`));
});
