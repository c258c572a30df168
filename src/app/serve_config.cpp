// ServeOptions: serve's declared options (serve_options.cpp) finished in three steps: the API
// keys of the config file, every option (file, checks, targets), then the settings that
// follow from several options together.
#include "app/serve_config.h"

#include <algorithm>
#include <utility>

#include "app/api_keys_file.h"

namespace supportd::app {

ServeOptions::ServeOptions(CLI::App& command, ServeConfig& config)
    : config_(config), table_(command) {
  declare_serve_options(table_, config_);
}

Status ServeOptions::finish() {
  if (!table_.config_file().empty()) {
    auto keys = read_api_keys(table_.config_file());
    if (!keys) return keys.error();
    config_.api_keys = std::move(keys).value();
  }
  if (Status status = table_.finish({"api_keys"}); !status) return status;
  derive();
  return {};
}

void ServeOptions::derive() {
  engine::llama::EngineOptions& e = config_.engine;
  // With buffers per sequence at most --parallel prefixes are cached (a larger given value
  // was refused); left out, the default comes down to that.
  if (e.kv_layout == engine::llama::EngineOptions::KvLayout::kPerSequence &&
      !table_.given("prefix-cache-entries")) {
    e.prefix_cache_entries = std::min(e.prefix_cache_entries, e.parallel);
  }
  // Tenants share the engine by their keys' weights.
  e.scheduling.tenant_weights = api::Access(config_.api_keys).tenant_weights();
}

}  // namespace supportd::app
