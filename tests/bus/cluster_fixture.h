// A cluster in the test process: a real nats-server (Debian's, with JetStream, as
// scripts/services.sh runs it; started here on a free port with its own store, so that a test can
// kill and restart it and no test sees another's streams), engine nodes that are each a LlamaEngine
// on the tiny synthesized model driven by an EngineWorker over a connection of its own (as separate
// processes would have), and a gateway (RemoteEngine) over another connection. Every wait is
// bounded.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "bus/connection.h"
#include "bus/engine_worker.h"
#include "bus/subjects.h"
#include "bus/wire.h"
#include "collect_sink.h"
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
    auto subscription =
        connection.subscribe(subjects::tokens_of_gateway(gateway), [this](const Message& m) {
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
  // Whether the end (kDone) of `request_id` (empty: of any request) has come. The tap reads the
  // wire on a subscription of its own: when a gateway has its answer the tap may still be a few
  // events behind, so a test waits for this before reading events().
  bool saw_done(const std::string& request_id = {}) {
    std::lock_guard lock(mutex_);
    return std::any_of(events_.begin(), events_.end(), [&](const StreamEvent& e) {
      return e.kind == StreamEvent::Kind::kDone &&
             (request_id.empty() || e.request_id == request_id);
    });
  }

 private:
  std::mutex mutex_;
  std::vector<StreamEvent> events_;
  std::unique_ptr<Subscription> subscription_;
};

// Checks the customer's pieces against the numbered events on the wire: every number once,
// in order, each piece the text its number carried; returns the attempts that contributed.
inline std::set<std::uint64_t> check_no_gap_no_repeat(const std::vector<std::string>& pieces,
                                                      const std::vector<StreamEvent>& events,
                                                      const std::string& request_id) {
  std::map<std::uint64_t, std::map<std::uint64_t, std::string>> by_attempt;  // attempt -> seq
  for (const StreamEvent& e : events) {
    if (e.request_id == request_id && e.kind == StreamEvent::Kind::kText)
      by_attempt[e.attempt][e.sequence] = e.text;
  }
  std::set<std::uint64_t> used;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    const std::uint64_t sequence = i + 1;
    bool found = false;
    // The newest attempt that sent this number is the one the gateway kept.
    for (auto it = by_attempt.rbegin(); it != by_attempt.rend() && !found; ++it) {
      auto piece = it->second.find(sequence);
      if (piece == it->second.end()) continue;
      EXPECT_EQ(piece->second, pieces[i]) << "token " << sequence;
      used.insert(it->first);
      found = true;
    }
    EXPECT_TRUE(found) << "token " << sequence << " never went on the wire";
  }
  return used;
}

class ClusterTest : public ::testing::Test {
 protected:
  // Skips the test when SUPPORTD_TEST_NATS is not set: the NATS tests run where
  // scripts/services.sh (scripts/test.sh) provides nats-server with JetStream.
  void SetUp() override {
    if (std::getenv("SUPPORTD_TEST_NATS") == nullptr) {
      GTEST_SKIP() << "SUPPORTD_TEST_NATS is not set: run through scripts/test.sh (or source "
                      "scripts/services.sh) for the tests that need nats-server with JetStream";
    }
  }

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
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  // A request that streams until cancelled, returned once its first `pieces` tokens arrived
  // (id 0, with the test failed, when it did not start).
  struct Streaming {
    engine::Engine::RequestId id = 0;
    std::shared_ptr<supportd::testing::CollectSink> sink;
  };
  Streaming keep_busy(engine::remote::RemoteEngine& gateway, const std::string& prompt,
                      std::size_t pieces = 1) {
    Streaming streaming;
    streaming.sink = std::make_shared<supportd::testing::CollectSink>();
    auto id = gateway.submit(greedy(prompt, 100000), streaming.sink);
    EXPECT_TRUE(id.ok()) << (id.ok() ? "" : id.error().message);
    if (id.ok() && streaming.sink->wait_pieces(pieces)) streaming.id = *id;
    return streaming;
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
