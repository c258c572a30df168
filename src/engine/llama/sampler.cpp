// The per-request sampler chain over llama.cpp's samplers, with a direct argmax for greedy
// decoding (see sampler.h).
#include "engine/llama/sampler.h"

#include <cmath>
#include <limits>
#include <vector>

#include "llama.h"

namespace supportd::engine::llama {

Sampler::Sampler(const Model& model, const SamplingParams& p, bool ignore_eos, std::uint32_t seed)
    : model_(model), ignore_eos_(ignore_eos) {
  const bool penalties =
      p.repeat_penalty != 1.0f || p.frequency_penalty != 0.0f || p.presence_penalty != 0.0f;
  const bool greedy = p.temperature <= 0.0f;
  if (greedy && !penalties) return;  // argmax in sample()

  chain_ = llama_sampler_chain_init(llama_sampler_chain_default_params());
  if (ignore_eos) {
    std::vector<llama_logit_bias> bias;
    for (Token t : model.end_of_generation_tokens()) {
      bias.push_back({t, -std::numeric_limits<float>::infinity()});
    }
    llama_sampler_chain_add(
        chain_, llama_sampler_init_logit_bias(model.vocab_size(), static_cast<int32_t>(bias.size()),
                                              bias.data()));
  }
  if (penalties) {
    llama_sampler_chain_add(
        chain_, llama_sampler_init_penalties(model.vocab_size(), p.penalty_last_n, p.repeat_penalty,
                                             p.frequency_penalty, p.presence_penalty));
  }
  if (greedy) {
    llama_sampler_chain_add(chain_, llama_sampler_init_greedy());
    return;
  }
  if (p.top_k > 0) llama_sampler_chain_add(chain_, llama_sampler_init_top_k(p.top_k));
  if (p.top_p < 1.0f) llama_sampler_chain_add(chain_, llama_sampler_init_top_p(p.top_p, 1));
  if (p.min_p > 0.0f) llama_sampler_chain_add(chain_, llama_sampler_init_min_p(p.min_p, 1));
  llama_sampler_chain_add(chain_, llama_sampler_init_temp(p.temperature));
  llama_sampler_chain_add(chain_, llama_sampler_init_dist(seed));
}

Sampler::~Sampler() {
  if (chain_ != nullptr) llama_sampler_free(chain_);
}

void Sampler::accept_prompt(std::span<const Token> tokens) {
  if (chain_ == nullptr) return;
  for (Token t : tokens)
    llama_sampler_accept(chain_, t);
}

Token Sampler::sample(llama_context* context, int batch_index) {
  if (chain_ != nullptr) return llama_sampler_sample(chain_, context, batch_index);
  const float* logits = llama_get_logits_ith(context, batch_index);
  const int n = model_.vocab_size();
  Token best = 0;
  float best_logit = -std::numeric_limits<float>::infinity();
  for (Token t = 0; t < n; ++t) {
    if (logits[t] > best_logit && !(ignore_eos_ && model_.is_end_of_generation(t))) {
      best_logit = logits[t];
      best = t;
    }
  }
  return best;
}

}  // namespace supportd::engine::llama
