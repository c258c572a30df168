// Every option of `supportd serve`, declared once each, by section (the section is the
// option's table in the config file and its group in `serve --help`): name, target, default,
// help, and what it accepts. The named values of each enum are declared once, below. To add an
// option: a field in ServeConfig (or the options struct it fills) and one line here.
//
// The engine's bounds are refused here, with the flag's name, rather than left to the engine:
// --parallel 1..128 and --prefix-cache-entries 0..128 (llama.cpp's sequence ids are shared by
// both), at most --parallel cached prefixes with buffers per sequence, --ctx-size >= 256,
// --step-tokens >= 16.
#include <arpa/inet.h>

#include <algorithm>
#include <thread>

#include <fmt/format.h>

#include "app/serve_config.h"
#include "app/serve_option_sections.h"
#include "app/version_name.h"
#include "core/http_url.h"
#include "model/presets.h"
#include "sched/priority.h"

namespace supportd::app {
namespace {

using EngineOptions = engine::llama::EngineOptions;
using std::chrono::milliseconds;
using std::chrono::seconds;
namespace level = spdlog::level;

const Choices<level::level_enum> kLogLevels{
    {"trace", level::trace},
    {"debug", level::debug},
    {"info", level::info},
    {"warn", level::warn},
    {"error", level::err},
    {"off", level::off},
    {"warning", level::warn, false},
    {"err", level::err, false},
    {"critical", level::critical, false}};  // spdlog's own spellings, accepted quietly

const Choices<LogFormat> kLogFormats{{"text", LogFormat::kText}, {"json", LogFormat::kJson}};

const Choices<EngineOptions::KvLayout> kKvLayouts{
    {"unified", EngineOptions::KvLayout::kUnified},
    {"per-sequence", EngineOptions::KvLayout::kPerSequence}};

const Choices<EngineOptions::FlashAttention> kFlashAttention{
    {"auto", EngineOptions::FlashAttention::kAuto},
    {"on", EngineOptions::FlashAttention::kOn},
    {"off", EngineOptions::FlashAttention::kOff}};

const Choices<EngineOptions::CacheType> kCacheTypes{{"f16", EngineOptions::CacheType::kF16},
                                                    {"q8_0", EngineOptions::CacheType::kQ8_0}};

const Choices<EngineOptions::Preemption> kPreemption{
    {"save", EngineOptions::Preemption::kSave},
    {"recompute", EngineOptions::Preemption::kRecompute},
    {"off", EngineOptions::Preemption::kOff}};

const Choices<sched::BatchingMode> kBatching{{"continuous", sched::BatchingMode::kContinuous},
                                             {"dynamic", sched::BatchingMode::kDynamic}};

// --threads beyond twice the hardware threads is a mistake, not a setting (0 lets the engine
// choose by measurement).
Status threads_fit_the_machine(const int& threads, const std::string& shown) {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (threads <= 2 * cores) return {};
  return Error::invalid(
      fmt::format("{} {} is more than twice the {} hardware threads here (0 lets supportd choose)",
                  shown, threads, cores));
}

// A listen address that looks numeric must be an IPv4 or IPv6 address (checked before the
// model loads, not when binding after it); names are left to the resolver.
Status listen_address(const std::string& host, const std::string& shown) {
  if (host.empty()) return Error::invalid(shown + " must not be empty (0.0.0.0: every address)");
  const bool numeric = host.find(':') != std::string::npos ||
                       host.find_first_not_of("0123456789.") == std::string::npos;
  if (!numeric) return {};
  in_addr v4{};
  in6_addr v6{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1 || inet_pton(AF_INET6, host.c_str(), &v6) == 1)
    return {};
  return Error::invalid(shown + " " + host + " is not an IP address");
}

Status known_preset(const std::string& name, const std::string& shown) {
  if (model::find_preset(name) != nullptr) return {};
  return Error::invalid(shown + " must be one of " + model::preset_names());
}

Status names_a_directory(const std::string& directory, const std::string& shown) {
  if (!directory.empty()) return {};
  return Error::invalid(shown + " must name a directory (leave it out for the default)");
}

void declare_log(OptionTable& table, ServeConfig& config) {
  OptionSection log = table.section("log", "Logging");
  log.choice("log-level", config.log_level, kLogLevels, level::info,
             "How much supportd logs on stderr");
  log.choice("log-format", config.log_format, kLogFormats, LogFormat::kText,
             "text: one line per event; json: one JSON object per line (time, level, message, "
             "trace and span ids, request id, tenant, route), personal data masked");
}

void declare_engine(OptionTable& table, ServeConfig& config) {
  OptionSection engine = table.section("engine", "Engine");
  EngineOptions& e = config.engine;
  const auto& model = engine.value(
      "model", config.model_flags, {},
      "GGUF model file; without it (and without --upstream) a synthesized demo model is used. "
      "Repeat as NAME=PATH to serve several named versions side by side (or [[models]] tables "
      "in the config file): the first takes the deployment 'default'");
  engine.value("alias", e.alias, "", "Model id shown in /v1/models (default: the file name)");
  engine
      .value("demo-preset", config.demo_preset, "smollm2-135m",
             "Preset of the synthesized demo model")
      .check(known_preset);
  engine
      .value("threads", e.threads, 0,
             "Compute threads per step; 0: chosen each step by measurement among 1..cores "
             "(robust when other processes use the CPU)")
      .at_least(0)
      .check(threads_fit_the_machine);
  engine
      .value("ctx-size", e.context_cells, 16384,
             "KV cells for the running requests: each gets --ctx-size / --parallel with "
             "--kv-layout per-sequence, all share them with unified")
      .at_least(256);
  const auto& layout = engine.choice(
      "kv-layout", e.kv_layout, kKvLayouts, EngineOptions::KvLayout::kUnified,
      "KV cache layout: unified (one shared buffer; one request may use all of it) or "
      "per-sequence (a buffer per request and per cached prefix; attention reads only its own: "
      "faster steps for short requests)");
  engine.choice("flash-attn", e.flash_attention, kFlashAttention,
                EngineOptions::FlashAttention::kAuto,
                "Attention kernel: auto (llama.cpp's choice: flash where supported), on (flash) "
                "or off (plain; on CPU faster with --kv-layout per-sequence, slower with unified)");
  engine.choice("shared-prefix-attention", e.shared_prefix_attention, kOnOff, true,
                "With --kv-layout per-sequence and --flash-attn off: when every request of a step "
                "begins with the same tokens (a shared system prompt), attention reads them once "
                "for all (cascade attention)");
  engine.choice("weight-repack", e.weight_repack, kOnOff, true,
                "Lay the weights out for this CPU's fastest matrix kernels at load (llama.cpp's "
                "repack; Q8_0 weights on AVX-512 VNNI multiply about twice as fast); off keeps "
                "them as stored in the file");
  engine.choice("kv-key-type", e.key_type, kCacheTypes, EngineOptions::CacheType::kF16,
                "Number format of the KV cache's keys: f16, or q8_0 (half the memory; with plain "
                "attention the faster on CPU)");
  const auto& value_type =
      engine.choice("kv-value-type", e.value_type, kCacheTypes, EngineOptions::CacheType::kF16,
                    "Number format of the KV cache's values: f16, or q8_0 (half the memory; "
                    "needs flash attention)");
  const auto& parallel =
      engine.value("parallel", e.parallel, 16, "Sequences decoded together (continuous batching)")
          .between(1, 128);
  engine
      .value("step-tokens", e.step_tokens, 256,
             "Tokens per engine step: decode tokens plus prefill chunks (chunked prefill)")
      .at_least(16);
  engine
      .value("max-tokens-default", e.default_max_tokens, 1024, "max_tokens when a request omits it")
      .at_least(1);
  const auto& prefixes =
      engine
          .value("prefix-cache-entries", e.prefix_cache_entries, 32,
                 "Cached prompt prefixes (per-sequence layout: at most --parallel, which is also "
                 "the default there); of them at most 4 (or --parallel, if fewer) longer than what "
                 "requests have reused of them")
          .between(0, 128);
  engine
      .value("prefix-cache-cells", e.prefix_cache_cells, 0,
             "With --kv-layout unified: KV cells the prefix cache may hold (0: a quarter of "
             "--ctx-size)")
      .at_least(0);
  engine.value("warmup", e.warmup, true,
               "Decode a representative batch before /ready (default on; --warmup=false skips it)");

  table.rule([&config, &model] {
    // A named upstream (--upstream NAME=URL) is a version beside named --model versions.
    if (!model.value().empty() && !config.upstream.url.empty() &&
        !names_a_version(config.upstream.url))
      return Status(
          Error::invalid("give either --model or --upstream, not both (or name both: "
                         "--model NAME=PATH --upstream NAME=URL)"));
    return Status();
  });
  // llama.cpp's plain attention multiplies by the values as they are stored; only its flash
  // attention reads quantized ones.
  table.rule([&e, &value_type] {
    if (e.value_type == EngineOptions::CacheType::kF16 ||
        e.flash_attention != EngineOptions::FlashAttention::kOff)
      return Status();
    return Status(
        Error::invalid(fmt::format("--kv-value-type {} needs flash attention "
                                   "(--flash-attn on or auto)",
                                   value_type.value())));
  });
  // With buffers per sequence, a cached prefix holds a buffer as a running sequence does, and
  // the cache may hold at most --parallel of them.
  table.rule([&e, &layout, &prefixes, &parallel] {
    if (e.kv_layout != EngineOptions::KvLayout::kPerSequence || !prefixes.given() ||
        e.prefix_cache_entries <= e.parallel)
      return Status();
    return Status(Error::invalid(fmt::format(
        "{} {} is more than {} {}: with {} per-sequence each cached prefix takes a buffer like a "
        "running sequence's, so at most {} of them (leave it out for that many)",
        prefixes.shown(), e.prefix_cache_entries, parallel.flag(), e.parallel, layout.flag(),
        parallel.flag())));
  });
}

void declare_upstream(OptionTable& table, ServeConfig& config) {
  OptionSection upstream = table.section("upstream", "Upstream (instead of a local model)");
  engine::upstream::UpstreamOptions& u = config.upstream;
  upstream.value("upstream", u.url, "",
                 "Forward generation to this OpenAI-compatible server instead of a local model; "
                 "as NAME=URL it is a model version beside the --model NAME=PATH ones (more in "
                 "[[models]] tables with upstream = URL)");
  upstream.value("upstream-model", u.model, "", "Model to request from the upstream");
  upstream.value("upstream-api-key", u.api_key, "", "Bearer token for the upstream");
  upstream.value("upstream-timeout", u.timeout_s, 600, "Seconds an upstream request may take")
      .unit("seconds")
      .at_least(1);
}

void declare_http(OptionTable& table, ServeConfig& config) {
  OptionSection server = table.section("http", "HTTP server");
  http::ServerOptions& h = config.http;
  server.value("host", h.host, "127.0.0.1", "Listen address").check(listen_address);
  server.value("port", h.port, 8080, "Listen port (0: any free port)");
  server.value("http-threads", h.threads, 1, "I/O threads").between(1, 64);
  server.value("body-limit", h.body_limit, std::size_t{1} << 20, "Largest request body in bytes")
      .at_least(1024);
  server.value("header-limit", h.header_limit, 16 * 1024, "Largest request header block in bytes")
      .at_least(1024);
  server
      .duration<seconds>("idle-timeout", h.idle_timeout, 60,
                         "Seconds a keep-alive connection may idle")
      .at_least(1);
  server.duration<seconds>("read-timeout", h.read_timeout, 30, "Seconds to receive a whole request")
      .at_least(1);
  server
      .duration<seconds>("write-timeout", h.write_timeout, 30,
                         "Seconds a client may take to accept a write")
      .at_least(1);
  server.value("max-connections", h.max_connections, 10000, "Open connections at most").at_least(1);
  server.value("tls-cert", h.tls.certificate_file, "",
               "PEM certificate chain: the port speaks TLS only (HTTPS, WSS); needs --tls-key");
  server.value("tls-key", h.tls.key_file, "", "PEM private key of --tls-cert (unencrypted)");
  table.rule([&h] {
    if (h.tls.certificate_file.empty() != h.tls.key_file.empty()) {
      return Status(Error::invalid(h.tls.key_file.empty() ? "--tls-cert needs --tls-key"
                                                          : "--tls-key needs --tls-cert"));
    }
    return http::check_tls_files(h.tls);
  });
  server.parsed<http::CrossOrigin>(
      "cors-origins", config.cross_origin, "*", &http::CrossOrigin::parse,
      "Sites whose pages may call the customer and OpenAI endpoints (the widget embedded there): "
      "'*' any, 'none', or origins like https://shop.example.com,https://*.example.com");
  server.value("port-file", config.port_file, "",
               "Write the bound port to this file once listening");
  server
      .duration<seconds>("shutdown-grace", config.shutdown_grace, 10,
                         "Seconds in-flight requests get to finish on SIGTERM before they are "
                         "cancelled")
      .at_least(0);
}

void declare_scheduling(OptionTable& table, ServeConfig& config) {
  OptionSection scheduling = table.section("scheduling", "Scheduling and admission");
  EngineOptions& e = config.engine;
  sched::SchedulerOptions& s = e.scheduling;
  for (const auto& [priority, fallback] : {std::pair{sched::Priority::kHigh, 256},
                                           {sched::Priority::kNormal, 512},
                                           {sched::Priority::kLow, 512}}) {
    const std::string name = sched::priority_name(priority);
    scheduling
        .value("queue-limit-" + name, e.admission.queue_limit[static_cast<int>(priority)], fallback,
               "Waiting " + name + " requests at most (0: no bound)")
        .at_least(0);
  }
  scheduling
      .duration<milliseconds>(
          "aging-ms", s.aging, 10000,
          "A waiting request moves up one priority class per this many ms (0: never)")
      .at_least(0);
  scheduling.choice(
      "batching", s.batching, kBatching, sched::BatchingMode::kContinuous,
      "continuous (requests join the running batch every step) or dynamic (fixed batches)");
  scheduling.value("batch-max", s.batch_max, 8, "Dynamic batching: requests per batch at most")
      .at_least(1);
  scheduling
      .duration<milliseconds>("batch-window-ms", s.batch_window, 40,
                              "Dynamic batching: longest wait to fill a batch")
      .at_least(0);
  scheduling
      .value("early-release-count", s.early_release_count, 0,
             "Dynamic batching: start at once when fewer than this many arrived within "
             "--early-release-ms")
      .at_least(0);
  scheduling
      .duration<milliseconds>("early-release-ms", s.early_release_after, 0,
                              "Dynamic batching: see --early-release-count")
      .at_least(0);
  scheduling.choice(
      "preemption", e.preemption, kPreemption, EngineOptions::Preemption::kSave,
      "How a higher class takes a lower one's place: save (KV kept in memory), recompute, off");
}

void declare_desk(OptionTable& table, ServeConfig& config) {
  OptionSection desk = table.section("desk", "Customer-service desk");
  DeskConfig& d = config.desk;
  desk.value("data-dir", d.data_dir, "",
             "Where sessions, caches and the knowledge base live (default "
             "~/.local/share/supportd)")
      .check(names_a_directory);
  desk.value("kb", d.kb_dir, "",
             "Knowledge base directory (from `supportd kb import`); default: the built-in demo");
  desk.value("encoder", d.encoder, "",
             "Sentence encoder weights (default: the one setup installed, else lexical search "
             "only; a file named here must load; \"off\" to disable)");
  desk.value("redis", d.redis, "",
             "Redis host:port: the answer cache shared by every server (and, with --postgres, the "
             "sessions)");
  desk.value("postgres", d.postgres, "", "PostgreSQL URI for transcripts (needs --redis)");
  desk.value("session-secret", d.session_secret, "",
             "HMAC secret for session ids (default: generated in the data dir)");
  desk.value("rules", d.rules, "", "Content rules for every tenant (see src/filter/README.md)");
  desk.value("rules-dir", d.rules_dir, "",
             "Directory of <tenant>.rules files, overriding --rules per tenant");
  desk.value("handoff-topics", d.handoff_topics, "",
             "Comma-separated words or phrases that call a person");
  desk::DeskOptions& t = d.tunables;
  desk.value("desk-workers", t.worker_threads, 2, "Threads running customer turns").between(1, 64);
  desk.value("kb-watch-ms", d.kb_watch_ms, 2000,
             "Poll the knowledge base for new imports this often (0: never)")
      .unit("ms")
      .at_least(0);
  desk.value("answer-max-tokens", t.max_answer_tokens, 256,
             "Tokens a generated desk answer may take at most")
      .at_least(1);
  desk.value("answer-temperature", t.answer_temperature, 0.3,
             "Sampling temperature of a generated answer (low keeps it close to the articles)")
      .between(0.0, 2.0);
  desk.value("retrieved-entries", t.retrieved_entries, 5,
             "Knowledge-base entries retrieved per question")
      .between(1, 50);
  desk.value("prompt-articles", t.prompt.articles, 3,
             "Retrieved articles a generated answer's prompt gives the model")
      .between(0, 50);
  desk.value("article-chars", t.prompt.article_chars, 1200,
             "Bytes of each article's text in the prompt (cut at a character)")
      .at_least(1);
  desk.value("history-chars", t.prompt.history_chars, 4000,
             "Bytes of earlier messages in the prompt, newest first")
      .at_least(0);
  desk.value("history-messages", t.history_messages, 20,
             "Earlier messages read for a generated answer's prompt")
      .between(0, 1000);
  desk.value("snippet-chars", t.prompt.snippet_chars, 240,
             "Bytes of a citation's snippet (cut at a character)")
      .at_least(1);
  desk.value("fallback-citations", t.fallback_citations, 3,
             "Closest articles a fallback answer offers (at most --retrieved-entries)")
      .between(0, 50);
  desk.value("max-question-chars", t.max_question_characters, 4000,
             "Characters a customer's message may have")
      .at_least(1);
  desk.value("low-confidence-turns", t.low_confidence_turns, 2,
             "Unconfident answers in a row before a person is called")
      .at_least(1);
  desk.value("max-queued-turns", t.max_queued_turns, 4096,
             "Turns queued for the desk's workers before more are refused")
      .at_least(1);
  desk.value("max-waiting-per-conversation", t.max_waiting_per_conversation, 8,
             "Messages of one conversation waiting for the answer in progress")
      .at_least(1);
  desk.value("waiting-listed", t.waiting_listed, 200,
             "Conversations in the agents' waiting list pushed and listed")
      .between(1, 1000);
  desk.value("semantic-cache-entries", t.semantic_cache_entries, 10000,
             "Questions the semantic answer cache holds")
      .at_least(1);
  desk.value("show-synthesized-text", d.show_synthesized_text, false,
             "For tests and benchmarks only: let the desk generate and show answers (and cache "
             "them) even when the model is synthesized, whose text is meaningless; without it "
             "such a desk answers from the knowledge base only");
  // A fallback offers some of the retrieved entries, never more than were retrieved.
  table.rule([&t] {
    if (t.fallback_citations <= static_cast<std::size_t>(t.retrieved_entries)) return Status();
    return Status(Error::invalid(
        fmt::format("--fallback-citations {} is more than --retrieved-entries {}: a fallback "
                    "offers some of the entries retrieved",
                    t.fallback_citations, t.retrieved_entries)));
  });
}

}  // namespace

void declare_serve_options(OptionTable& table, ServeConfig& config) {
  table.config_file_option(
      "config",
      "TOML config file; its keys are <section>.<option> (e.g. [engine] threads = 2) and "
      "[[api_keys]] tables; flags win over it");
  declare_log(table, config);
  declare_tracing(table, config);
  declare_engine(table, config);
  declare_upstream(table, config);
  declare_http(table, config);
  declare_scheduling(table, config);
  declare_desk(table, config);
  declare_anomaly(table, config);
  declare_cluster(table, config);
  declare_admin(table, config);
}

}  // namespace supportd::app
