// A supportd for the deploy tests (tests/e2e/supportd.mjs starts it on a synthesized model) and
// the requests that make its metrics move: completions of every class, streamed and whole,
// and desk turns answered from the FAQ, the model, the answer cache, refused, handed off.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startSupportd, synthesizeModel } from '../e2e/supportd.mjs';
import { demoKnowledgeBase } from '../e2e/web_helpers.mjs';

// Starts supportd with the desk on the demo knowledge base (imported once per build, shared with
// the web tests), generating (and so caching) answers from the synthesized model, and a content
// rule that refuses one word. stop() stops it (by its pid) and removes its files.
export async function startServer() {
  const dir = mkdtempSync(path.join(tmpdir(), 'supportd-deploy-'));
  const rules = path.join(dir, 'test.rules');
  writeFileSync(rules, 'refuse violence word: bomb\n');
  let server;
  try {
    server = await startSupportd(['--model', await synthesizeModel('tiny'), '--parallel', '4',
                                  '--ctx-size', '4096', '--kb', demoKnowledgeBase(), '--rules', rules,
                                  '--show-synthesized-text', '--answer-max-tokens', '8']);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: server.url,
    async stop() {
      const result = await server.stop();
      rmSync(dir, { recursive: true, force: true });
      return result;
    },
  };
}

async function post(url, body, headers = {}) {
  const response = await fetch(url, {
    method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body),
  });
  const text = await response.text();  // a stream is read to its end
  return { status: response.status, text };
}

// One chat completion of `priority`, streamed or whole; asserts it succeeded.
export async function chat(url, { priority = 'normal', stream = false, tokens = 6 } = {}) {
  const r = await post(`${url}/v1/chat/completions`, {
    messages: [{ role: 'user', content: 'Where is my parcel?' }], max_tokens: tokens,
    temperature: 0, ignore_eos: true, stream, priority });
  assert.equal(r.status, 200, r.text);
  return r;
}

// A new conversation; returns its session id.
async function startSession(url) {
  const started = await post(`${url}/v1/sessions`, { user: 'deploy-test' });
  assert.equal(started.status, 201, started.text);
  return JSON.parse(started.text).session;
}

// One customer message in `session`; returns the answer.
async function say(url, session, text) {
  const r = await post(`${url}/v1/sessions/${session}/messages`, { text, stream: false });
  assert.equal(r.status, 200, r.text);
  return JSON.parse(r.text).answer;
}

// Completions of each class (streamed ones give inter-token latencies) and desk turns of each
// kind the dashboard shows: an FAQ question, a question the model answers and then the cache,
// a refused message, and a customer asking for a person.
export async function sendTraffic(url) {
  await chat(url, { priority: 'high' });
  await chat(url, { priority: 'normal', stream: true, tokens: 8 });
  const completion = await post(`${url}/v1/completions`, {
    prompt: 'Dear customer,', max_tokens: 4, temperature: 0, ignore_eos: true, priority: 'low' });
  assert.equal(completion.status, 200, completion.text);

  const session = await startSession(url);
  const sources = [(await say(url, session, 'How long does a refund take?')).source];
  // Questions of the shop's that no article answers or is offered for and that the out-of-scope
  // gate lets through: the model answers one, then the cache answers it again. Which of them
  // falls in that band depends on the import (with the sentence encoder or without), so the
  // first that reaches the model is asked twice. (Off-topic ones, a parrot singing opera or a
  // poem, the gate declines, and those never reach the model.)
  const uncovered = ['Can I print my gift card at home?',
                     'Can you put a note in the parcel for my friend?',
                     'Do gift cards come in a nice envelope?',
                     'Could you gift wrap my order with a card?'];
  for (const text of uncovered) {
    // A conversation each: two fallbacks in a row would call a person to the conversation.
    const own = await startSession(url);
    sources.push((await say(url, own, text)).source);
    if (sources.at(-1) !== 'model') continue;
    sources.push((await say(url, own, text)).source);
    break;
  }
  sources.push((await say(url, session, 'How do I build a bomb?')).source);
  assert.ok(sources.includes('cache'), `the repeated question came from the cache: ${sources}`);
  assert.equal(sources.at(-1), 'refused');
  const handoff = await post(`${url}/v1/sessions/${session}/handoff`, {});
  assert.equal(handoff.status, 200, handoff.text);
  return sources;
}
