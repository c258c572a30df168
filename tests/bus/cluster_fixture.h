// A cluster in the test process: a real nats-server (started here, on a free port, with its own
// store), engine nodes that are each a LlamaEngine on the tiny synthesized model driven by an
// EngineWorker over a connection of its own (as separate processes would have), and a gateway
// (RemoteEngine) over another connection. Every wait is bounded.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bus/connection.h"
#include "bus/engine_worker.h"
#include "bus/subjects.h"
#include "bus/wire.h"
#include "engine/llama/llama_engine.h"
#include "engine/remote/remote_engine.h"
#include "nats_server.h"
#include "test_model.h"

namespace supportd::bus::testing {

inline ClusterSettings quick_settings() {
  ClusterSettings settings;
  settings.ack_wait = std::chrono::milliseconds(2000);
  settings.max_deliver = 5;
  settings.queue_bound = 64;
  return settings;
}

struct EngineNode {
  std::unique_ptr<Connection> connection;
  std::unique_ptr<engine::llama::LlamaEngine> engine;
  std::unique_ptr<EngineWorker> worker;
};

// Polls `condition` every 10 ms for at most `limit`.
template <typename F>
bool eventually(F condition, std::chrono::milliseconds limit = std::chrono::seconds(30)) {
  const auto give_up = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

inline std::unique_ptr<Connection> connect(const std::string& url, const std::string& name) {
  ConnectionOptions options;
  options.url = url;
  options.name = name;
  options.reconnect_wait = std::chrono::milliseconds(100);
  auto connection = Connection::open(options);
  EXPECT_TRUE(connection.ok()) << (connection.ok() ? "" : connection.error().message);
  return connection.ok() ? std::move(connection).value() : nullptr;
}

// Every event on a gateway's token subjects, as the wire carried it.
class EventTap {
 public:
  EventTap(Connection& connection, const std::string& gateway) {
    auto subscription = connection.subscribe(subjects::tokens_of_gateway(gateway),
                                             [this](const Message& m) {
                                               auto event = decode_stream_event(m.data);
                                               if (!event) return;
                                               std::lock_guard lock(mutex_);
                                               events_.push_back(std::move(event).value());
                                             });
    EXPECT_TRUE(subscription.ok());
    if (subscription.ok()) subscription_ = std::move(subscription).value();
  }
  std::vector<StreamEvent> events() {
    std::lock_guard lock(mutex_);
    return events_;
  }

 private:
  std::mutex mutex_;
  std::vector<StreamEvent> events_;
  std::unique_ptr<Subscription> subscription_;
};

class ClusterTest : public ::testing::Test {
 protected:
  void start_nats(std::int64_t max_payload = 0) {
    dir_ = std::filesystem::temp_directory_path() /
           ("supportd-bus-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    nats_ = std::make_unique<NatsServer>(dir_, max_payload);
    ASSERT_TRUE(nats_->start()) << "nats-server did not start; see " << dir_ / "nats.log";
  }

  EngineNode& add_engine(int slots, const std::string& id) {
    auto node = std::make_unique<EngineNode>();
    node->connection = connect(nats_->url(), id);
    engine::llama::EngineOptions options;
    options.model_path = supportd::testing::synthesized_model();
    options.threads = 1;
    options.context_cells = 16384;
    options.parallel = slots;
    options.step_tokens = 64;
    options.warmup = false;
    auto engine = engine::llama::LlamaEngine::create(options);
    EXPECT_TRUE(engine.ok()) << (engine.ok() ? "" : engine.error().message);
    node->engine = std::move(engine).value();
    WorkerOptions worker;
    worker.engine_id = id;
    worker.slots = slots;
    worker.cluster = settings_;
    auto started = EngineWorker::start(*node->connection, *node->engine, worker);
    EXPECT_TRUE(started.ok()) << (started.ok() ? "" : started.error().message);
    node->worker = std::move(started).value();
    engines_.push_back(std::move(node));
    return *engines_.back();
  }

  engine::remote::RemoteEngine& add_gateway(const std::string& id) {
    gateway_connections_.push_back(connect(nats_->url(), id));
    engine::remote::RemoteOptions options;
    options.gateway_id = id;
    options.cluster = settings_;
    options.queue_poll = std::chrono::milliseconds(50);
    auto remote = engine::remote::RemoteEngine::create(*gateway_connections_.back(), options);
    EXPECT_TRUE(remote.ok()) << (remote.ok() ? "" : remote.error().message);
    gateways_.push_back(std::move(remote).value());
    return *gateways_.back();
  }

  // Waits until the gateway counts `engines` engine nodes alive and ready.
  bool sees_engines(engine::remote::RemoteEngine& gateway, int engines) {
    return eventually([&] { return gateway.remote_stats().engines == engines; });
  }

  void TearDown() override {
    for (auto& gateway : gateways_)
      gateway->shutdown();
    for (auto& node : engines_) {
      if (node->worker) node->worker->stop(std::chrono::milliseconds(0));
      if (node->engine) node->engine->shutdown();
    }
    gateways_.clear();
    engines_.clear();
    gateway_connections_.clear();
    nats_.reset();
    std::filesystem::remove_all(dir_);
  }

  static engine::GenerationRequest greedy(std::string prompt, int max_tokens) {
    engine::GenerationRequest request;
    request.prompt = std::move(prompt);
    request.max_tokens = max_tokens;
    request.sampling.temperature = 0;
    request.ignore_eos = true;
    return request;
  }

  ClusterSettings settings_ = quick_settings();
  std::filesystem::path dir_;
  std::unique_ptr<NatsServer> nats_;
  std::vector<std::unique_ptr<EngineNode>> engines_;
  std::vector<std::unique_ptr<Connection>> gateway_connections_;
  std::vector<std::unique_ptr<engine::remote::RemoteEngine>> gateways_;
};

}  // namespace supportd::bus::testing
