// Everything `supportd serve` can be told, from flags and from a TOML config file. Flags win
// over the file; the file wins over defaults. Every option is documented in `serve --help`,
// and the TOML key of each flag is "<section>.<flag name>" (e.g. engine.threads).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "api/access.h"
#include "app/desk_setup.h"
#include "core/status.h"
#include "engine/llama/llama_engine.h"
#include "http/cross_origin.h"
#include "http/server.h"

namespace CLI {
class App;
}

namespace supportd::app {

struct UpstreamOptions {
  std::string url;      // e.g. http://127.0.0.1:8000 (an OpenAI-compatible server)
  std::string model;    // model name to ask the upstream for; default: its first model
  std::string api_key;  // sent as a bearer token
  int timeout_s = 600;
};

struct ServeConfig {
  std::string config_file;
  std::string log_level = "info";
  std::string demo_preset = "smollm2-135m";  // synthesized when no --model and no --upstream
  engine::llama::EngineOptions engine;
  UpstreamOptions upstream;
  http::ServerOptions http;
  int idle_timeout_s = 60;
  int read_timeout_s = 30;
  int write_timeout_s = 30;
  int shutdown_grace_s = 10;
  std::string cors_origins = "*";  // parsed into cross_origin by finish()
  http::CrossOrigin cross_origin;
  // Scheduling (flags map onto engine.scheduling / engine.admission in finish()).
  int queue_limit_high = 256, queue_limit_normal = 512, queue_limit_low = 512;
  int aging_ms = 10000;
  std::string batching = "continuous";
  int batch_max = 8, batch_window_ms = 40, early_release_count = 0, early_release_ms = 0;
  std::string preemption = "save";
  std::string kv_layout = "unified";
  std::string flash_attn = "auto";
  std::string shared_prefix_attention = "on";
  std::string weight_repack = "on";
  std::string kv_key_type = "f16", kv_value_type = "f16";
  std::vector<api::ApiKey> api_keys;  // [[api_keys]] tables in the config file
  DeskConfig desk;
  std::string port_file;  // written with the bound port once listening (for scripts and tests)
};

class ServeFlags {
 public:
  // Registers every option on `command`, bound to `config`.
  ServeFlags(CLI::App& command, ServeConfig& config);
  // After parsing: fills options not given as flags from the config file, then validates.
  // Errors name the file and line.
  Status finish();

 private:
  struct Binding {
    std::string key;  // TOML key, "section.name"
    std::string flag;
    std::function<bool(const void* toml_node)> set_from_toml;  // false: wrong type
  };
  template <typename T>
  void bind(const std::string& section, const std::string& name, T& value, const std::string& help);

  CLI::App& command_;
  ServeConfig& config_;
  std::vector<Binding> bindings_;
};

}  // namespace supportd::app
