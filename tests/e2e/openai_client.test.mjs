// supportd driven by the official `openai` npm client: models, chat and completions, streamed
// and whole, concurrent streams, an aborted stream, and errors surfaced as APIError.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startSupportd, synthesizeModel } from './supportd.mjs';

let server;
let client;
let modelId;

before(async () => {
  const model = await synthesizeModel('tiny');
  server = await startSupportd(['--model', model, '--parallel', '4', '--ctx-size', '4096']);
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  modelId = (await client.models.list()).data[0].id;
});

after(async () => {
  await server?.stop();
});

test('lists the served model and says its text is meaningless', async () => {
  const models = await client.models.list();
  assert.equal(models.data.length, 1);
  assert.equal(models.data[0].meaningless_text, true);
});

test('chat completion, whole and streamed, agree', async () => {
  const params = { model: modelId, messages: [{ role: 'user', content: 'Where is my parcel?' }],
                   max_tokens: 10, temperature: 0, ignore_eos: true };
  const whole = await client.chat.completions.create(params);
  assert.equal(whole.choices[0].finish_reason, 'length');
  assert.equal(whole.usage.completion_tokens, 10);

  const stream = await client.chat.completions.create({ ...params, stream: true,
                                                        stream_options: { include_usage: true } });
  let text = '';
  let usage = null;
  let finish = null;
  for await (const chunk of stream) {
    if (chunk.usage) usage = chunk.usage;
    if (chunk.choices.length > 0) {
      text += chunk.choices[0].delta?.content ?? '';
      finish = chunk.choices[0].finish_reason ?? finish;
    }
  }
  assert.equal(text, whole.choices[0].message.content);
  assert.equal(finish, 'length');
  assert.equal(usage.completion_tokens, 10);
});

test('text completion', async () => {
  const r = await client.completions.create({ model: modelId, prompt: 'Dear customer,', max_tokens: 5,
                                              temperature: 0, ignore_eos: true });
  assert.equal(r.usage.completion_tokens, 5);
  assert.equal(typeof r.choices[0].text, 'string');
});

test('eight concurrent streams all finish', async () => {
  const runs = Array.from({ length: 8 }, async (_, i) => {
    const stream = await client.chat.completions.create({
      model: modelId, messages: [{ role: 'user', content: `question ${i}` }], max_tokens: 8,
      temperature: 0, ignore_eos: true, stream: true });
    let chunks = 0;
    for await (const chunk of stream) chunks += chunk.choices.length;
    return chunks;
  });
  const counts = await Promise.all(runs);
  for (const n of counts) assert.ok(n >= 8);
});

test('an aborted stream frees the engine', async () => {
  const controller = new AbortController();
  const stream = await client.chat.completions.create(
    { model: modelId, messages: [{ role: 'user', content: 'talk forever' }], max_tokens: 100000,
      ignore_eos: true, stream: true }, { signal: controller.signal });
  let seen = 0;
  try {
    for await (const _ of stream) {
      if (++seen === 3) controller.abort();
    }
  } catch (e) {
    assert.ok(e instanceof OpenAI.APIUserAbortError || e.name === 'AbortError', String(e));
  }
  assert.ok(seen >= 3 && seen < 1000, `saw ${seen} chunks`);  // chunks already received may still arrive
  // The engine lets go of the request within a step: nothing stays running.
  let running = -1;
  for (let i = 0; i < 200 && running !== 0; i++) {
    running = (await (await fetch(`${server.url}/v1/stats`)).json()).engine.running;
    if (running !== 0) await new Promise(r => setTimeout(r, 20));
  }
  assert.equal(running, 0);
});

test('errors arrive as APIError with OpenAI-shaped bodies', async () => {
  await assert.rejects(
    client.chat.completions.create({ model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] }),
    (e) => e instanceof OpenAI.APIError && e.status === 404 && e.code === 'model_not_found');
  await assert.rejects(
    client.chat.completions.create({ model: modelId, messages: [] }),
    (e) => e instanceof OpenAI.APIError && e.status === 400 && e.param === 'messages');
  await assert.rejects(
    client.chat.completions.create({ model: modelId, messages: [{ role: 'user', content: 'x' }], temperature: 7 }),
    (e) => e instanceof OpenAI.APIError && e.status === 400 && e.param === 'temperature');
});
