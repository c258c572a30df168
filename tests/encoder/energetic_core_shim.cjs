// Stands in for @energetic-ai/core (a bundled fork of TensorFlow.js) when generate_reference.mjs
// loads @energetic-ai/embeddings: the same API from upstream TensorFlow.js.
module.exports = {
  ...require("@tensorflow/tfjs-core"),
  loadGraphModel: require("@tensorflow/tfjs-converter").loadGraphModel,
};
