// serve's declared options, in-process (no server starts): the defaults are the engine's,
// the HTTP server's, the scheduler's and the desk's own; the engine's bounds are refused here
// by name instead of being clamped later; values land translated in their targets (durations,
// enums, the cross-origin policy, tenant weights); every option has its own config key.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/serve_config.h"
#include "command_line.h"

namespace supportd::app {
namespace {

using testing::ConfigFile;
using EngineOptions = engine::llama::EngineOptions;

// `serve ARGS` parsed and finished into `config`; CLI11's own refusals come back as errors too.
Status serve(const std::vector<std::string>& args, ServeConfig& config) {
  CLI::App app;
  ServeOptions options(app, config);
  if (Status parsed = testing::parse_command_line(app, args); !parsed) return parsed;
  return options.finish();
}

std::string refusal(const std::vector<std::string>& args) {
  ServeConfig config;
  const Status status = serve(args, config);
  return status.ok() ? "(accepted)" : status.error().message;
}

TEST(ServeConfig, DefaultsAreThoseOfThePartsTheyConfigure) {
  ServeConfig config;
  ASSERT_TRUE(serve({}, config).ok());
  const EngineOptions engine;
  EXPECT_EQ(config.engine.threads, engine.threads);
  EXPECT_EQ(config.engine.context_cells, engine.context_cells);
  EXPECT_EQ(config.engine.parallel, engine.parallel);
  EXPECT_EQ(config.engine.step_tokens, engine.step_tokens);
  EXPECT_EQ(config.engine.default_max_tokens, engine.default_max_tokens);
  EXPECT_EQ(config.engine.prefix_cache_entries, engine.prefix_cache_entries);
  EXPECT_EQ(config.engine.prefix_cache_cells, engine.prefix_cache_cells);
  EXPECT_EQ(config.engine.kv_layout, engine.kv_layout);
  EXPECT_EQ(config.engine.flash_attention, engine.flash_attention);
  EXPECT_EQ(config.engine.key_type, engine.key_type);
  EXPECT_EQ(config.engine.value_type, engine.value_type);
  EXPECT_EQ(config.engine.shared_prefix_attention, engine.shared_prefix_attention);
  EXPECT_EQ(config.engine.weight_repack, engine.weight_repack);
  EXPECT_EQ(config.engine.warmup, engine.warmup);
  EXPECT_EQ(config.engine.preemption, engine.preemption);
  const sched::SchedulerOptions scheduling;
  EXPECT_EQ(config.engine.scheduling.aging, scheduling.aging);
  EXPECT_EQ(config.engine.scheduling.batching, scheduling.batching);
  EXPECT_EQ(config.engine.scheduling.batch_max, scheduling.batch_max);
  EXPECT_EQ(config.engine.scheduling.batch_window, scheduling.batch_window);
  EXPECT_EQ(config.engine.scheduling.early_release_count, scheduling.early_release_count);
  EXPECT_EQ(config.engine.scheduling.early_release_after, scheduling.early_release_after);
  EXPECT_EQ(config.engine.admission.queue_limit, sched::AdmissionOptions().queue_limit);
  const http::ServerOptions http;
  EXPECT_EQ(config.http.host, http.host);
  EXPECT_EQ(config.http.port, http.port);
  EXPECT_EQ(config.http.threads, http.threads);
  EXPECT_EQ(config.http.body_limit, http.body_limit);
  EXPECT_EQ(config.http.header_limit, http.header_limit);
  EXPECT_EQ(config.http.idle_timeout, http.idle_timeout);
  EXPECT_EQ(config.http.read_timeout, http.read_timeout);
  EXPECT_EQ(config.http.write_timeout, http.write_timeout);
  EXPECT_EQ(config.http.max_connections, http.max_connections);
  const DeskConfig desk;
  EXPECT_EQ(config.desk.kb_watch_ms, desk.kb_watch_ms);
  EXPECT_EQ(config.desk.show_synthesized_text, desk.show_synthesized_text);
  // The desk's tunables: the declared defaults are desk::DeskOptions' own.
  const desk::DeskOptions tunables;
  const desk::DeskOptions& bound = config.desk.tunables;
  EXPECT_EQ(bound.worker_threads, tunables.worker_threads);
  EXPECT_EQ(bound.max_answer_tokens, tunables.max_answer_tokens);
  EXPECT_EQ(bound.answer_temperature, tunables.answer_temperature);
  EXPECT_EQ(bound.retrieved_entries, tunables.retrieved_entries);
  EXPECT_EQ(bound.prompt.articles, tunables.prompt.articles);
  EXPECT_EQ(bound.prompt.article_chars, tunables.prompt.article_chars);
  EXPECT_EQ(bound.prompt.history_chars, tunables.prompt.history_chars);
  EXPECT_EQ(bound.prompt.snippet_chars, tunables.prompt.snippet_chars);
  EXPECT_EQ(bound.history_messages, tunables.history_messages);
  EXPECT_EQ(bound.fallback_citations, tunables.fallback_citations);
  EXPECT_EQ(bound.max_question_characters, tunables.max_question_characters);
  EXPECT_EQ(bound.low_confidence_turns, tunables.low_confidence_turns);
  EXPECT_EQ(bound.max_queued_turns, tunables.max_queued_turns);
  EXPECT_EQ(bound.max_waiting_per_conversation, tunables.max_waiting_per_conversation);
  EXPECT_EQ(bound.waiting_listed, tunables.waiting_listed);
  EXPECT_EQ(bound.semantic_cache_entries, tunables.semantic_cache_entries);
  EXPECT_EQ(config.upstream.timeout_s, engine::upstream::UpstreamOptions().timeout_s);
  EXPECT_EQ(config.log_level, spdlog::level::info);
  EXPECT_EQ(config.demo_preset, "smollm2-135m");
  EXPECT_EQ(config.shutdown_grace, std::chrono::seconds(10));
  EXPECT_EQ(config.cross_origin.describe(), http::CrossOrigin().describe());
}

TEST(ServeConfig, TheEnginesBoundsAreRefusedByNameNotClamped) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--parallel", "0"}, "--parallel must be between 1 and 128"},
      {{"--parallel", "129"}, "--parallel must be between 1 and 128"},
      {{"--prefix-cache-entries", "-1"}, "--prefix-cache-entries must be between 0 and 128"},
      {{"--prefix-cache-entries", "129"}, "--prefix-cache-entries must be between 0 and 128"},
      {{"--ctx-size", "255"}, "--ctx-size must be at least 256"},
      {{"--step-tokens", "15"}, "--step-tokens must be at least 16"},
      {{"--prefix-cache-cells", "-1"}, "--prefix-cache-cells must not be negative"},
  };
  for (const auto& [args, expected] : cases) {
    EXPECT_EQ(refusal(args), expected) << args.front() << " " << args.back();
  }
  EXPECT_EQ(refusal({"--parallel", "128", "--prefix-cache-entries", "128"}), "(accepted)");
}

TEST(ServeConfig, TheDesksTunablesAreBoundAndRefusedOutOfRange) {
  ServeConfig config;
  ASSERT_TRUE(serve({"--retrieved-entries", "8", "--fallback-citations", "8",
                     "--answer-temperature", "0.7", "--history-messages", "0"},
                    config)
                  .ok());
  EXPECT_EQ(config.desk.tunables.retrieved_entries, 8);
  EXPECT_EQ(config.desk.tunables.fallback_citations, 8u);
  EXPECT_EQ(config.desk.tunables.answer_temperature, 0.7);
  EXPECT_EQ(config.desk.tunables.history_messages, 0u);
  EXPECT_EQ(refusal({"--retrieved-entries", "0"}), "--retrieved-entries must be between 1 and 50");
  EXPECT_EQ(refusal({"--answer-temperature", "2.5"}),
            "--answer-temperature must be between 0 and 2");
  EXPECT_EQ(refusal({"--fallback-citations", "6"}),
            "--fallback-citations 6 is more than --retrieved-entries 5: a fallback offers some of "
            "the entries retrieved");
}

TEST(ServeConfig, PerSequenceCachesAtMostParallelPrefixesAndDefaultsToThat) {
  const std::string why =
      refusal({"--kv-layout", "per-sequence", "--parallel", "8", "--prefix-cache-entries", "9"});
  EXPECT_EQ(why.rfind("--prefix-cache-entries 9 is more than --parallel 8: with --kv-layout "
                      "per-sequence",
                      0),
            0u)
      << why;

  ServeConfig left_out;
  ASSERT_TRUE(serve({"--kv-layout", "per-sequence", "--parallel", "8"}, left_out).ok());
  EXPECT_EQ(left_out.engine.prefix_cache_entries, 8);
  ServeConfig given;
  ASSERT_TRUE(
      serve({"--kv-layout", "per-sequence", "--parallel", "8", "--prefix-cache-entries", "3"},
            given)
          .ok());
  EXPECT_EQ(given.engine.prefix_cache_entries, 3);
  ServeConfig unified;  // one buffer for all: the cache is bounded in cells, not by --parallel
  ASSERT_TRUE(serve({"--parallel", "8", "--prefix-cache-entries", "40"}, unified).ok());
  EXPECT_EQ(unified.engine.prefix_cache_entries, 40);

  const ConfigFile file(
      "[engine]\nkv-layout = \"per-sequence\"\nparallel = 4\n"
      "prefix-cache-entries = 5\n");
  const std::string from_file = refusal({"--config", file.path()});
  EXPECT_EQ(from_file.rfind(file.path() + ":4: 'engine.prefix-cache-entries' 5 is more than", 0),
            0u)
      << from_file;
}

TEST(ServeConfig, ValuesLandTranslatedInTheirTargets) {
  ServeConfig config;
  ASSERT_TRUE(serve({"--aging-ms",
                     "250",
                     "--idle-timeout",
                     "5",
                     "--batch-window-ms",
                     "7",
                     "--early-release-ms",
                     "3",
                     "--shutdown-grace",
                     "0",
                     "--queue-limit-high",
                     "1",
                     "--queue-limit-normal",
                     "2",
                     "--queue-limit-low",
                     "0",
                     "--batching",
                     "dynamic",
                     "--kv-layout",
                     "per-sequence",
                     "--flash-attn",
                     "off",
                     "--kv-key-type",
                     "q8_0",
                     "--shared-prefix-attention",
                     "off",
                     "--weight-repack",
                     "off",
                     "--preemption",
                     "recompute",
                     "--log-level",
                     "warning",
                     "--cors-origins",
                     "https://shop.example.com",
                     "--warmup=false"},
                    config)
                  .ok());
  EXPECT_EQ(config.engine.scheduling.aging, std::chrono::milliseconds(250));
  EXPECT_EQ(config.http.idle_timeout, std::chrono::seconds(5));
  EXPECT_EQ(config.engine.scheduling.batch_window, std::chrono::milliseconds(7));
  EXPECT_EQ(config.engine.scheduling.early_release_after, std::chrono::milliseconds(3));
  EXPECT_EQ(config.shutdown_grace, std::chrono::seconds(0));
  EXPECT_EQ(config.engine.admission.queue_limit, (std::array<int, 3>{1, 2, 0}));
  EXPECT_EQ(config.engine.scheduling.batching, sched::BatchingMode::kDynamic);
  EXPECT_EQ(config.engine.kv_layout, EngineOptions::KvLayout::kPerSequence);
  EXPECT_EQ(config.engine.flash_attention, EngineOptions::FlashAttention::kOff);
  EXPECT_EQ(config.engine.key_type, EngineOptions::CacheType::kQ8_0);
  EXPECT_FALSE(config.engine.shared_prefix_attention);
  EXPECT_FALSE(config.engine.weight_repack);
  EXPECT_FALSE(config.engine.warmup);
  EXPECT_EQ(config.engine.preemption, EngineOptions::Preemption::kRecompute);
  EXPECT_EQ(config.log_level, spdlog::level::warn);
  EXPECT_TRUE(config.cross_origin.allows("https://shop.example.com"));
  EXPECT_FALSE(config.cross_origin.allows("https://other.example.com"));
}

TEST(ServeConfig, TheFileSetsOptionsAndKeysAndTheirTenantsWeights) {
  const ConfigFile file(
      "[engine]\nparallel = 4\nkv-layout = \"per-sequence\"\n"
      "[scheduling]\naging-ms = 100\n[http]\nidle-timeout = 3\n[desk]\ndesk-workers = 3\n"
      "[[api_keys]]\nkey = \"sk-a\"\ntenant = \"shop\"\nweight = 3.0\n");
  ServeConfig config;
  ASSERT_TRUE(serve({"--config", file.path(), "--parallel", "6"}, config).ok());
  EXPECT_EQ(config.engine.parallel, 6);  // the flag wins
  EXPECT_EQ(config.engine.kv_layout, EngineOptions::KvLayout::kPerSequence);
  EXPECT_EQ(config.engine.prefix_cache_entries, 6);
  EXPECT_EQ(config.engine.scheduling.aging, std::chrono::milliseconds(100));
  EXPECT_EQ(config.http.idle_timeout, std::chrono::seconds(3));
  EXPECT_EQ(config.desk.tunables.worker_threads, 3);
  ASSERT_EQ(config.api_keys.size(), 1u);
  EXPECT_EQ(config.api_keys[0].tenant, "shop");
  EXPECT_EQ(config.engine.scheduling.tenant_weights.at("shop"), 3.0);
}

TEST(ServeConfig, KeysAreKeptAsDigestsWithTheirRoles) {
  const ConfigFile file(
      "[[api_keys]]\nkey = \"sk-shop-widget-0001\"\ntenant = \"shop\"\n\n"
      "[[api_keys]]\nkey = \"sk-shop-agents-0001\"\ntenant = \"shop\"\nrole = \"agent\"\n");
  ServeConfig config;
  ASSERT_TRUE(serve({"--config", file.path()}, config).ok());
  ASSERT_EQ(config.api_keys.size(), 2u);
  EXPECT_TRUE(config.api_keys[0].digest.matches(api::KeyDigest::of("sk-shop-widget-0001")));
  EXPECT_EQ(config.api_keys[0].role, api::KeyRole::kCustomer);
  EXPECT_TRUE(config.api_keys[1].digest.matches(api::KeyDigest::of("sk-shop-agents-0001")));
  EXPECT_FALSE(config.api_keys[1].digest.matches(api::KeyDigest::of("sk-shop-widget-0001")));
  EXPECT_EQ(config.api_keys[1].role, api::KeyRole::kAgent);
}

TEST(ServeConfig, AnUnknownRoleOrAnEmptyKeyIsRefusedNamingTheLine) {
  const ConfigFile role("[[api_keys]]\nkey = \"sk-a\"\nrole = \"admin\"\n");
  EXPECT_NE(refusal({"--config", role.path()}).find(role.path() + ":3: api_keys.role has a wrong"),
            std::string::npos)
      << refusal({"--config", role.path()});
  const ConfigFile empty("[[api_keys]]\nkey = \"\"\n");
  EXPECT_NE(refusal({"--config", empty.path()}).find(empty.path() + ":1: an api_keys entry needs"),
            std::string::npos)
      << refusal({"--config", empty.path()});
}

TEST(ServeConfig, EveryOptionHasItsOwnKeyAndIsInTheHelp) {
  CLI::App app;
  ServeConfig config;
  ServeOptions options(app, config);
  const std::string help = app.help();
  std::set<std::string> keys;
  const std::set<std::string> sections = {"log",        "trace", "engine",  "upstream", "http",
                                          "scheduling", "desk",  "anomaly", "cluster",  "admin"};
  for (const DeclaredOption* option : options.table().options()) {
    EXPECT_TRUE(keys.insert(option->key()).second) << option->key() << " is declared twice";
    EXPECT_TRUE(sections.contains(option->key().substr(0, option->key().find('.'))))
        << option->key();
    EXPECT_NE(help.find(option->flag() + " "), std::string::npos) << option->flag();
  }
  for (const char* key :
       {"log.log-level", "trace.otlp-endpoint", "engine.parallel", "upstream.upstream", "http.port",
        "scheduling.aging-ms", "desk.kb", "anomaly.anomaly", "cluster.role", "admin.admin-key-file",
        "admin.faults"}) {
    EXPECT_TRUE(keys.contains(key)) << key;
  }
}

TEST(ServeConfig, TheAnomalyWatchIsOnByDefaultAndItsThresholdsAreChecked) {
  ServeConfig config;
  ASSERT_TRUE(serve({}, config).ok());
  EXPECT_TRUE(config.anomaly.on);
  EXPECT_EQ(config.anomaly.interval, std::chrono::milliseconds(1000));
  const obs::anomaly::AlertOptions alert;
  EXPECT_EQ(config.anomaly.monitor.alert.raise, alert.raise);
  EXPECT_EQ(config.anomaly.monitor.alert.clear, alert.clear);
  EXPECT_EQ(config.anomaly.monitor.alert.clear_after, alert.clear_after);
  const obs::LeakOptions leak;
  EXPECT_EQ(config.anomaly.leak.alert_mb_per_1000, leak.alert_mb_per_1000);
  EXPECT_EQ(config.anomaly.leak.every_requests, leak.every_requests);
  EXPECT_EQ(config.anomaly.leak.warm_up_requests, leak.warm_up_requests);

  ServeConfig off;
  ASSERT_TRUE(
      serve({"--anomaly", "off", "--anomaly-interval-ms", "250", "--latency-window-seconds", "15"},
            off)
          .ok());
  EXPECT_FALSE(off.anomaly.on);
  EXPECT_EQ(off.anomaly.interval, std::chrono::milliseconds(250));
  EXPECT_EQ(off.anomaly.latency_window, std::chrono::seconds(15));
  EXPECT_EQ(config.anomaly.latency_window, std::chrono::seconds(60));
  EXPECT_EQ(refusal({"--latency-window-seconds", "0"}),
            "--latency-window-seconds must be between 1 and 3600");

  EXPECT_EQ(refusal({"--anomaly", "maybe"}), "--anomaly must be on or off");
  EXPECT_EQ(refusal({"--anomaly-raise", "0.3"}), "--anomaly-raise must be between 0.5 and 1");
  EXPECT_EQ(refusal({"--anomaly-raise", "0.7", "--anomaly-clear", "0.75"}),
            "--anomaly-clear 0.75 is above --anomaly-raise 0.7: an alert clears below where it "
            "rises");
  EXPECT_EQ(refusal({"--leak-every-requests", "0"}), "--leak-every-requests must be at least 1");

  const ConfigFile file("[anomaly]\nanomaly-raise = 0.9\nanomaly-clear-after = 5\n");
  ServeConfig from_file;
  ASSERT_TRUE(serve({"--config", file.path()}, from_file).ok());
  EXPECT_EQ(from_file.anomaly.monitor.alert.raise, 0.9);
  EXPECT_EQ(from_file.anomaly.monitor.alert.clear_after, 5u);
}

TEST(ServeConfig, TheAdminKeyComesFromItsFileAndFaultsNeedIt) {
  ServeConfig none;
  ASSERT_TRUE(serve({}, none).ok());
  EXPECT_FALSE(none.admin_key.configured());
  EXPECT_FALSE(none.faults);

  const ConfigFile key("an-admin-key-of-some-length\n");  // a file like any other
  ServeConfig keyed;
  ASSERT_TRUE(serve({"--admin-key-file", key.path(), "--faults"}, keyed).ok());
  EXPECT_TRUE(keyed.admin_key.configured());
  EXPECT_TRUE(keyed.faults);

  EXPECT_EQ(refusal({"--faults"}),
            "--faults needs --admin-key-file: faults are armed through /admin/faults, which the "
            "admin key guards");
  const ConfigFile short_key("short\n");
  EXPECT_NE(refusal({"--admin-key-file", short_key.path()}).find(short_key.path()),
            std::string::npos);
  EXPECT_NE(refusal({"--admin-key-file", "/nonexistent/key"}).find("--admin-key-file"),
            std::string::npos);

  const ConfigFile file("[admin]\nadmin-key-file = \"" + key.path() + "\"\nfaults = true\n");
  ServeConfig from_file;
  ASSERT_TRUE(serve({"--config", file.path()}, from_file).ok());
  EXPECT_TRUE(from_file.admin_key.configured());
  EXPECT_TRUE(from_file.faults);
}

TEST(ServeConfig, AnUpstreamNamedIsAModelVersionBesideTheFiles) {
  ServeConfig both;
  ASSERT_TRUE(serve({"--model", "v1=/srv/m1.gguf", "--upstream", "remote=http://10.0.0.5:8000",
                     "--upstream-model", "big"},
                    both)
                  .ok());
  ASSERT_EQ(both.models.size(), 2u);
  EXPECT_EQ(both.models[0].path, "/srv/m1.gguf");
  EXPECT_EQ(both.models[1].name, "remote");
  EXPECT_EQ(both.models[1].upstream, "http://10.0.0.5:8000");
  EXPECT_TRUE(both.models[1].path.empty());
  EXPECT_TRUE(both.upstream.url.empty());  // not the single upstream of old
  EXPECT_EQ(both.upstream.model, "big");   // the default model to ask upstreams for

  ServeConfig alone;
  ASSERT_TRUE(serve({"--upstream", "remote=http://10.0.0.5:8000"}, alone).ok());
  ASSERT_EQ(alone.models.size(), 1u);
  ServeConfig unnamed;  // as before: the whole server forwards
  ASSERT_TRUE(serve({"--upstream", "http://10.0.0.5:8000/x?a=b"}, unnamed).ok());
  EXPECT_TRUE(unnamed.models.empty());
  EXPECT_EQ(unnamed.upstream.url, "http://10.0.0.5:8000/x?a=b");

  EXPECT_NE(refusal({"--model", "/srv/m1.gguf", "--upstream", "r=http://h:1"})
                .find("name the --model too"),
            std::string::npos);
  EXPECT_NE(refusal({"--model", "v1=/srv/m1.gguf", "--upstream", "http://h:1"}).find("not both"),
            std::string::npos);
  EXPECT_NE(refusal({"--upstream", "r=https://h:1"}).find("--upstream r=https://h:1"),
            std::string::npos);
  EXPECT_NE(refusal({"--model", "r=/srv/m1.gguf", "--upstream", "r=http://h:1"}).find("twice"),
            std::string::npos);

  const ConfigFile file(
      "[[models]]\nname = \"v1\"\npath = \"/srv/m1.gguf\"\n"
      "[[models]]\nname = \"remote\"\nupstream = \"http://h:1\"\nupstream-model = \"m\"\n");
  ServeConfig tables;
  ASSERT_TRUE(serve({"--config", file.path()}, tables).ok());
  ASSERT_EQ(tables.models.size(), 2u);
  EXPECT_EQ(tables.models[1].upstream, "http://h:1");
  EXPECT_EQ(tables.models[1].upstream_model, "m");

  const ConfigFile with_sha("[[models]]\nname = \"r\"\nupstream = \"http://h:1\"\nsha256 = \"" +
                            std::string(64, 'a') + "\"\n");
  EXPECT_NE(refusal({"--config", with_sha.path()}).find(with_sha.path() + ":1:"),
            std::string::npos);
  const ConfigFile both_given(
      "[[models]]\nname = \"r\"\nupstream = \"http://h:1\"\npath = \"/srv/m.gguf\"\n");
  EXPECT_NE(refusal({"--config", both_given.path()}).find("not both"), std::string::npos);
  const ConfigFile bad_url("[[models]]\nname = \"r\"\nupstream = \"ftp://h\"\n");
  EXPECT_NE(refusal({"--config", bad_url.path()}).find(bad_url.path() + ":3:"), std::string::npos);
}

}  // namespace
}  // namespace supportd::app
