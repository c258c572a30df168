// The load a server reports for capacity planning (/v1/stats "capacity"): arrival rate and CV
// from recorded arrival times, service time and CV, per group, within the window and bounded.
#include <gtest/gtest.h>

#include <cmath>

#include "obs/load_window.h"

namespace supportd::obs {
namespace {

using Clock = LoadWindow::Clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(LoadWindowTest, RegularArrivalsAndServiceTimes) {
  const Clock::time_point start{};
  LoadWindow window(3, seconds(60), 20000, start);
  // One arrival every 500 ms for 30 s, each in the system 2 s, 1.5 s of it in a slot
  // (alternately 1 s and 2 s: mean 1.5, CV 1/3).
  for (int i = 0; i < 60; ++i) {
    const Clock::time_point arrived = start + milliseconds(500 * i);
    window.add(i % 10 == 0 ? 0 : 1, arrived, i % 2 == 0 ? 1.0 : 2.0, arrived + seconds(2));
  }
  const LoadSummary s = window.summary(start + seconds(32));
  EXPECT_DOUBLE_EQ(s.window_s, 32);  // since the start, less than the span
  EXPECT_EQ(s.arrivals, 60u);
  EXPECT_DOUBLE_EQ(s.arrival_rate, 60.0 / 32);
  EXPECT_DOUBLE_EQ(s.groups[0].arrival_rate, 6.0 / 32);
  EXPECT_NEAR(s.arrival_cv, 0, 1e-9);  // perfectly regular
  EXPECT_EQ(s.served, 60u);
  EXPECT_DOUBLE_EQ(s.service_mean_s, 1.5);
  EXPECT_NEAR(s.service_cv, std::sqrt(0.25 * 60 / 59) / 1.5, 1e-9);
  EXPECT_EQ(s.groups[0].arrivals, 6u);
  EXPECT_EQ(s.groups[1].arrivals, 54u);
  EXPECT_EQ(s.groups[2].arrivals, 0u);
  EXPECT_EQ(s.groups[2].service_mean_s, -1);
}

TEST(LoadWindowTest, OldRequestsLeaveRefusalsCountAndIdleBeginningsDoNotDilute) {
  const Clock::time_point start{};
  LoadWindow window(1, seconds(30), 20000, start);
  window.add(0, start + seconds(1), 0.5, start + seconds(2));
  for (int i = 0; i < 20; ++i)  // refused at once: no service time
    window.add(0, start + seconds(20) + milliseconds(100 * i), -1,
               start + seconds(20) + milliseconds(100 * i));
  const LoadSummary s = window.summary(start + seconds(40));
  EXPECT_EQ(s.arrivals, 20u);
  // Traffic began inside the window, at 20 s: 19 gaps over the 20 s since.
  EXPECT_DOUBLE_EQ(s.window_s, 20);
  EXPECT_DOUBLE_EQ(s.arrival_rate, 19.0 / 20);
  EXPECT_EQ(s.served, 0u);
  EXPECT_EQ(s.service_mean_s, -1);
  EXPECT_EQ(s.service_cv, -1);
}

// An idle server (the dashboard polls it from the start): zeros and "unknown", never NaN, which
// would make /v1/stats invalid JSON.
TEST(LoadWindowTest, NoTrafficIsZeroNotNaN) {
  const Clock::time_point start{};
  LoadWindow window(3, seconds(60), 20000, start);
  for (const LoadSummary& s : {window.summary(start), window.summary(start + seconds(5))}) {
    EXPECT_EQ(s.arrivals, 0u);
    EXPECT_EQ(s.arrival_rate, 0);
    EXPECT_EQ(s.arrival_cv, -1);
    EXPECT_EQ(s.service_mean_s, -1);
    for (const auto& g : s.groups) {
      EXPECT_EQ(g.arrival_rate, 0);
      EXPECT_EQ(g.service_mean_s, -1);
    }
  }
  window.add(1, start + seconds(6), 0.2, start + seconds(7));  // one arrival: no rate yet
  const LoadSummary one = window.summary(start + seconds(8));
  EXPECT_EQ(one.arrivals, 1u);
  EXPECT_EQ(one.arrival_rate, 0);
  for (const auto& g : one.groups)
    EXPECT_EQ(g.arrival_rate, 0);
}

TEST(LoadWindowTest, TooFewArrivalsGiveNoCv) {
  const Clock::time_point start{};
  LoadWindow window(1, seconds(60), 20000, start);
  for (int i = 0; i < 5; ++i)
    window.add(0, start + seconds(i), 0.1, start + seconds(i) + milliseconds(100));
  EXPECT_EQ(window.summary(start + seconds(10)).arrival_cv, -1);
}

TEST(LoadWindowTest, BoundedInRecordsAndTheWindowShrinksToThem) {
  const Clock::time_point start{};
  LoadWindow window(1, seconds(60), 100, start);
  for (int i = 0; i < 1000; ++i)
    window.add(0, start + milliseconds(10 * i), 0.001, start + milliseconds(10 * i));
  const LoadSummary s = window.summary(start + milliseconds(9990));
  EXPECT_EQ(s.arrivals, 100u);
  EXPECT_NEAR(s.arrival_rate, 100, 1.5);  // 100 records over the 0.99 s they span
}

}  // namespace
}  // namespace supportd::obs
