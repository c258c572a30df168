// The leak watchdog's KV check with a real engine (synthesized model): after requests of every
// ending (finished, cut by length, cancelled) the engine's audit finds no KV cell held by no
// sequence and the watch raises nothing; a deliberately leaked cell (the test-only hook of
// engine/llama/kv_leak_hook.h, which supportd never links) raises the "kv_cell_leak" alert,
// listed by the monitor and shown in /metrics. The watch is ticked by the test.
#include <gtest/gtest.h>

#include <optional>

#include "api/anomaly_watch.h"
#include "api/serving_metrics.h"
#include "collect_sink.h"
#include "engine/llama/kv_leak_hook.h"
#include "engine/llama/llama_engine.h"
#include "obs/anomaly/signal_monitor.h"
#include "test_model.h"

namespace supportd {
namespace {

bool kv_alert_active(const obs::anomaly::AnomalyMonitor& monitor) {
  for (const auto& alert : monitor.active()) {
    if (alert.signal == "kv_cell_leak") return true;
  }
  return false;
}

TEST(KvLeakWatch, ALeakedCellRaisesTheAlertAndCleanRequestsDoNot) {
  engine::llama::EngineOptions options;
  options.model_path = testing::synthesized_model();
  options.threads = 0;
  options.parallel = 2;
  auto created = engine::llama::LlamaEngine::create(options);
  ASSERT_TRUE(created.ok()) << created.error().message;
  auto& engine = **created;
  obs::Registry registry;
  api::ServingMetrics metrics(registry, engine);
  obs::anomaly::AnomalyMonitor monitor;
  std::optional<api::AnomalyWatch> watch(std::in_place, metrics, monitor);
  auto now = api::AnomalyWatch::Clock::now();
  const auto tick = [&] {
    now += std::chrono::seconds(1);
    watch->tick(now);
  };

  // Requests that finish, one cut by its length, one cancelled while it runs.
  for (int i = 0; i < 3; ++i) {
    engine::GenerationRequest request;
    request.prompt = "Hello, where is my order number " + std::to_string(i) + "?";
    request.max_tokens = i == 2 ? 200 : 4;
    request.ignore_eos = true;
    auto sink = std::make_shared<testing::CollectSink>();
    auto id = engine.submit(std::move(request), sink);
    ASSERT_TRUE(id.ok()) << id.error().message;
    if (i == 2) {
      ASSERT_TRUE(sink->wait_pieces(1));
      engine.cancel(*id);
    }
    ASSERT_TRUE(sink->wait());
  }
  for (int t = 0; t < 5; ++t)
    tick();
  EXPECT_EQ(engine.stats().kv_cells_leaked, 0);
  EXPECT_FALSE(kv_alert_active(monitor));

  ASSERT_TRUE(engine::llama::leak_kv_cells(engine)) << "the prefix cache held no entry to leak";
  EXPECT_GT(engine.stats().kv_cells_leaked, 0);
  EXPECT_EQ(engine.stats().kv_sequences_leaking, 1);
  for (int t = 0; t < 3; ++t)
    tick();
  EXPECT_TRUE(kv_alert_active(monitor));
  const std::string exposed = registry.expose();
  EXPECT_NE(exposed.find("supportd_alert_active{alert=\"kv_cell_leak\"} 1"), std::string::npos);
  EXPECT_EQ(exposed.find("supportd_kv_cells_leaked 0\n"), std::string::npos);
  watch.reset();
  engine.shutdown();
}

}  // namespace
}  // namespace supportd
