// ServeOptions: serve's declared options (serve_options.cpp) finished in three steps: the API
// keys of the config file, every option (file, checks, targets), then the settings that
// follow from several options together.
#include "app/serve_config.h"

#include <algorithm>
#include <utility>

#include "app/api_keys_file.h"
#include "app/version_name.h"

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
  if (Status status = table_.finish({"api_keys", "models"}); !status) return status;
  if (Status status = take_models(); !status) return status;
  derive();
  return {};
}

Status ServeOptions::take_models() {
  const std::vector<std::string>& flags = config_.model_flags;
  config_.models.clear();
  if (flags.size() == 1 && !names_a_version(flags[0])) {
    if (names_a_version(config_.upstream.url)) {
      return Error::invalid("--upstream " + config_.upstream.url +
                            " is a named version: name the --model too (--model NAME=PATH)");
    }
    config_.engine.model_path = flags[0];  // one bare path: served as before, no router
    return {};
  }
  for (const std::string& flag : flags) {
    auto version = parse_model_flag(flag);
    if (!version) return version.error();
    config_.models.push_back(std::move(version).value());
  }
  if (flags.empty() && !table_.config_file().empty()) {
    auto versions = read_model_versions(table_.config_file());
    if (!versions) return versions.error();
    config_.models = std::move(versions).value();
  }
  // --upstream NAME=URL: one more version, after the others.
  if (names_a_version(config_.upstream.url)) {
    auto version = parse_upstream_flag(config_.upstream.url);
    if (!version) return version.error();
    config_.models.push_back(std::move(version).value());
    config_.upstream.url.clear();
  }
  if (Status unique = check_unique_names(config_.models); !unique) return unique;
  if (!config_.models.empty() && !config_.upstream.url.empty()) {
    return Error::invalid(
        "give either model versions (--model, [[models]]) or an unnamed --upstream URL (name "
        "it --upstream NAME=URL to serve it as one of the versions)");
  }
  if (!config_.models.empty() && config_.cluster.role == Role::kGateway)
    return Error::invalid("--role gateway runs no model: model versions belong to engine nodes");
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
