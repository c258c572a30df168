// The server's anomaly monitor, fed tick by tick as the server's watch feeds it: a latency step
// on one signal raises that signal's alert (and no other's), which clears once the latency is
// back; ended alerts are kept, newest first and bounded; values that are not finite are skipped;
// a signal with a direction alerts only for a material change its bad way.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <optional>

#include "obs/anomaly/signal_monitor.h"

namespace supportd::obs::anomaly {
namespace {

using std::chrono::seconds;

// A latency that repeats a short pattern around 0.3 s: after one round nothing in it is new,
// so whatever the detector flags later is what the test injected.
double usual_latency(std::size_t t) {
  constexpr double kPattern[] = {0.30, 0.31, 0.33, 0.31, 0.29};
  return kPattern[t % 5];
}

// Feeds `values` of "latency" (and a steady "queue" beside it) one tick a second from `start`.
class Feed {
 public:
  explicit Feed(AnomalyMonitor& monitor) : monitor_(monitor) {}

  std::vector<AlertRecord> tick(double latency) {
    const SignalValue values[] = {{"latency", latency}, {"queue", 4.0}};
    now_ += seconds(1);
    return monitor_.observe(values, now_);
  }
  WallClock::time_point now() const { return now_; }

 private:
  AnomalyMonitor& monitor_;
  WallClock::time_point now_ = WallClock::time_point{} + std::chrono::hours(24 * 365 * 50);
};

TEST(AnomalyMonitor, ALatencyStepRaisesItsAlertWhichClearsOnceTheLatencyIsBack) {
  AnomalyMonitor monitor;
  Feed feed(monitor);
  // The usual latency, which the detector learns.
  std::size_t t = 0;
  for (; t < 400; ++t) {
    ASSERT_TRUE(feed.tick(usual_latency(t)).empty()) << "false alert at " << t;
  }
  // The step: ten times the latency for 30 s.
  std::optional<AlertRecord> raised;
  for (int i = 0; i < 30; ++i, ++t) {
    for (const AlertRecord& change : feed.tick(3.2)) {
      ASSERT_FALSE(raised) << "raised twice";
      raised = change;
    }
  }
  ASSERT_TRUE(raised) << "a tenfold latency step raised no alert";
  EXPECT_EQ(raised->signal, "latency");
  EXPECT_TRUE(raised->active);
  EXPECT_DOUBLE_EQ(raised->raising_value, 3.2);
  EXPECT_GE(raised->raising_score, monitor.options().alert.raise);
  ASSERT_EQ(monitor.active().size(), 1u);
  EXPECT_EQ(monitor.active()[0].since, raised->since);
  EXPECT_DOUBLE_EQ(monitor.active()[0].values.back(), 3.2);

  // Back to the usual: the alert clears, after a calm stretch, and is listed as ended.
  std::optional<AlertRecord> cleared;
  for (; t < 1000 && !cleared; ++t) {
    for (const AlertRecord& change : feed.tick(usual_latency(t)))
      cleared = change;
  }
  ASSERT_TRUE(cleared) << "the alert never cleared once the latency was back";
  EXPECT_EQ(cleared->signal, "latency");
  EXPECT_FALSE(cleared->active);
  EXPECT_EQ(cleared->since, raised->since);
  EXPECT_EQ(cleared->ended, feed.now());
  EXPECT_GE(cleared->readings, monitor.options().alert.clear_after);
  EXPECT_GE(cleared->peak_score, raised->raising_score);
  EXPECT_TRUE(monitor.active().empty());
  ASSERT_EQ(monitor.ended().size(), 1u);
  EXPECT_EQ(monitor.ended()[0].ended, cleared->ended);
  for (const SignalState& state : monitor.signals())
    EXPECT_FALSE(state.alert_active);
}

TEST(AnomalyMonitor, ASecondIncidentSoonAfterTheFirstClearedRaisesAgain) {
  AnomalyMonitor monitor;
  Feed feed(monitor);
  std::size_t t = 0, raises = 0;
  for (; t < 400; ++t)
    feed.tick(usual_latency(t));
  const auto incident = [&] {
    for (int i = 0; i < 30; ++i)
      raises += feed.tick(3.2).size();
    bool cleared = false;
    for (int i = 0; i < 300 && !cleared; ++i, ++t) {
      for (const AlertRecord& change : feed.tick(usual_latency(t)))
        cleared = cleared || !change.active;
    }
    ASSERT_TRUE(cleared);
  };
  incident();
  ASSERT_EQ(raises, 1u);
  // The same incident again, well within the onset filter's window of the first's scores:
  // the first is over, so this one is news.
  incident();
  EXPECT_EQ(raises, 2u);
}

TEST(AnomalyMonitor, ALatencyBackWithinItsBandClearsThoughTheSeriesMovesInANewWay) {
  // After the incident the load changes (a drill pauses it, customers come back): the latency
  // jumps between levels the detector has not seen, all within the band it had before. The
  // alert raised for the incident clears, so the next incident can raise one again.
  AnomalyMonitor monitor;
  WallClock::time_point now{};
  std::size_t raised = 0, cleared = 0;
  const auto tick = [&](double value) {
    const SignalValue values[] = {{"latency", value, Direction::kUp}};
    now += seconds(1);
    for (const AlertRecord& change : monitor.observe(values, now))
      (change.active ? raised : cleared) += 1;
  };
  for (std::size_t t = 0; t < 400; ++t)
    tick(usual_latency(t));
  for (int i = 0; i < 30; ++i)
    tick(3.2);
  ASSERT_EQ(raised, 1u);
  // Within 20% of the usual median (0.31 s), in a pattern never seen: 0.05 to 0.37 s.
  constexpr double kRecovered[] = {0.05, 0.37, 0.12, 0.36, 0.08, 0.2};
  for (std::size_t t = 0; t < 90; ++t)
    tick(kRecovered[t % 6]);
  EXPECT_EQ(cleared, 1u) << "the recovery held the alert up";
  for (int i = 0; i < 30; ++i)
    tick(3.2);
  EXPECT_EQ(raised, 2u) << "the second incident raised nothing";
}

// How many of ten incidents, a minute each at 2.4 times the usual latency and four minutes
// apart, raise an alert, with `options`.
std::size_t incidents_raised(const MonitorOptions& options) {
  AnomalyMonitor monitor(options);
  WallClock::time_point now{};
  std::size_t raised = 0, t = 0;
  const auto tick = [&](double value) {
    const SignalValue values[] = {{"latency", value, Direction::kUp}};
    now += seconds(1);
    for (const AlertRecord& change : monitor.observe(values, now))
      raised += change.active ? 1 : 0;
  };
  for (; t < 400; ++t)
    tick(usual_latency(t));
  for (int incident = 0; incident < 10; ++incident) {
    for (int i = 0; i < 60; ++i, ++t)
      tick(2.4 * usual_latency(t));
    for (int i = 0; i < 240; ++i, ++t)
      tick(usual_latency(t));
  }
  return raised;
}

TEST(AnomalyMonitor, RepeatedIncidentsEachRaiseTheirAlert) {
  // An incident's readings are not learnt while its alert is active: every one raises.
  EXPECT_EQ(incidents_raised(MonitorOptions{}), 10u);
  // Learnt, the incidents become the usual and the later ones raise nothing.
  MonitorOptions learning;
  learning.unlearnt_alert_readings = 0;
  EXPECT_LT(incidents_raised(learning), 10u);
}

TEST(AnomalyMonitor, SkipsValuesThatAreNotFinite) {
  AnomalyMonitor monitor;
  const WallClock::time_point now{};
  const SignalValue first[] = {{"latency", 0.25}};
  monitor.observe(first, now);
  const SignalValue none[] = {{"latency", std::numeric_limits<double>::quiet_NaN()},
                              {"idle", std::numeric_limits<double>::quiet_NaN()}};
  monitor.observe(none, now);
  const auto signals = monitor.signals();
  ASSERT_EQ(signals.size(), 1u);  // "idle" was never fed a value
  EXPECT_EQ(signals[0].signal, "latency");
  EXPECT_DOUBLE_EQ(signals[0].value, 0.25);
}

TEST(AnomalyMonitor, KeepsTheNewestEndedAlertsOnly) {
  MonitorOptions options;
  options.kept_ended = 2;
  options.alert.clear_after = 3;
  AnomalyMonitor monitor(options);
  Feed feed(monitor);
  std::size_t t = 0, raises = 0, clears = 0;
  for (; t < 300; ++t)
    feed.tick(usual_latency(t));
  // Steps far outside anything seen, each followed by a return to the usual.
  for (int step = 0; step < 4; ++step) {
    for (int i = 0; i < 5; ++i)
      raises += feed.tick(1000.0 * (step + 2)).size();
    for (int i = 0; i < 300; ++i, ++t) {
      for (const AlertRecord& change : feed.tick(usual_latency(t)))
        clears += change.active ? 0 : 1;
    }
  }
  ASSERT_EQ(raises, 4u);
  ASSERT_EQ(clears, 4u);
  const auto ended = monitor.ended();
  ASSERT_EQ(ended.size(), 2u);
  EXPECT_GT(ended[0].since, ended[1].since);  // newest first
  EXPECT_DOUBLE_EQ(ended[0].raising_value, 5000.0);
  EXPECT_DOUBLE_EQ(ended[1].raising_value, 4000.0);
}

// How many alerts `signal` raises when it runs the usual pattern scaled to `usual_level` for
// 400 ticks and then holds `step` for 30, fed as going wrong `worse`.
std::size_t raises_for_step(double usual_level, double step, Direction worse) {
  AnomalyMonitor monitor;
  WallClock::time_point now{};
  std::size_t raised = 0;
  const auto tick = [&](double value) {
    const SignalValue values[] = {{"signal", value, worse}};
    now += seconds(1);
    for (const AlertRecord& change : monitor.observe(values, now))
      raised += change.active ? 1 : 0;
  };
  for (std::size_t t = 0; t < 400; ++t)
    tick(usual_latency(t) / 0.3 * usual_level);
  EXPECT_EQ(raised, 0u) << "false alert before the step";
  for (int i = 0; i < 30; ++i)
    tick(step);
  return raised;
}

TEST(AnomalyMonitor, ALatencyThatFallsRaisesNothingWhenHigherIsWorse) {
  // The detector finds the fall unusual (without a direction it alerts)...
  ASSERT_EQ(raises_for_step(0.3, 0.05, Direction::kEither), 1u);
  // ...but a faster answer is nobody's emergency.
  EXPECT_EQ(raises_for_step(0.3, 0.05, Direction::kUp), 0u);
  // The bad way, it still alerts.
  EXPECT_EQ(raises_for_step(0.3, 3.2, Direction::kUp), 1u);
}

TEST(AnomalyMonitor, ASmallRiseRaisesNothingAndALargeOneDoes) {
  // 15% above the usual median (0.31 s): unusual for a series this steady, not material.
  ASSERT_EQ(raises_for_step(0.3, 0.36, Direction::kEither), 1u);
  EXPECT_EQ(raises_for_step(0.3, 0.36, Direction::kUp), 0u);
  // 45% above it: material.
  EXPECT_EQ(raises_for_step(0.3, 0.45, Direction::kUp), 1u);
}

TEST(AnomalyMonitor, ThroughputAlertsWhenItFallsNotWhenItRises) {
  EXPECT_EQ(raises_for_step(250, 40, Direction::kDown), 1u);
  EXPECT_EQ(raises_for_step(250, 2500, Direction::kDown), 0u);
  ASSERT_EQ(raises_for_step(250, 2500, Direction::kEither), 1u);
}

}  // namespace
}  // namespace supportd::obs::anomaly
