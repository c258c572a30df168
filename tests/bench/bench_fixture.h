// What bench's integration tests share (bench_integration_test.cpp, token_timing_test.cpp):
// supportd wired as `serve` wires it, in the test process on an ephemeral port with the tiny
// synthesized model, and the BenchTest fixture that starts one for the suite and runs and
// checks small benchmarks against it.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "api/access.h"
#include "api/routes.h"
#include "api/serving_metrics.h"
#include "bench/report.h"
#include "bench/runner.h"
#include "engine/llama/llama_engine.h"
#include "http/server.h"
#include "obs/metrics.h"
#include "test_model.h"

namespace supportd::bench {

// supportd as `serve` wires it: engine, keys, metrics (/v1/stats), router, HTTP server.
class InProcessServer {
 public:
  InProcessServer(int parallel, std::array<int, 3> queue_limit, std::vector<api::ApiKey> keys) {
    engine::llama::EngineOptions options;
    options.model_path = testing::synthesized_model();
    options.threads = 0;
    options.context_cells = 32768;
    options.parallel = parallel;
    options.step_tokens = 2048;
    options.admission.queue_limit = queue_limit;
    // Waiting requests never age into a higher class: these tests measure the client, and a
    // thousand queued requests must not turn into a preemption storm in the engine.
    options.scheduling.aging = std::chrono::milliseconds(0);
    auto created = engine::llama::LlamaEngine::create(options);
    if (!created.ok()) throw std::runtime_error(created.error().message);
    engine_ = std::move(created).value();
    access_ = std::make_unique<api::Access>(std::move(keys));
    metrics_ = std::make_unique<api::ServingMetrics>(registry_, *engine_);
    services_ = api::Services{engine_.get(), access_.get(), metrics_.get()};
    router_ = std::make_unique<http::Router>(api::make_router(services_));
    http::ServerOptions server_options;
    server_options.port = 0;
    server_options.threads = 1;
    server_ = std::make_unique<http::Server>(
        server_options, [this](http::Request& r) { return router_->dispatch(r); });
    if (!server_->start().ok()) throw std::runtime_error("cannot start the server");
    for (int i = 0; i < 1000 && !engine_->ready(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ~InProcessServer() {
    server_->stop();
    engine_->shutdown();
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(server_->port()); }
  http::Server& http() { return *server_; }
  engine::llama::LlamaEngine& engine() { return *engine_; }

 private:
  std::unique_ptr<engine::llama::LlamaEngine> engine_;
  std::unique_ptr<api::Access> access_;
  obs::Registry registry_;
  std::unique_ptr<api::ServingMetrics> metrics_;
  api::Services services_;
  std::unique_ptr<http::Router> router_;
  std::unique_ptr<http::Server> server_;
};

class BenchTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::vector<api::ApiKey> keys(2);
    keys[0].digest = api::KeyDigest::of("sk-acme");
    keys[0].tenant = "acme";
    keys[1].digest = api::KeyDigest::of("sk-globex");
    keys[1].tenant = "globex";
    server_ = new InProcessServer(64, {0, 0, 0}, keys);
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }

  // A small, quick workload against the shared server.
  static BenchOptions small_run() {
    BenchOptions o;
    o.url = server_->url();
    o.workload.prompt_tokens = Distribution::fixed(12);
    o.workload.output_tokens = Distribution::fixed(6);
    o.workload.tenants = {{"acme", "sk-acme", 1}, {"globex", "sk-globex", 1}};
    o.request_timeout_s = 60;
    o.progress = false;
    return o;
  }

  static Report run(BenchOptions options) {
    Status valid = validate(options);
    EXPECT_TRUE(valid.ok()) << valid.error().message;
    auto record = run_benchmark(options);
    EXPECT_TRUE(record.ok()) << record.error().message;
    if (!record.ok()) return {};
    return build_report(*record, options);
  }

  static void expect_sane(const Report& r) {
    EXPECT_EQ(r.ok + r.rejected + r.errors, r.requests);
    std::int64_t by_class = 0;
    for (int c = 0; c < kClassCount; ++c) {
      const ClassReport& k = r.classes[static_cast<std::size_t>(c)];
      EXPECT_EQ(k.ok + k.rejected + k.errors, k.requests) << class_name(c);
      by_class += k.requests;
    }
    EXPECT_EQ(by_class, r.requests);
    for (const ClassReport& k : r.classes) {
      for (const obs::Percentiles* p : {&k.ttft_ms, &k.itl_ms, &k.tpot_ms, &k.e2e_ms}) {
        if (p->count == 0) continue;
        EXPECT_GE(p->p50, 0);
        EXPECT_LE(p->p50, p->p90);
        EXPECT_LE(p->p90, p->p95);
        EXPECT_LE(p->p95, p->p99);
        EXPECT_LE(p->p99, p->max);
      }
      if (k.ttft_ms.count > 0) {
        EXPECT_LE(k.ttft_ms.max, k.e2e_ms.max);
      }
    }
    if (r.ok > 0) {
      EXPECT_GT(r.duration_s, 0);
      EXPECT_GT(r.request_throughput, 0);
      EXPECT_GT(r.output_token_throughput, 0);
    }
  }

  static std::string describe(const std::map<std::string, std::int64_t>& kinds) {
    std::string text;
    for (const auto& [kind, count] : kinds)
      text += kind + "=" + std::to_string(count) + " ";
    return text;
  }

  inline static InProcessServer* server_ = nullptr;
};

}  // namespace supportd::bench
