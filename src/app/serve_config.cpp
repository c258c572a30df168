#include "app/serve_config.h"

#include <arpa/inet.h>

#include <set>
#include <thread>
#include <utility>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <toml++/toml.h>
#include <CLI/CLI.hpp>

#include "store/session_id.h"

namespace supportd::app {
namespace {

template <typename T>
bool assign(const toml::node& node, T& out) {
  if constexpr (std::is_same_v<T, bool>) {
    if (auto v = node.value<bool>()) return out = *v, true;
  } else if constexpr (std::is_integral_v<T>) {
    // A value the setting's type cannot hold is refused, not wrapped (port = 99999).
    if (auto v = node.value<std::int64_t>(); v && std::in_range<T>(*v))
      return out = static_cast<T>(*v), true;
  } else if constexpr (std::is_floating_point_v<T>) {
    if (auto v = node.value<double>()) return out = static_cast<T>(*v), true;
  } else {
    if (auto v = node.value<std::string>()) return out = *v, true;
  }
  return false;
}

// One of a setting's named values, or an error listing them ("--flag must be a, b or c").
template <typename Enum>
Status choose(const std::string& value, const char* flag,
              std::initializer_list<std::pair<const char*, Enum>> choices, Enum& out) {
  std::string names;
  std::size_t listed = 0;
  for (const auto& [name, choice] : choices) {
    if (value == name) {
      out = choice;
      return {};
    }
    if (listed > 0) names += listed + 1 == choices.size() ? " or " : ", ";
    names += name;
    ++listed;
  }
  return Error::invalid(fmt::format("{} must be {}", flag, names));
}

// A listen address that looks numeric must be an IPv4 or IPv6 address (checked before the
// model loads, not when binding after it); names are left to the resolver.
Status check_host(const std::string& host) {
  if (host.empty()) return Error::invalid("--host must not be empty (0.0.0.0: every address)");
  const bool numeric = host.find(':') != std::string::npos ||
                       host.find_first_not_of("0123456789.") == std::string::npos;
  if (!numeric) return {};
  in_addr v4{};
  in6_addr v6{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1 || inet_pton(AF_INET6, host.c_str(), &v6) == 1)
    return {};
  return Error::invalid("--host " + host + " is not an IP address");
}

void collect_keys(const toml::table& table, const std::string& prefix,
                  std::vector<std::pair<std::string, const toml::node*>>& out) {
  for (const auto& [key, node] : table) {
    const std::string path =
        prefix.empty() ? std::string(key.str()) : prefix + "." + std::string(key.str());
    if (const auto* sub = node.as_table()) {
      collect_keys(*sub, path, out);
    } else {
      out.emplace_back(path, &node);
    }
  }
}

// [[api_keys]] tables: key, tenant, priority, weight, requests_per_second, burst,
// tokens_per_minute.
Status read_api_keys(const toml::table& table, const std::string& file,
                     std::vector<api::ApiKey>& out) {
  const toml::node* node = table.get("api_keys");
  if (node == nullptr) return {};
  const toml::array* array = node->as_array();
  if (array == nullptr) {
    return Error::invalid(fmt::format("{}:{}: api_keys must be an array of tables ([[api_keys]])",
                                      file, node->source().begin.line));
  }
  for (const toml::node& entry : *array) {
    const int line = static_cast<int>(entry.source().begin.line);
    const toml::table* t = entry.as_table();
    if (t == nullptr)
      return Error::invalid(fmt::format("{}:{}: each api_keys entry must be a table", file, line));
    api::ApiKey key;
    for (const auto& [name, value] : *t) {
      const std::string k(name.str());
      bool ok = true;
      if (k == "key") {
        ok = assign(value, key.key);
      } else if (k == "tenant") {
        ok = assign(value, key.tenant);
      } else if (k == "priority") {
        std::string p;
        ok = assign(value, p) && sched::parse_priority(p).has_value();
        if (ok) key.priority = *sched::parse_priority(p);
      } else if (k == "weight") {
        ok = assign(value, key.weight) && key.weight > 0;
      } else if (k == "requests_per_second") {
        ok = assign(value, key.limit.requests_per_second) && key.limit.requests_per_second >= 0;
      } else if (k == "burst") {
        ok = assign(value, key.limit.burst_requests) && key.limit.burst_requests >= 0;
      } else if (k == "tokens_per_minute") {
        ok = assign(value, key.limit.tokens_per_minute) && key.limit.tokens_per_minute >= 0;
      } else {
        return Error::invalid(fmt::format("{}:{}: unknown api_keys setting '{}'", file,
                                          value.source().begin.line, k));
      }
      if (!ok) {
        return Error::invalid(fmt::format("{}:{}: api_keys.{} has a wrong type or value", file,
                                          value.source().begin.line, k));
      }
    }
    if (key.key.empty())
      return Error::invalid(fmt::format("{}:{}: an api_keys entry needs a key", file, line));
    if (!key.tenant.empty()) {
      // Tenants name conversations in session ids and stores: refused here rather than on
      // every desk call made with the key.
      if (Status name = store::check_name(key.tenant, "tenant"); !name) {
        return Error::invalid(fmt::format("{}:{}: api_keys.tenant '{}': {}", file, line, key.tenant,
                                          name.error().message));
      }
    }
    for (const api::ApiKey& earlier : out) {
      if (earlier.key == key.key) {
        return Error::invalid(fmt::format(
            "{}:{}: this api_keys key is already given by an earlier entry", file, line));
      }
    }
    out.push_back(std::move(key));
  }
  return {};
}

}  // namespace

template <typename T>
void ServeFlags::bind(const std::string& section, const std::string& name, T& value,
                      const std::string& help) {
  const std::string flag = "--" + name;
  if constexpr (std::is_same_v<T, bool>) {
    command_.add_flag(flag, value, help);
  } else {
    command_.add_option(flag, value, help)->capture_default_str();
  }
  bindings_.push_back({section + "." + name, flag, [&value](const void* node) {
                         return assign(*static_cast<const toml::node*>(node), value);
                       }});
}

ServeFlags::ServeFlags(CLI::App& c, ServeConfig& cfg) : command_(c), config_(cfg) {
  c.add_option("--config", cfg.config_file,
               "TOML config file; its keys are <section>.<flag> (e.g. [engine] threads = 2); "
               "flags win over it")
      ->check(CLI::ExistingFile);
  bind("log", "log-level", cfg.log_level, "trace, debug, info, warn, error or off");

  auto& e = cfg.engine;
  bind("engine", "model", e.model_path,
       "GGUF model file; without it (and without --upstream) a synthesized demo model is used");
  bind("engine", "alias", e.alias, "Model id shown in /v1/models (default: the file name)");
  bind("engine", "demo-preset", cfg.demo_preset, "Preset of the synthesized demo model");
  bind("engine", "threads", e.threads,
       "Compute threads per step; 0: chosen each step by measurement among 1..cores (robust when "
       "other processes use the CPU)");
  bind("engine", "ctx-size", e.context_cells,
       "KV cells for the running requests: each gets --ctx-size / --parallel with "
       "--kv-layout per-sequence, all share them with unified");
  bind("engine", "kv-layout", cfg.kv_layout,
       "KV cache layout: unified (one shared buffer; one request may use all of it) or "
       "per-sequence (a buffer per request and per cached prefix; attention reads only its "
       "own: faster steps for short requests)");
  bind("engine", "flash-attn", cfg.flash_attn,
       "Attention kernel: auto (llama.cpp's choice: flash where supported), on (flash) or off "
       "(plain; on CPU faster with --kv-layout per-sequence, slower with unified)");
  bind("engine", "shared-prefix-attention", cfg.shared_prefix_attention,
       "on or off. With --kv-layout per-sequence and --flash-attn off: when every request of a "
       "step begins with the same tokens (a shared system prompt), attention reads them once "
       "for all (cascade attention)");
  bind("engine", "weight-repack", cfg.weight_repack,
       "on or off. Lay the weights out for this CPU's fastest matrix kernels at load (llama.cpp's "
       "repack; Q8_0 weights on AVX-512 VNNI multiply about twice as fast); off keeps them as "
       "stored in the file");
  bind("engine", "kv-key-type", cfg.kv_key_type,
       "Number format of the KV cache's keys: f16, or q8_0 (half the memory; with plain "
       "attention the faster on CPU)");
  bind("engine", "kv-value-type", cfg.kv_value_type,
       "Number format of the KV cache's values: f16, or q8_0 (half the memory; needs flash "
       "attention)");
  bind("engine", "parallel", e.parallel, "Sequences decoded together (continuous batching)");
  bind("engine", "step-tokens", e.step_tokens,
       "Tokens per engine step: decode tokens plus prefill chunks (chunked prefill)");
  bind("engine", "max-tokens-default", e.default_max_tokens, "max_tokens when a request omits it");
  bind("engine", "prefix-cache-entries", e.prefix_cache_entries,
       "Cached prompt prefixes (per-sequence layout: at most --parallel)");
  bind("engine", "prefix-cache-cells", e.prefix_cache_cells,
       "With --kv-layout unified: KV cells the prefix cache may hold (0: a quarter of "
       "--ctx-size)");
  bind("engine", "warmup", e.warmup, "Decode a representative batch before /ready (default on)");

  auto& u = cfg.upstream;
  bind("upstream", "upstream", u.url,
       "Forward generation to this OpenAI-compatible server instead of a local model");
  bind("upstream", "upstream-model", u.model, "Model to request from the upstream");
  bind("upstream", "upstream-api-key", u.api_key, "Bearer token for the upstream");
  bind("upstream", "upstream-timeout", u.timeout_s, "Seconds an upstream request may take");

  auto& h = cfg.http;
  bind("http", "host", h.host, "Listen address");
  bind("http", "port", h.port, "Listen port (0: any free port)");
  bind("http", "http-threads", h.threads, "I/O threads");
  bind("http", "body-limit", h.body_limit, "Largest request body in bytes");
  bind("http", "header-limit", h.header_limit, "Largest request header block in bytes");
  bind("http", "idle-timeout", cfg.idle_timeout_s, "Seconds a keep-alive connection may idle");
  bind("http", "read-timeout", cfg.read_timeout_s, "Seconds to receive a whole request");
  bind("http", "write-timeout", cfg.write_timeout_s, "Seconds a client may take to accept a write");
  bind("http", "max-connections", h.max_connections, "Open connections at most");
  bind("http", "cors-origins", cfg.cors_origins,
       "Sites whose pages may call the customer and OpenAI endpoints (the widget embedded "
       "there): '*' any, 'none', or origins like https://shop.example.com,https://*.example.com");
  bind("scheduling", "queue-limit-high", cfg.queue_limit_high,
       "Waiting high requests at most (0: no bound)");
  bind("scheduling", "queue-limit-normal", cfg.queue_limit_normal,
       "Waiting normal requests at most (0: no bound)");
  bind("scheduling", "queue-limit-low", cfg.queue_limit_low,
       "Waiting low requests at most (0: no bound)");
  bind("scheduling", "aging-ms", cfg.aging_ms,
       "A waiting request moves up one priority class per this many ms (0: never)");
  bind("scheduling", "batching", cfg.batching,
       "continuous (requests join the running batch every step) or dynamic (fixed batches)");
  bind("scheduling", "batch-max", cfg.batch_max, "Dynamic batching: requests per batch at most");
  bind("scheduling", "batch-window-ms", cfg.batch_window_ms,
       "Dynamic batching: longest wait to fill a batch");
  bind("scheduling", "early-release-count", cfg.early_release_count,
       "Dynamic batching: start at once when fewer than this many arrived within "
       "--early-release-ms");
  bind("scheduling", "early-release-ms", cfg.early_release_ms,
       "Dynamic batching: see --early-release-count");
  bind("scheduling", "preemption", cfg.preemption,
       "How a higher class takes a lower one's place: save (KV kept in memory), recompute, off");
  auto& d = cfg.desk;
  bind("desk", "data-dir", d.data_dir,
       "Where sessions, caches and the knowledge base live (default ~/.local/share/supportd)");
  bind("desk", "kb", d.kb_dir,
       "Knowledge base directory (from `supportd kb import`); default: the built-in demo");
  bind("desk", "encoder", d.encoder,
       "Sentence encoder weights (default: the one setup installed, else lexical search only; "
       "a file named here must load; \"off\" to disable)");
  bind("desk", "redis", d.redis,
       "Redis host:port: the answer cache shared by every server (and, with --postgres, the "
       "sessions)");
  bind("desk", "postgres", d.postgres, "PostgreSQL URI for transcripts (needs --redis)");
  bind("desk", "session-secret", d.session_secret,
       "HMAC secret for session ids (default: generated in the data dir)");
  bind("desk", "rules", d.rules, "Content rules for every tenant (see src/filter/README.md)");
  bind("desk", "rules-dir", d.rules_dir,
       "Directory of <tenant>.rules files, overriding --rules per tenant");
  bind("desk", "handoff-topics", d.handoff_topics,
       "Comma-separated words or phrases that call a person");
  bind("desk", "desk-workers", d.workers, "Threads running customer turns");
  bind("desk", "kb-watch-ms", d.kb_watch_ms,
       "Poll the knowledge base for new imports this often (0: never)");
  bind("desk", "answer-max-tokens", d.answer_max_tokens,
       "Tokens a generated desk answer may take at most");
  bind("desk", "show-synthesized-text", d.show_synthesized_text,
       "For tests and benchmarks only: let the desk generate and show answers (and cache them) "
       "even when the model is synthesized, whose text is meaningless; without it such a desk "
       "answers from the knowledge base only");
  bind("http", "port-file", cfg.port_file, "Write the bound port to this file once listening");
  bind("http", "shutdown-grace", cfg.shutdown_grace_s,
       "Seconds in-flight requests get to finish on SIGTERM before they are cancelled");
}

Status ServeFlags::finish() {
  if (!config_.config_file.empty()) {
    toml::table table;
    try {
      table = toml::parse_file(config_.config_file);
    } catch (const toml::parse_error& e) {
      return Error::invalid(fmt::format("{}:{}:{}: {}", config_.config_file, e.source().begin.line,
                                        e.source().begin.column, e.description()));
    }
    if (Status keys = read_api_keys(table, config_.config_file, config_.api_keys); !keys)
      return keys;
    table.erase("api_keys");
    std::vector<std::pair<std::string, const toml::node*>> keys;
    collect_keys(table, "", keys);
    for (const auto& [key, node] : keys) {
      const int line = static_cast<int>(node->source().begin.line);
      auto it = std::find_if(bindings_.begin(), bindings_.end(),
                             [&](const Binding& b) { return b.key == key; });
      if (it == bindings_.end()) {
        return Error::invalid(
            fmt::format("{}:{}: unknown setting '{}'", config_.config_file, line, key));
      }
      if (command_.count(it->flag) > 0) continue;  // the flag wins
      if (!it->set_from_toml(node)) {
        return Error::invalid(fmt::format("{}:{}: '{}' has the wrong type or is out of range",
                                          config_.config_file, line, key));
      }
    }
  }
  auto& e = config_.engine;
  if (e.parallel < 1 || e.parallel > 128)
    return Error::invalid("--parallel must be between 1 and 128");
  if (e.context_cells < 256) return Error::invalid("--ctx-size must be at least 256");
  if (e.step_tokens < 16) return Error::invalid("--step-tokens must be at least 16");
  if (e.threads < 0) return Error::invalid("--threads must not be negative");
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (e.threads > 2 * cores) {
    return Error::invalid(fmt::format(
        "--threads {} is more than twice the {} hardware threads here (0 lets supportd choose)",
        e.threads, cores));
  }
  if (config_.http.threads < 1 || config_.http.threads > 64)
    return Error::invalid("--http-threads must be between 1 and 64");
  if (config_.http.body_limit < 1024) return Error::invalid("--body-limit must be at least 1024");
  if (config_.http.header_limit < 1024)
    return Error::invalid("--header-limit must be at least 1024");
  if (config_.http.max_connections < 1)
    return Error::invalid("--max-connections must be at least 1");
  for (const auto& [flag, seconds] : {std::pair{"--idle-timeout", config_.idle_timeout_s},
                                      {"--read-timeout", config_.read_timeout_s},
                                      {"--write-timeout", config_.write_timeout_s},
                                      {"--upstream-timeout", config_.upstream.timeout_s}}) {
    if (seconds < 1) return Error::invalid(fmt::format("{} must be at least 1 (seconds)", flag));
  }
  for (const auto& [flag, value] : {std::pair{"--shutdown-grace", config_.shutdown_grace_s},
                                    {"--queue-limit-high", config_.queue_limit_high},
                                    {"--queue-limit-normal", config_.queue_limit_normal},
                                    {"--queue-limit-low", config_.queue_limit_low},
                                    {"--aging-ms", config_.aging_ms},
                                    {"--batch-window-ms", config_.batch_window_ms},
                                    {"--early-release-count", config_.early_release_count},
                                    {"--early-release-ms", config_.early_release_ms},
                                    {"--kb-watch-ms", config_.desk.kb_watch_ms},
                                    {"--prefix-cache-entries", e.prefix_cache_entries},
                                    {"--prefix-cache-cells", e.prefix_cache_cells}}) {
    if (value < 0) return Error::invalid(fmt::format("{} must not be negative", flag));
  }
  if (config_.batch_max < 1) return Error::invalid("--batch-max must be at least 1");
  if (config_.desk.workers < 1 || config_.desk.workers > 64)
    return Error::invalid("--desk-workers must be between 1 and 64");
  if (config_.desk.answer_max_tokens < 1)
    return Error::invalid("--answer-max-tokens must be at least 1");
  if (e.default_max_tokens < 1) return Error::invalid("--max-tokens-default must be at least 1");
  if (Status host = check_host(config_.http.host); !host) return host;
  if (command_.count("--data-dir") > 0 && config_.desk.data_dir.empty())
    return Error::invalid("--data-dir must name a directory (leave it out for the default)");
  if (spdlog::level::from_str(config_.log_level) == spdlog::level::off &&
      config_.log_level != "off") {
    return Error::invalid("--log-level must be trace, debug, info, warn, error or off");
  }
  if (!e.model_path.empty() && !config_.upstream.url.empty()) {
    return Error::invalid("give either --model or --upstream, not both");
  }
  auto& scheduling = e.scheduling;
  scheduling.aging = std::chrono::milliseconds(config_.aging_ms);
  using Options = engine::llama::EngineOptions;
  // Each writes only its own setting; the first refusal, in this order, is the answer.
  for (const Status& chosen :
       {choose(config_.batching, "--batching",
               {{"continuous", sched::BatchingMode::kContinuous},
                {"dynamic", sched::BatchingMode::kDynamic}},
               scheduling.batching),
        choose(config_.kv_layout, "--kv-layout",
               {{"unified", Options::KvLayout::kUnified},
                {"per-sequence", Options::KvLayout::kPerSequence}},
               e.kv_layout),
        choose(config_.flash_attn, "--flash-attn",
               {{"auto", Options::FlashAttention::kAuto},
                {"on", Options::FlashAttention::kOn},
                {"off", Options::FlashAttention::kOff}},
               e.flash_attention),
        choose(config_.shared_prefix_attention, "--shared-prefix-attention",
               {{"on", true}, {"off", false}}, e.shared_prefix_attention),
        choose(config_.weight_repack, "--weight-repack", {{"on", true}, {"off", false}},
               e.weight_repack),
        choose(config_.kv_key_type, "--kv-key-type",
               {{"f16", Options::CacheType::kF16}, {"q8_0", Options::CacheType::kQ8_0}},
               e.key_type),
        choose(config_.kv_value_type, "--kv-value-type",
               {{"f16", Options::CacheType::kF16}, {"q8_0", Options::CacheType::kQ8_0}},
               e.value_type),
        choose(config_.preemption, "--preemption",
               {{"save", Options::Preemption::kSave},
                {"recompute", Options::Preemption::kRecompute},
                {"off", Options::Preemption::kOff}},
               e.preemption)}) {
    if (!chosen.ok()) return chosen;
  }
  // llama.cpp's plain attention multiplies by the values as they are stored; only its flash
  // attention reads quantized ones.
  if (e.value_type != Options::CacheType::kF16 &&
      e.flash_attention == Options::FlashAttention::kOff) {
    return Error::invalid("--kv-value-type " + config_.kv_value_type +
                          " needs flash attention (--flash-attn on or auto)");
  }
  scheduling.batch_max = std::max(1, config_.batch_max);
  scheduling.batch_window = std::chrono::milliseconds(config_.batch_window_ms);
  scheduling.early_release_count = config_.early_release_count;
  scheduling.early_release_after = std::chrono::milliseconds(config_.early_release_ms);
  e.admission.queue_limit = {config_.queue_limit_high, config_.queue_limit_normal,
                             config_.queue_limit_low};
  api::Access access(config_.api_keys);
  scheduling.tenant_weights = access.tenant_weights();
  auto cross_origin = http::CrossOrigin::parse(config_.cors_origins);
  if (!cross_origin) return Error::invalid("--cors-origins: " + cross_origin.error().message);
  config_.cross_origin = *cross_origin;
  config_.http.idle_timeout = std::chrono::seconds(config_.idle_timeout_s);
  config_.http.read_timeout = std::chrono::seconds(config_.read_timeout_s);
  config_.http.write_timeout = std::chrono::seconds(config_.write_timeout_s);
  return {};
}

}  // namespace supportd::app
