// A desk served in-process for tests: the tiny synthesized model, the built-in demo knowledge
// base imported into a fresh data directory, the embedded SQLite store, content rules, and the
// HTTP server on an ephemeral port.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>
#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

#include "api/access.h"
#include "api/routes.h"
#include "api/serving_metrics.h"
#include "desk/demo_knowledge.h"
#include "desk/desk.h"
#include "engine/llama/llama_engine.h"
#include "engine/router/router_engine.h"
#include "http/server.h"
#include "http_client.h"
#include "kb/live_knowledge_base.h"
#include "obs/faults/fault_injector.h"
#include "obs/metrics.h"
#include "obs/trace/tracer.h"
#include "store/open_stores.h"
#include "test_model.h"

namespace supportd::testing {

// What a test may change about the desk it is served.
struct DeskServerOptions {
  // Let the desk show generated text even though the model is synthesized (to exercise the
  // generation path; its text is meaningless).
  bool generate = false;
  std::vector<std::string> handoff_topics;
  std::function<void(engine::llama::EngineOptions&)> configure_engine;  // may be empty
  http::CrossOrigin cross_origin;        // which other sites' pages may call (default: any)
  obs::trace::Tracer* tracer = nullptr;  // traces every request (outlives the server); or null
  obs::faults::FaultInjector* faults = nullptr;  // a drill's faults on the turns (outlives it)
  std::vector<api::ApiKey> keys;  // who may call (none: everyone, as the tenant "anonymous")
  std::string admin_key;          // what the admin routes need (empty: they answer 404)
  // Not empty: the engine is a model router (engine/router) of these versions, each an engine
  // of the same model, the first taking the deployment "default" whole, as serve with
  // --model NAME=PATH ... does; router() reaches it.
  std::vector<std::string> versions;
  int max_answer_tokens = 256;  // DeskOptions::max_answer_tokens: a generated answer's length
  // Tenants with their own content rules: tenant -> the rule file's text (filter/rule_file.h).
  // Every other tenant has the default rules (refuse "bomb" and "炸弹").
  std::map<std::string, std::string> tenant_rules;
};

// A request's headers.
using Headers = std::vector<std::pair<std::string, std::string>>;

// "Authorization: Bearer KEY".
inline Headers bearer(const std::string& key) {
  return {{"Authorization", "Bearer " + key}};
}

class DeskServer {
 public:
  explicit DeskServer(DeskServerOptions given = {}) {
    namespace fs = std::filesystem;
    data_ = fs::temp_directory_path() /
            ("supportd-desk-test-" + std::to_string(getpid()) + "-" + std::to_string(counter_++));
    fs::remove_all(data_);
    fs::create_directories(data_);
    engine::llama::EngineOptions options;
    options.model_path = synthesized_model();
    options.context_cells = 16384;
    options.parallel = 4;
    options.warmup = false;
    if (given.configure_engine) given.configure_engine(options);
    engine_ = std::move(engine::llama::LlamaEngine::create(options)).value();
    if (!given.versions.empty()) {
      auto router = std::make_unique<engine::router::RouterEngine>();
      for (const std::string& version : given.versions) {
        auto engine = engine_ ? std::move(engine_)
                              : std::move(engine::llama::LlamaEngine::create(options)).value();
        EXPECT_TRUE(router->add_version(version, std::move(engine), {}).ok());
      }
      router_engine_ = router.get();
      engine_ = std::move(router);
    }

    store::StoreConfig store_config;
    store_config.data_dir = data_;
    stores_ = std::move(store::open_stores(store_config)).value();
    const std::string kb_dir = (data_ / "kb").string();
    auto demo = desk::ensure_demo_knowledge(kb_dir, nullptr);
    EXPECT_TRUE(demo.ok()) << (demo.ok() ? "" : demo.error().message);
    knowledge_ = std::move(kb::LiveKnowledgeBase::open(kb_dir)).value();

    const std::string rules_file = (data_ / "default.rules").string();
    std::ofstream(rules_file) << "notice: Sorry, I can't help with that here.\n"
                                 "refuse violence word: bomb\n"
                                 "refuse violence word: 炸弹\n";
    desk::TenantRules rules;
    rules.fallback = std::move(filter::RuleSet::load(rules_file)).value();
    for (const auto& [tenant, text] : given.tenant_rules) {
      const std::string file = (data_ / (tenant + ".rules")).string();
      std::ofstream(file) << text;
      auto loaded = filter::RuleSet::load(file);
      EXPECT_TRUE(loaded.ok()) << (loaded.ok() ? "" : loaded.error().message);
      if (loaded.ok()) rules.tenants[tenant] = std::move(loaded).value();
    }
    desk::DeskOptions desk_options;
    desk_options.generate = given.generate;
    desk_options.max_answer_tokens = given.max_answer_tokens;
    desk_options.handoff_topics = std::move(given.handoff_topics);
    desk_ = std::make_unique<desk::Desk>(desk_options, *engine_, *knowledge_, stores_, rules,
                                         registry_, given.faults);
    metrics_ = std::make_unique<api::ServingMetrics>(registry_, *engine_);
    services_ = std::make_unique<api::Services>(
        api::Services{engine_.get(), nullptr, metrics_.get(), desk_.get(), given.tracer});
    services_->cross_origin = std::move(given.cross_origin);
    if (!given.keys.empty()) {
      access_ = std::make_unique<api::Access>(std::move(given.keys));
      services_->access = access_.get();
    }
    if (!given.admin_key.empty()) services_->admin_key = api::AdminKey::of(given.admin_key);
    router_ = std::make_unique<http::Router>(api::make_router(*services_));
    http::ServerOptions server_options;
    server_options.port = 0;
    server_ =
        std::make_unique<http::Server>(api::serve_routes_with(*services_, server_options),
                                       [this](http::Request& r) { return router_->dispatch(r); });
    EXPECT_TRUE(server_->start().ok());
  }
  ~DeskServer() { stop(); }

  // Stops serving: the server, the engine, the desk (its turns end). Idempotent.
  void stop() {
    if (!server_) return;
    server_->stop();
    engine_->shutdown();
    desk_.reset();
    server_.reset();
    std::error_code ec;
    std::filesystem::remove_all(data_, ec);
  }

  std::uint16_t port() const { return server_->port(); }
  desk::Desk& desk() { return *desk_; }
  // The model router when DeskServerOptions::versions named some; null otherwise.
  engine::router::RouterEngine* router() { return router_engine_; }
  obs::Registry& registry() { return registry_; }

  HttpResult post(const std::string& target, const boost::json::value& body,
                  const Headers& headers = {}) {
    return http_request(port(), "POST", target, boost::json::serialize(body), headers);
  }
  HttpResult get(const std::string& target, const Headers& headers = {}) {
    return http_request(port(), "GET", target, {}, headers);
  }

  // A new conversation of `user`, started with `headers` (a tenant's key, when keys are set).
  std::string new_session(const Headers& headers = {}, const std::string& user = "alice") {
    const auto r = post("/v1/sessions", boost::json::object{{"user", user}}, headers);
    EXPECT_EQ(r.status, 201) << r.body;
    return std::string(boost::json::parse(r.body).at("session").as_string());
  }

 private:
  static inline int counter_ = 0;
  std::filesystem::path data_;
  obs::Registry registry_;
  std::unique_ptr<engine::Engine> engine_;
  engine::router::RouterEngine* router_engine_ = nullptr;  // engine_, when it is a router
  store::Stores stores_;
  std::unique_ptr<kb::LiveKnowledgeBase> knowledge_;
  std::unique_ptr<desk::Desk> desk_;
  std::unique_ptr<api::ServingMetrics> metrics_;
  std::unique_ptr<api::Access> access_;
  std::unique_ptr<api::Services> services_;
  std::unique_ptr<http::Router> router_;
  std::unique_ptr<http::Server> server_;
};

// The stages an answer's `timings` name, in the order they ran.
inline std::vector<std::string> stages_of(const boost::json::value& answer) {
  std::vector<std::string> stages;
  for (const auto& timing : answer.at("timings").as_object())
    stages.emplace_back(timing.key());
  return stages;
}

}  // namespace supportd::testing
