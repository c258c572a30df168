#include <gtest/gtest.h>
#include <spdlog/spdlog.h>
#include "cluster_fixture.h"
#include "collect_sink.h"
namespace supportd::bus::testing {
TEST_F(ClusterTest, Dbg) {
  start_nats();
  add_engine(1, "engine-a");
  add_engine(1, "engine-b");
  auto& gateway = add_gateway("gateway-a");
  auto c = connect(nats_->url(), "spy");
  auto sub = c->subscribe("supportd.engines.*", [](const Message& m) { spdlog::info("HB {} {}", m.subject, m.data); });
  for (int i = 0; i < 10; ++i) {
    spdlog::info("engines {}", gateway.remote_stats().engines);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  sub.value().reset();
}
}
