// The engine options' bounds, checked once (see engine_options.h).
#include "engine/llama/engine_options.h"

#include <fmt/format.h>

namespace supportd::engine::llama {
namespace {

Status at_least(const char* name, int value, int least) {
  if (value >= least) return {};
  return Error::invalid(
      fmt::format("engine option {} must be at least {}, not {}", name, least, value), name);
}

Status between(const char* name, int value, int least, int most) {
  if (value >= least && value <= most) return {};
  return Error::invalid(
      fmt::format("engine option {} must be between {} and {}, not {}", name, least, most, value),
      name);
}

}  // namespace

Status validate(const EngineOptions& options) {
  for (const Status& bound :
       {at_least("threads", options.threads, 0),
        at_least("context_cells", options.context_cells, 256),
        between("parallel", options.parallel, 1, kMaxParallel),
        at_least("step_tokens", options.step_tokens, 16),
        at_least("default_max_tokens", options.default_max_tokens, 1),
        between("prefix_cache_entries", options.prefix_cache_entries, 0, kMaxPrefixCacheEntries),
        at_least("prefix_cache_cells", options.prefix_cache_cells, 0)}) {
    if (!bound.ok()) return bound;
  }
  if (options.value_type == EngineOptions::CacheType::kQ8_0 &&
      options.flash_attention == EngineOptions::FlashAttention::kOff) {
    return Error::invalid(
        "engine option value_type q8_0 needs flash attention (flash_attention on or auto): "
        "llama.cpp's plain attention reads only f16 values",
        "value_type");
  }
  if (Status scheduling = sched::validate(options.scheduling); !scheduling.ok()) return scheduling;
  return sched::validate(options.admission);
}

}  // namespace supportd::engine::llama
