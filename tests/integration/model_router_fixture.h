// The fixture of the model-router server tests (model_router_test.cpp, model_shadow_test.cpp,
// model_loading_test.cpp):
// a RouterEngine of synthesized models (v1: seed 42, v2: seed 43) behind the real routes on
// an ephemeral port, with the admin key, /metrics and /v1/stats, fault injection for drills,
// and POST /admin/models loading as serve does; helpers to ask it things as a client would.
#pragma once

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <optional>
#include <thread>

#include "api/fault_handlers.h"
#include "api/routes.h"
#include "api/serving_metrics.h"
#include "app/router_setup.h"
#include "engine/llama/llama_engine.h"
#include "engine/router/router_engine.h"
#include "engine/router/router_metrics.h"
#include "http/server.h"
#include "http_client.h"
#include "model/fingerprint.h"
#include "obs/faults/fault_injector.h"
#include "obs/metrics.h"
#include "test_model.h"

namespace supportd::testing {

inline const std::string kKey = "rollout-admin-key-0123456789";
using Headers = std::vector<std::pair<std::string, std::string>>;
inline const Headers kAdmin = {{"Authorization", "Bearer " + kKey},
                               {"Content-Type", "application/json"}};
inline const Headers kJson = {{"Content-Type", "application/json"}};

class ModelRouterFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    // Every version's engine options, those of POST /admin/models's too (app/router_setup.h).
    serve_config_.engine.threads = 0;
    serve_config_.engine.parallel = 2;
    serve_config_.engine.context_cells = 1024;
    serve_config_.engine.warmup = false;
    router_ = std::make_unique<engine::router::RouterEngine>();
    add("v1", testing::synthesized_model("tiny", "f16", true, 42), "");
    add("v2", testing::synthesized_model("tiny", "f16", true, 43), "");
  }
  // Adds a version of `path`; `expected`: the SHA-256 the configuration states. Returns its
  // engine (the router owns it).
  engine::Engine* add(const std::string& name, const std::string& path,
                      const std::string& expected) {
    engine::llama::EngineOptions options = serve_config_.engine;
    options.model_path = path;
    auto created = engine::llama::LlamaEngine::create(options);
    EXPECT_TRUE(created.ok()) << created.error().message;
    auto print = model::fingerprint_model(path);
    EXPECT_TRUE(print.ok()) << print.error().message;
    if (!created.ok() || !print.ok()) return nullptr;
    engine::Engine* engine = created->get();
    engine::router::VersionFacts facts{print->path,
                                       print->sha256,
                                       print->bytes,
                                       print->architecture,
                                       print->quantization,
                                       print->chat_template_sha256,
                                       expected};
    EXPECT_TRUE(router_->add_version(name, std::move(created).value(), std::move(facts)).ok());
    return engine;
  }
  void start() {
    services_.engine = router_.get();
    services_.router = router_.get();
    services_.admin_key = api::AdminKey::of(kKey);
    metrics_.emplace(registry_, *router_);
    services_.metrics = &*metrics_;
    engine::router::expose_router_metrics(registry_, *router_);
    services_.faults = &faults_;
    // As serve does: the shadows meet the drill's faults as requests of the class "low".
    router_->configure_shadows(shadow_limits_, [this](engine::GenerationRequest& copy) {
      return !api::inject_before_submit(services_, copy).has_value();
    });
    services_.load_model = [this](const engine::router::VersionSpec& spec) {
      return app::load_at_run_time(serve_config_, *router_, spec);
    };
    routes_.emplace(api::make_router(services_));
    http::ServerOptions options;
    options.port = 0;
    options.threads = 2;
    server_.emplace(api::serve_routes_with(services_, options),
                    [this](http::Request& r) { return routes_->dispatch(r); });
    ASSERT_TRUE(server_->start().ok());
  }
  void TearDown() override {
    if (server_) server_->stop();
    router_->shutdown();
  }
  // The "model" of a completion's answer; `fields`: more of the body (",\"model\":\"v2\"").
  std::string served_by(const std::string& fields, const Headers& headers = kJson) {
    const HttpResult reply =
        http_request(server_->port(), "POST", "/v1/completions",
                     R"({"prompt":"Where is my parcel?","max_tokens":2)" + fields + "}", headers);
    EXPECT_EQ(reply.status, 200) << reply.body;
    if (reply.status != 200) return {};
    return std::string(boost::json::parse(reply.body).at("model").as_string());
  }
  HttpResult admin(const std::string& method, const std::string& target,
                   const std::string& body = {}) {
    return http_request(server_->port(), method, target, body, kAdmin);
  }
  // The 400's param for `body` sent to an admin route (by default PUT /admin/routes/default).
  std::string refused_field(const std::string& body,
                            const std::string& target = "/admin/routes/default",
                            const std::string& method = "PUT") {
    const HttpResult reply = admin(method, target, body);
    EXPECT_EQ(reply.status, 400) << body << " -> " << reply.body;
    if (reply.status != 400) return {};
    const boost::json::value error =
        boost::json::parse(reply.body).at("error");  // a copy: parse's is gone
    const boost::json::value& param = error.at("param");
    return param.is_string() ? std::string(param.as_string()) : std::string();
  }

  // In flight on `version`, as GET /admin/models says.
  std::int64_t in_flight(const std::string& version) {
    const HttpResult reply = admin("GET", "/admin/models");
    const boost::json::value body = boost::json::parse(reply.body);
    for (const boost::json::value& v : body.at("versions").as_array()) {
      if (v.at("name").as_string() == version) return v.at("in_flight").as_int64();
    }
    return -1;  // not there (unloaded)
  }

  // A stream pinned to `version` that lasts (a drill's 30 ms more per decode step, 40 tokens:
  // over a second), on a thread of its own, its answer into `out`; returns once it is in
  // flight. The caller joins the thread.
  std::thread long_stream(const std::string& version, HttpResult& out) {
    EXPECT_EQ(admin("POST", "/admin/faults",
                    R"({"stage":"decode","kind":"delay","delay_ms":30,"percent":100})")
                  .status,
              201);
    std::thread client([this, version, &out] {
      out = http_request(server_->port(), "POST", "/v1/completions",
                         R"({"prompt":"Hello","max_tokens":40,"stream":true,"model":")" + version +
                             R"(","ignore_eos":true})",
                         kJson);
    });
    for (int i = 0; i < 1000 && in_flight(version) < 1; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return client;
  }
  // A client's GET of `target` (no key), its body; "" when not 200.
  std::string get(const std::string& target) {
    const HttpResult reply = http_request(server_->port(), "GET", target);
    EXPECT_EQ(reply.status, 200) << target << " -> " << reply.body;
    return reply.status == 200 ? reply.body : std::string();
  }
  // Polls GET /admin/models until `version`'s state is `state` (up to ~60 s); the last read.
  std::string wait_for_state(const std::string& version, const std::string& state) {
    std::string seen;
    for (int i = 0; i < 6000; ++i) {
      const boost::json::value listed = version_json(version);
      seen = listed.is_null() ? "gone" : std::string(listed.at("state").as_string());
      if (seen == state) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return seen;
  }
  // `version` as GET /admin/models lists it (null when not there).
  boost::json::value version_json(const std::string& version) {
    const boost::json::value body = boost::json::parse(admin("GET", "/admin/models").body);
    for (const boost::json::value& v : body.at("versions").as_array()) {
      if (v.at("name").as_string() == version) return v;
    }
    return nullptr;
  }
  // Polls `version`'s figure `field` of its "shadow" until `done` holds it (up to ~20 s); the
  // last value read.
  template <typename Done>
  std::int64_t wait_for_shadow(const std::string& version, const std::string& field, Done done) {
    std::int64_t value = -1;
    for (int i = 0; i < 2000; ++i) {
      value = version_json(version).at("shadow").at(field).as_int64();
      if (done(value)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return value;
  }

  obs::Registry registry_;
  std::optional<api::ServingMetrics> metrics_;
  obs::faults::FaultInjector faults_{obs::faults::FaultLimits{}, &registry_};
  engine::router::ShadowLimits shadow_limits_;  // set before start()
  app::ServeConfig serve_config_;
  std::unique_ptr<engine::router::RouterEngine> router_;
  api::Services services_;
  std::optional<http::Router> routes_;
  std::optional<http::Server> server_;
};

}  // namespace supportd::testing
