// The metrics registry's Prometheus text, collectors refreshing gauges before exposition, and
// sliding-window percentiles over recent samples only.
#include "obs/metrics.h"

#include <gtest/gtest.h>

#include "obs/sliding_window.h"

namespace supportd::obs {
namespace {

TEST(Metrics, ExposesPrometheusTextFormat) {
  Registry registry;
  auto& requests = registry.counter("test_requests_total", "Requests.", {"outcome"});
  requests.with({"ok"}).increment();
  requests.with({"ok"}).increment(2);
  requests.with({"quote\"d"}).increment();
  registry.gauge("test_depth", "Depth.").get().set(7);
  auto& latency = registry.histogram("test_latency_seconds", "Latency.", {"class"}, {0.1, 1.0});
  latency.with({"high"}).observe(0.05);
  latency.with({"high"}).observe(0.5);
  latency.with({"high"}).observe(5);
  const std::string text = registry.expose();
  EXPECT_NE(text.find("# TYPE test_requests_total counter\n"), std::string::npos);
  EXPECT_NE(text.find("test_requests_total{outcome=\"ok\"} 3\n"), std::string::npos);
  EXPECT_NE(text.find("test_requests_total{outcome=\"quote\\\"d\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("test_depth 7\n"), std::string::npos);
  EXPECT_NE(text.find("test_latency_seconds_bucket{class=\"high\",le=\"0.1\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("test_latency_seconds_bucket{class=\"high\",le=\"1\"} 2\n"),
            std::string::npos);
  EXPECT_NE(text.find("test_latency_seconds_bucket{class=\"high\",le=\"+Inf\"} 3\n"),
            std::string::npos);
  EXPECT_NE(text.find("test_latency_seconds_count{class=\"high\"} 3\n"), std::string::npos);
  EXPECT_NE(text.find("test_latency_seconds_sum{class=\"high\"} 5.55\n"), std::string::npos);
}

TEST(Metrics, CollectorsRefreshGaugesBeforeExposition) {
  Registry registry;
  auto& gauge = registry.gauge("test_value", "Value.").get();
  int calls = 0;
  registry.on_collect([&] { gauge.set(++calls); });
  registry.expose();
  EXPECT_NE(registry.expose().find("test_value 2\n"), std::string::npos);
}

TEST(SlidingWindow, PercentilesOverRecentSamplesOnly) {
  SlidingWindow window(std::chrono::seconds(10));
  const auto t0 = SlidingWindow::Clock::now();
  for (int i = 1; i <= 100; ++i)
    window.add(i, t0);
  window.add(1000, t0 - std::chrono::seconds(30));  // too old to count
  const auto p = window.percentiles(t0);
  EXPECT_EQ(p.count, 100u);
  EXPECT_EQ(p.p50, 50);
  EXPECT_EQ(p.p99, 99);
  EXPECT_EQ(p.max, 100);
  EXPECT_EQ(window.percentiles(t0 + std::chrono::seconds(11)).count, 0u);
}

}  // namespace
}  // namespace supportd::obs
