// The circuit breaker: closed allows all; a failure refuses until the backoff, then one probe;
// the backoff doubles up to its maximum and resets on success.
#include "store/circuit_breaker.h"

#include <gtest/gtest.h>

namespace supportd::store {
namespace {

using std::chrono::milliseconds;

struct FakeClock {
  CircuitBreaker::Clock::time_point now{};
  void advance(milliseconds by) { now += by; }
};

TEST(CircuitBreakerTest, ClosedAllowsEverything) {
  FakeClock clock;
  CircuitBreaker breaker(milliseconds(100), milliseconds(1000), [&] { return clock.now; });
  for (int i = 0; i < 5; ++i)
    EXPECT_TRUE(breaker.allow());
  EXPECT_FALSE(breaker.is_open());
}

TEST(CircuitBreakerTest, FailureRefusesUntilTheBackoffThenOneProbe) {
  FakeClock clock;
  CircuitBreaker breaker(milliseconds(100), milliseconds(1000), [&] { return clock.now; });
  breaker.failure();
  EXPECT_TRUE(breaker.is_open());
  EXPECT_FALSE(breaker.allow());
  clock.advance(milliseconds(99));
  EXPECT_FALSE(breaker.allow());
  clock.advance(milliseconds(1));
  EXPECT_TRUE(breaker.allow());   // the probe
  EXPECT_FALSE(breaker.allow());  // everyone else waits for it
  breaker.success();
  EXPECT_FALSE(breaker.is_open());
  EXPECT_TRUE(breaker.allow());
  EXPECT_EQ(breaker.failures(), 1);
}

TEST(CircuitBreakerTest, BackoffDoublesUpToTheMaximumAndResetsOnSuccess) {
  FakeClock clock;
  CircuitBreaker breaker(milliseconds(100), milliseconds(300), [&] { return clock.now; });
  breaker.failure();  // 100
  clock.advance(milliseconds(100));
  ASSERT_TRUE(breaker.allow());
  breaker.failure();  // 200
  clock.advance(milliseconds(199));
  EXPECT_FALSE(breaker.allow());
  clock.advance(milliseconds(1));
  ASSERT_TRUE(breaker.allow());
  breaker.failure();  // 300 (capped)
  ASSERT_TRUE(breaker.is_open());
  clock.advance(milliseconds(300));
  ASSERT_TRUE(breaker.allow());
  breaker.failure();  // still 300
  clock.advance(milliseconds(300));
  ASSERT_TRUE(breaker.allow());
  breaker.success();
  breaker.failure();  // back to 100
  clock.advance(milliseconds(100));
  EXPECT_TRUE(breaker.allow());
}

}  // namespace
}  // namespace supportd::store
