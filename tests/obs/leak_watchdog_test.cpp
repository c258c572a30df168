// The memory leak watchdog: no checkpoint before the warm-up, one per `every_requests` after;
// flat memory fits a zero slope and raises nothing; growth above the threshold over a whole fit
// raises the alert, a single step does not, and it clears once memory stops growing; growth
// while a cache fills raises nothing, the same growth once every cache is full does. The
// anonymous memory read from /proc grows when the process touches new memory.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "obs/leak_watchdog.h"

namespace supportd::obs {
namespace {

constexpr std::int64_t kMB = 1000 * 1000;

TEST(LeakWatchdog, TakesCheckpointsEveryThousandRequestsAfterTheWarmUp) {
  LeakWatchdog watchdog({1000, 5000, 5, 200});
  EXPECT_FALSE(watchdog.observe(0, 100 * kMB));
  EXPECT_FALSE(watchdog.observe(4999, 100 * kMB));
  const auto first = watchdog.observe(5003, 100 * kMB);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->requests, 5003);
  EXPECT_FALSE(first->bytes_per_1000);  // one point: no slope yet
  EXPECT_FALSE(watchdog.observe(6002, 100 * kMB));
  const auto second = watchdog.observe(6003, 100 * kMB);
  ASSERT_TRUE(second);
  ASSERT_TRUE(second->bytes_per_1000);
  EXPECT_DOUBLE_EQ(*second->bytes_per_1000, 0);
  EXPECT_FALSE(second->alert);
  EXPECT_EQ(watchdog.last().requests, 6003);
}

TEST(LeakWatchdog, AlertsWhileMemoryKeepsGrowingFasterThanTheThreshold) {
  LeakWatchdog watchdog({1000, 0, 4, 200});
  std::int64_t memory = 500 * kMB;
  std::optional<LeakCheckpoint> checkpoint;
  // 300 MB per 1,000 requests: the alert waits for a whole fit (4 checkpoints).
  for (int i = 0; i < 3; ++i) {
    checkpoint = watchdog.observe(1000 * i, memory);
    ASSERT_TRUE(checkpoint);
    EXPECT_FALSE(checkpoint->alert) << "raised after " << i + 1 << " checkpoints";
    memory += 300 * kMB;
  }
  checkpoint = watchdog.observe(3000, memory);
  ASSERT_TRUE(checkpoint);
  EXPECT_NEAR(*checkpoint->bytes_per_1000, 300.0 * kMB, 1.0);
  EXPECT_TRUE(checkpoint->alert);
  // Memory stops growing: the fit flattens and the alert ends.
  bool cleared = false;
  for (int i = 4; i < 12 && !cleared; ++i)
    cleared = !watchdog.observe(1000 * i, memory)->alert;
  EXPECT_TRUE(cleared);
}

TEST(LeakWatchdog, OneStepBetweenCheckpointsIsNotALeak) {
  LeakWatchdog watchdog({1000, 0, 5, 200});
  std::int64_t memory = 500 * kMB;
  for (int i = 0; i < 20; ++i) {
    if (i == 8) memory += 400 * kMB;  // a cache filled at once, then nothing more
    const auto checkpoint = watchdog.observe(1000 * i, memory);
    ASSERT_TRUE(checkpoint);
    EXPECT_FALSE(checkpoint->alert) << "at checkpoint " << i;
  }
}

TEST(LeakWatchdog, GrowthWhileACacheFillsIsNotALeakButGrowthOnceEveryCacheIsFullIs) {
  LeakWatchdog watchdog({1000, 0, 4, 200});
  std::int64_t memory = 500 * kMB;
  const auto caches = [](std::int64_t answers) {
    return std::vector<CacheFill>{{"answers_l1", answers, 10000}, {"traces", 4096, 4096}};
  };
  // 300 MB per 1,000 requests while the answer cache fills: explained, never an alert.
  for (int i = 0; i < 8; ++i) {
    const auto checkpoint = watchdog.observe(1000 * i, memory, caches(1000 * (i + 1)));
    ASSERT_TRUE(checkpoint);
    EXPECT_FALSE(checkpoint->caches_full);
    EXPECT_FALSE(checkpoint->alert) << "at checkpoint " << i;
    memory += 300 * kMB;
  }
  // Full (9,500 of 10,000 counts: an eviction or two frees a little), and memory still grows
  // as fast: a leak, once a whole fit has been taken with the caches full.
  bool alerted = false;
  for (int i = 8; i < 12; ++i) {
    const auto checkpoint = watchdog.observe(1000 * i, memory, caches(9500));
    ASSERT_TRUE(checkpoint);
    EXPECT_TRUE(checkpoint->caches_full);
    EXPECT_EQ(checkpoint->alert, i == 11) << "at checkpoint " << i;
    alerted = alerted || checkpoint->alert;
    memory += 300 * kMB;
  }
  EXPECT_TRUE(alerted);
}

TEST(LeakWatchdog, AnyLeakedKvCellAlertsOnceConfirmedAndClearsWhenGone) {
  LeakOptions options;
  options.kv_confirm_readings = 3;
  LeakWatchdog watchdog(options);
  EXPECT_FALSE(watchdog.observe_kv(0));
  EXPECT_FALSE(watchdog.observe_kv(1));
  EXPECT_FALSE(watchdog.observe_kv(0));  // not in a row: starts again
  EXPECT_FALSE(watchdog.observe_kv(1));
  EXPECT_FALSE(watchdog.observe_kv(1));
  EXPECT_TRUE(watchdog.observe_kv(1));  // a single cell is a leak
  EXPECT_TRUE(watchdog.observe_kv(40));
  EXPECT_FALSE(watchdog.observe_kv(0));
}

TEST(AnonymousMemory, GrowsWhenTheProcessTouchesNewMemory) {
  const std::int64_t before = anonymous_memory_bytes();
  EXPECT_GT(before, 0);
  constexpr std::size_t kSize = 64 << 20;
  auto block = std::make_unique<char[]>(kSize);
  std::memset(block.get(), 1, kSize);
  const std::int64_t after = anonymous_memory_bytes();
  EXPECT_GE(after - before, static_cast<std::int64_t>(kSize) * 9 / 10);
  EXPECT_EQ(block[kSize - 1], 1);
}

}  // namespace
}  // namespace supportd::obs
