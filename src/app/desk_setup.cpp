// build_desk(): the desk's parts assembled in order for `serve`: the data directory, the stores,
// the sentence encoder, the knowledge base (the demo imported on first start), its watcher, the
// content rules per tenant, then the desk itself.
#include "app/desk_setup.h"

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include <spdlog/spdlog.h>

#include "desk/demo_knowledge.h"
#include "encoder/sentence_encoder.h"
#include "kb/analyze/embedder.h"

namespace supportd::app {
namespace fs = std::filesystem;

DeskParts::~DeskParts() {
  desk.reset();  // its workers finish first
  watcher.reset();
}

std::string data_dir_of(const DeskConfig& config) {
  if (!config.data_dir.empty()) return config.data_dir;
  if (const char* data = std::getenv("SUPPORTD_DATA")) return data;
  const char* home = std::getenv("HOME");
  return (fs::path(home != nullptr ? home : ".") / ".local/share/supportd").string();
}

namespace {

Result<desk::TenantRules> load_rules(const DeskConfig& config) {
  desk::TenantRules rules;
  if (!config.rules.empty()) {
    auto loaded = filter::RuleSet::load(config.rules);
    if (!loaded) return loaded.error();
    rules.fallback = *loaded;
  }
  if (!config.rules_dir.empty()) {
    std::error_code ec;
    for (const auto& file : fs::directory_iterator(config.rules_dir, ec)) {
      if (file.path().extension() != ".rules") continue;
      auto loaded = filter::RuleSet::load(file.path().string());
      if (!loaded) return loaded.error();
      rules.tenants[file.path().stem().string()] = *loaded;
    }
    if (ec)
      return Error::make(ErrorCode::kIo,
                         "cannot read --rules-dir " + config.rules_dir + ": " + ec.message());
  }
  return rules;
}

}  // namespace

Result<std::unique_ptr<DeskParts>> build_desk(const DeskConfig& config, engine::Engine& engine,
                                              obs::Registry& registry,
                                              obs::faults::FaultInjector* faults) {
  auto parts = std::make_unique<DeskParts>();
  const std::string data_dir = data_dir_of(config);
  std::error_code ec;
  fs::create_directories(data_dir, ec);
  if (ec)
    return Error::make(ErrorCode::kIo,
                       "cannot create the data directory " + data_dir + ": " + ec.message());

  store::StoreConfig stores;
  stores.data_dir = data_dir;
  stores.redis = config.redis;
  stores.postgres = config.postgres;
  stores.session_secret = config.session_secret;
  auto opened = store::open_stores(stores);
  if (!opened) return opened.error();
  parts->stores = std::move(opened).value();

  std::shared_ptr<const kb::Embedder> embedder;
  if (config.encoder != "off") {
    const std::string path =
        config.encoder.empty() ? encoder::SentenceEncoder::default_path() : config.encoder;
    auto opened_encoder = kb::open_sentence_encoder(path);
    if (opened_encoder) {
      embedder = std::move(opened_encoder).value();
    } else if (!config.encoder.empty()) {
      // Named by the operator: serving without it would hide a wrong path.
      return Error::make(opened_encoder.error().code,
                         "--encoder " + config.encoder + ": " + opened_encoder.error().message);
    } else {
      parts->warnings.push_back(opened_encoder.error().message +
                                "; the desk uses lexical search only");
    }
  }

  const std::string kb_dir =
      config.kb_dir.empty() ? (fs::path(data_dir) / "kb").string() : config.kb_dir;
  auto knowledge = kb::LiveKnowledgeBase::open(kb_dir, {embedder});
  const bool outdated_demo =
      knowledge && desk::is_outdated_demo(knowledge.value()->current()->manifest(), embedder.get());
  if ((!knowledge || outdated_demo) && config.kb_dir.empty()) {
    // The default directory holds no usable knowledge base yet, or the built-in demo imported
    // before the encoder was there: the demo goes there, with vectors when it can (loaded once
    // otherwise: only this case pays for the import and a second open).
    auto demo = desk::ensure_demo_knowledge(kb_dir, embedder);
    if (!demo) return demo.error();
    knowledge = kb::LiveKnowledgeBase::open(kb_dir, {embedder});
  }
  if (!knowledge) return knowledge.error();
  parts->knowledge = std::move(knowledge).value();
  for (const auto& w : parts->knowledge->current()->warnings())
    parts->warnings.push_back("knowledge base: " + w);
  if (config.kb_watch_ms > 0) {
    parts->watcher = std::make_unique<kb::KnowledgeBaseWatcher>(
        *parts->knowledge, std::chrono::milliseconds(config.kb_watch_ms),
        [](const Result<bool>& reloaded) {
          if (!reloaded) {
            spdlog::warn("knowledge base reload failed: {}", reloaded.error().message);
          } else if (*reloaded) {
            spdlog::info("knowledge base reloaded");
          }
        });
  }

  if (embedder) {
    // Texts longer than the model's limit are embedded from their beginning only: counted.
    auto& truncated = registry
                          .counter("supportd_embedder_truncated_texts_total",
                                   "Texts cut to the sentence model's token limit before embedding")
                          .get();
    registry.on_collect([embedder, &truncated, seen = std::make_shared<std::uint64_t>(0)] {
      const std::uint64_t now = embedder->truncated();
      if (now > *seen) truncated.increment(static_cast<double>(now - *seen));
      *seen = now;
    });
  }

  auto rules = load_rules(config);
  if (!rules) return rules.error();

  desk::DeskOptions options = config.tunables;
  options.generate = !engine.model().meaningless_text || config.show_synthesized_text;
  std::stringstream topics(config.handoff_topics);
  for (std::string topic; std::getline(topics, topic, ',');) {
    if (!topic.empty()) options.handoff_topics.push_back(topic);
  }
  parts->desk =
      std::make_unique<desk::Desk>(std::move(options), engine, *parts->knowledge, parts->stores,
                                   std::move(rules).value(), registry, faults);
  if (engine.model().meaningless_text && config.show_synthesized_text) {
    parts->warnings.push_back(
        "the model is synthesized (random weights) and --show-synthesized-text is on: the desk "
        "shows generated text that is meaningless (for tests and benchmarks only)");
  } else if (engine.model().meaningless_text) {
    parts->warnings.push_back(
        "the model is synthesized (random weights): the desk answers from the knowledge base "
        "only and never shows generated text");
  }
  for (const auto& w : parts->warnings)
    spdlog::warn("desk: {}", w);
  spdlog::info("desk: knowledge base {} ({} entries), data in {}",
               parts->knowledge->current()->version(),
               parts->knowledge->current()->entries().size(), data_dir);
  return parts;
}

}  // namespace supportd::app
