// Per-request token sampling over the logits of one batch position: llama.cpp's sampler chain
// (penalties, top-k, top-p, min-p, temperature, seeded draw), with a direct argmax for plain
// greedy decoding. Deterministic for a given seed. Not thread-safe; engine thread only.
#pragma once

#include <cstdint>
#include <span>

#include "engine/llama/model.h"
#include "engine/request.h"

struct llama_context;
struct llama_sampler;

namespace supportd::engine::llama {

class Sampler {
 public:
  Sampler(const Model& model, const SamplingParams& params, bool ignore_eos, std::uint32_t seed);
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  // Feeds prompt tokens to the penalty window.
  void accept_prompt(std::span<const Token> tokens);

  // Samples the next token from the logits at `batch_index` of the last decode, and records it.
  Token sample(llama_context* context, int batch_index);

 private:
  const Model& model_;
  llama_sampler* chain_ = nullptr;  // null on the greedy fast path
  bool ignore_eos_;
};

}  // namespace supportd::engine::llama
