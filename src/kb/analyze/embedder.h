// Sentence vectors for the knowledge base, from one of two models behind this interface: the
// English sentence encoder of src/encoder (the default), or an embedding model in GGUF run by
// llama.cpp (--embedding-model). The rest of kb/ builds and runs the same whether or not this
// build has the encoder. Thread-safe: embed() may run on many threads.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace supportd::kb {

class Embedder {
 public:
  virtual ~Embedder() = default;

  virtual int dimensions() const = 0;
  // Identifies the model (kind, file and size); vectors made by another model are not mixed in.
  virtual const std::string& fingerprint() const = 0;
  // False: the model only understands English; other languages keep to the lexical path.
  virtual bool multilingual() const = 0;
  // One L2-normalized vector of dimensions() floats.
  virtual Result<std::vector<float>> embed(std::string_view text) const = 0;
  // texts.size() vectors, concatenated; `progress` gets the number done so far.
  virtual Result<std::vector<float>> embed_batch(
      std::span<const std::string> texts,
      const std::function<void(std::size_t)>& progress = {}) const = 0;
  // Texts cut to the model's token limit so far (their vectors cover only the beginning).
  virtual std::uint64_t truncated() const = 0;
};

// The sentence encoder's model file at `path` (empty: the encoder's default path).
// kUnavailable when this build has no encoder or the file is missing; the message says which.
Result<std::unique_ptr<Embedder>> open_sentence_encoder(const std::string& path);

// An embedding model in GGUF, run by llama.cpp on `threads` threads (the model's pooling, else
// the mean of its last hidden states). kUnavailable, naming the file, when it cannot be loaded.
Result<std::unique_ptr<Embedder>> open_gguf_embedder(const std::string& path, int threads = 2);

// True when this build includes the sentence encoder (src/encoder).
bool sentence_encoder_built();

}  // namespace supportd::kb
