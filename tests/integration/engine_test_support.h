// What the engine's integration tests share (engine_test.cpp, engine_prefix_test.cpp): an
// engine on a synthesized model with the test's options, greedy requests run alone or together,
// a few customer-like prompts, and the fixture of the tests run with both KV layouts (its
// instantiation, Unified and PerSequence, is in engine_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "collect_sink.h"
#include "engine/llama/llama_engine.h"
#include "test_model.h"

namespace supportd::engine::llama {

using testing::CollectSink;

inline std::unique_ptr<LlamaEngine> make_engine(
    int parallel, int cache_entries = 8, const std::string& model = testing::synthesized_model(),
    EngineOptions::KvLayout layout = EngineOptions{}.kv_layout,
    const std::function<void(EngineOptions&)>& configure = {}) {
  EngineOptions options;
  options.kv_layout = layout;
  options.model_path = model;
  options.threads = 0;  // auto: robust when tests run in parallel
  options.context_cells = 16384;
  options.parallel = parallel;
  options.step_tokens = 64;
  options.prefix_cache_entries = cache_entries;
  options.warmup = false;
  if (configure) configure(options);
  auto engine = LlamaEngine::create(options);
  EXPECT_TRUE(engine.ok()) << (engine.ok() ? "" : engine.error().message);
  return std::move(engine).value();
}

inline GenerationRequest greedy(std::string prompt, int max_tokens) {
  GenerationRequest r;
  r.prompt = std::move(prompt);
  r.max_tokens = max_tokens;
  r.sampling.temperature = 0;
  r.ignore_eos = true;
  return r;
}

inline std::string run(Engine& engine, GenerationRequest request,
                       Completion* completion = nullptr) {
  auto sink = std::make_shared<CollectSink>();
  auto id = engine.submit(std::move(request), sink);
  EXPECT_TRUE(id.ok()) << (id.ok() ? "" : id.error().message);
  EXPECT_TRUE(sink->wait());
  if (completion) *completion = sink->completion();
  return sink->text();
}

// Each prompt's greedy answer, run one at a time, none reusing another's cached prefix.
inline std::vector<std::string> answers_alone(LlamaEngine& engine,
                                              const std::vector<std::string>& prompts,
                                              int max_tokens) {
  std::vector<std::string> answers;
  for (const auto& p : prompts) {
    answers.push_back(run(engine, greedy(p, max_tokens)));
    engine.clear_prefix_cache();
  }
  return answers;
}

// Submits every prompt at once (greedy); their sinks, in order.
inline std::vector<std::shared_ptr<CollectSink>> submit_together(
    Engine& engine, const std::vector<std::string>& prompts, int max_tokens) {
  std::vector<std::shared_ptr<CollectSink>> sinks;
  for (const auto& p : prompts) {
    sinks.push_back(std::make_shared<CollectSink>());
    auto id = engine.submit(greedy(p, max_tokens), sinks.back());
    EXPECT_TRUE(id.ok()) << (id.ok() ? "" : id.error().message);
  }
  return sinks;
}

inline const std::vector<std::string> kPrompts = {
    "Where is my parcel? I ordered it ten days ago.",
    "How do I reset my password",
    "Can I return a pair of shoes that I have already worn once outside?",
    "Hi",
    "What are your opening hours on public holidays, and do you deliver to Norway?",
};

// The tests that lean on the KV cache run with both layouts (llama_engine.h: KvLayout).
class EngineLayouts : public ::testing::TestWithParam<EngineOptions::KvLayout> {};

// Keys and values in q8_0, which only flash attention reads.
inline void use_a_q8_0_cache(EngineOptions& options) {
  options.flash_attention = EngineOptions::FlashAttention::kOn;
  options.key_type = options.value_type = EngineOptions::CacheType::kQ8_0;
}

}  // namespace supportd::engine::llama
