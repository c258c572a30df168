// The in-process engine's bounds (engine/llama/engine_options.h): stated as preconditions and
// refused with an error naming the option, never clamped; checked before any model is loaded.
#include "engine/llama/engine_options.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "engine/llama/llama_engine.h"

namespace supportd::engine::llama {
namespace {

struct Case {
  std::string option;  // the name the error must carry
  std::function<void(EngineOptions&)> set;
};

const std::vector<Case>& out_of_range() {
  static const std::vector<Case> cases = {
      {"threads", [](EngineOptions& o) { o.threads = -1; }},
      {"context_cells", [](EngineOptions& o) { o.context_cells = 255; }},
      {"parallel", [](EngineOptions& o) { o.parallel = 0; }},
      {"parallel", [](EngineOptions& o) { o.parallel = kMaxParallel + 1; }},
      {"step_tokens", [](EngineOptions& o) { o.step_tokens = 15; }},
      {"default_max_tokens", [](EngineOptions& o) { o.default_max_tokens = 0; }},
      {"prefix_cache_entries", [](EngineOptions& o) { o.prefix_cache_entries = -1; }},
      {"prefix_cache_entries",
       [](EngineOptions& o) { o.prefix_cache_entries = kMaxPrefixCacheEntries + 1; }},
      {"prefix_cache_cells", [](EngineOptions& o) { o.prefix_cache_cells = -1; }},
      {"value_type",
       [](EngineOptions& o) {
         o.value_type = EngineOptions::CacheType::kQ8_0;
         o.flash_attention = EngineOptions::FlashAttention::kOff;
       }},
      {"scheduling.batch_max", [](EngineOptions& o) { o.scheduling.batch_max = 0; }},
      {"scheduling.aging",
       [](EngineOptions& o) { o.scheduling.aging = std::chrono::milliseconds(-1); }},
      {"scheduling.batch_window",
       [](EngineOptions& o) { o.scheduling.batch_window = std::chrono::milliseconds(-1); }},
      {"scheduling.early_release_count",
       [](EngineOptions& o) { o.scheduling.early_release_count = -1; }},
      {"scheduling.tenant_weights",
       [](EngineOptions& o) { o.scheduling.tenant_weights["acme"] = 0; }},
      {"admission.queue_limit[low]", [](EngineOptions& o) { o.admission.queue_limit[2] = -1; }},
  };
  return cases;
}

TEST(EngineOptions, TheDefaultsAndTheBoundsThemselvesAreAccepted) {
  EXPECT_TRUE(validate(EngineOptions{}).ok());
  EngineOptions edges;
  edges.threads = 0;
  edges.context_cells = 256;
  edges.parallel = kMaxParallel;
  edges.step_tokens = 16;
  edges.default_max_tokens = 1;
  edges.prefix_cache_entries = kMaxPrefixCacheEntries;
  edges.prefix_cache_cells = 0;
  edges.value_type = EngineOptions::CacheType::kQ8_0;  // with flash attention left on auto
  edges.scheduling.aging = std::chrono::milliseconds(0);
  edges.admission.queue_limit = {0, 0, 0};
  EXPECT_TRUE(validate(edges).ok()) << validate(edges).error().message;
  edges.parallel = 1;
  edges.prefix_cache_entries = 0;
  EXPECT_TRUE(validate(edges).ok()) << validate(edges).error().message;
}

TEST(EngineOptions, AnOptionOutOfRangeIsRefusedByName) {
  for (const Case& c : out_of_range()) {
    EngineOptions options;
    c.set(options);
    const Status status = validate(options);
    ASSERT_FALSE(status.ok()) << c.option;
    EXPECT_EQ(status.error().code, ErrorCode::kInvalidArgument) << c.option;
    EXPECT_NE(status.error().message.find(c.option), std::string::npos)
        << c.option << ": " << status.error().message;
  }
}

TEST(EngineOptions, CreateRefusesAnOptionOutOfRangeBeforeLoadingAnything) {
  // The model file does not exist: the error must be the option's, not the file's.
  EngineOptions options;
  options.model_path = "/nonexistent/model.gguf";
  options.parallel = 200;
  auto engine = LlamaEngine::create(options);
  ASSERT_FALSE(engine.ok());
  EXPECT_EQ(engine.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(engine.error().param, "parallel");
  EXPECT_NE(engine.error().message.find("between 1 and 128, not 200"), std::string::npos)
      << engine.error().message;
}

}  // namespace
}  // namespace supportd::engine::llama
