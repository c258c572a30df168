#!/usr/bin/env node
// Reference token ids and vectors for supportd's sentence encoder, computed by the original:
// the tokenizer of @energetic-ai/embeddings@0.2.0 and embed() from the same package, running the
// package's TensorFlow.js graph on the upstream TensorFlow.js CPU backend (pure JavaScript).
// Run by scripts/fetch-encoder.sh at set-up time (cached; the model takes about half a second
// per sentence here); tests/encoder/reference_test.cpp holds supportd to its output.
//   usage: node generate_reference.mjs PACKAGE_DIST_DIR BANKING77_CSV OUTPUT_JSON
// Token ids: every sentence of sentences.json and every text of BANKING77's train.csv.
// Vectors: every sentence of sentences.json and every 67th BANKING77 text, embedded 8 at a time.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));

// @energetic-ai/embeddings requires its peer @energetic-ai/core, a bundled fork of TensorFlow.js
// with a WebAssembly backend. Point that require at upstream tfjs-core (plus tfjs-converter's
// loadGraphModel), so the package's own embed() runs unchanged on the upstream CPU backend.
const Module = require("node:module");
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === "@energetic-ai/core") request = path.join(here, "energetic_core_shim.cjs");
  return resolve.call(this, request, ...rest);
};
const { EmbeddingsModel } = require("@energetic-ai/embeddings");

async function loadModel(dist) {
  const tf = require("@tensorflow/tfjs-core");
  require("@tensorflow/tfjs-backend-cpu");
  const { loadGraphModel } = require("@tensorflow/tfjs-converter");
  await tf.setBackend("cpu");
  const graph = JSON.parse(fs.readFileSync(path.join(dist, "model.json"), "utf8"));
  const specs = graph.weightsManifest.flatMap((g) => g.weights);
  const shards = Buffer.concat(graph.weightsManifest.flatMap((g) => g.paths).map((p) => fs.readFileSync(path.join(dist, p))));
  const weightData = shards.buffer.slice(shards.byteOffset, shards.byteOffset + shards.byteLength);
  return loadGraphModel({ load: async () => ({ modelTopology: graph.modelTopology, weightSpecs: specs, weightData, format: "graph-model" }) });
}

const vocabulary = (dist) => JSON.parse(fs.readFileSync(path.join(dist, "vocab.json"), "utf8"));

// RFC 4180 CSV (quoted fields, doubled quotes): the first column of every row after the header.
function firstColumn(csv) {
  const texts = [];
  let field = "", column = 0, quoted = false;
  for (let i = 0; i < csv.length; i++) {
    const c = csv[i];
    if (quoted) {
      if (c === '"' && csv[i + 1] === '"') { field += '"'; i++; }
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") { if (column === 0) texts.push(field); field = ""; column++; }
    else if (c === "\n") { field = ""; column = 0; }
    else if (c !== "\r") field += c;
  }
  return texts.slice(1); // header
}

if (isMainThread) {
  const [dist, csvPath, output] = process.argv.slice(2);
  if (!dist || !csvPath || !output) {
    console.error("usage: generate_reference.mjs PACKAGE_DIST_DIR BANKING77_CSV OUTPUT_JSON");
    process.exit(2);
  }
  const sentences = JSON.parse(fs.readFileSync(path.join(here, "sentences.json"), "utf8"));
  const banking = firstColumn(fs.readFileSync(csvPath, "utf8"));
  const tokenizer = new EmbeddingsModel({ vocabulary: vocabulary(dist), model: null }).tokenizer;
  const tokens = [...sentences, ...banking].map((text) => ({ text, ids: tokenizer.encode(text) }));

  const texts = [...sentences, ...banking.filter((_, i) => i % 67 === 0)];
  const workers = Math.max(1, Math.min(os.availableParallelism?.() ?? os.cpus().length, 4));
  const parts = Array.from({ length: workers }, (_, w) => texts.filter((_, i) => i % workers === w));
  const started = Date.now();
  const results = await Promise.all(parts.map((part) => new Promise((done, failed) => {
    const worker = new Worker(fileURLToPath(import.meta.url), { workerData: { dist, texts: part } });
    worker.once("message", done);
    worker.once("error", failed);
  })));
  const byText = new Map(results.flat().map((r) => [r.text, r.vector]));
  const vectors = texts.map((text) => ({ text, ids: tokenizer.encode(text), vector: byText.get(text) }));
  const source = JSON.parse(fs.readFileSync(path.join(dist, "..", "package.json"), "utf8"));
  const reference = {
    source: `${source.name}@${source.version}`,
    generator: `@energetic-ai/embeddings tokenizer and embed(), @tensorflow/tfjs-backend-cpu, node ${process.versions.node}, Unicode ${process.versions.unicode}`,
    tokens,
    vectors,
  };
  const partial = `${output}.partial.${process.pid}`;
  fs.writeFileSync(partial, JSON.stringify(reference));
  fs.renameSync(partial, output);
  console.error(`[setup] wrote ${output}: ${tokens.length} tokenized texts, ${vectors.length} vectors ` +
                `(${((Date.now() - started) / 1000).toFixed(0)} s on ${workers} threads)`);
} else {
  const warn = console.warn; // TensorFlow.js advertises its native add-on once; this runs without it
  console.warn = (...args) => { if (!String(args[0]).includes("tfjs-node")) warn(...args); };
  const { dist, texts } = workerData;
  const model = new EmbeddingsModel({ vocabulary: vocabulary(dist), model: await loadModel(dist) });
  const out = [];
  for (let i = 0; i < texts.length; i += 8) {
    const batch = texts.slice(i, i + 8);
    const vectors = await model.embed(batch);
    // The graph sizes its batch from the last text that has tokens, so embed() drops empty texts
    // at the end of a batch; those are embedded alone (an empty text alone has a vector).
    for (let k = vectors.length; k < batch.length; k++) vectors.push((await model.embed([batch[k]]))[0]);
    batch.forEach((text, k) => out.push({ text, vector: vectors[k] }));
  }
  parentPort.postMessage(out);
}
