// Alerts with hysteresis: raised by an onset score over `raise`, cleared only after the level
// has stayed under `clear` for `clear_after` readings in a row.
#include <gtest/gtest.h>

#include "obs/anomaly/alert_hysteresis.h"

namespace supportd::obs::anomaly {
namespace {

AnomalyReading reading(double score, double level) {
  return {score, level, score == level, false};
}

TEST(AlertHysteresis, RaisesOnAScoreAndClearsAfterACalmStretch) {
  AlertHysteresis alert({0.8, 0.6, 3});
  EXPECT_EQ(alert.update(reading(0.7, 0.7)), AlertChange::kNone);
  EXPECT_FALSE(alert.active());
  EXPECT_EQ(alert.update(reading(0.85, 0.85)), AlertChange::kRaised);
  EXPECT_TRUE(alert.active());
  EXPECT_EQ(alert.update(reading(0.45, 0.9)), AlertChange::kNone);  // damped, still high
  EXPECT_EQ(alert.update(reading(0.25, 0.5)), AlertChange::kNone);  // calm 1
  EXPECT_EQ(alert.update(reading(0.35, 0.7)), AlertChange::kNone);  // back up: calm restarts
  EXPECT_EQ(alert.update(reading(0.25, 0.5)), AlertChange::kNone);  // calm 1
  EXPECT_EQ(alert.update(reading(0.25, 0.5)), AlertChange::kNone);  // calm 2
  EXPECT_EQ(alert.readings_active(), 6u);
  EXPECT_DOUBLE_EQ(alert.peak_score(), 0.85);
  EXPECT_EQ(alert.update(reading(0.25, 0.5)), AlertChange::kCleared);  // calm 3
  EXPECT_FALSE(alert.active());
  EXPECT_EQ(alert.readings_active(), 0u);
}

TEST(AlertHysteresis, DoesNotFlapAroundTheThreshold) {
  AlertHysteresis alert({0.8, 0.6, 5});
  int changes = 0;
  for (int i = 0; i < 100; ++i) {
    const double level = i % 2 == 0 ? 0.82 : 0.78;
    changes += alert.update(reading(level, level)) != AlertChange::kNone ? 1 : 0;
  }
  EXPECT_EQ(changes, 1);  // raised once, never cleared while it hovers
}

TEST(AlertHysteresis, IgnoresReadingsWhileTheDetectorLearns) {
  AlertHysteresis alert;
  AnomalyReading learning = reading(1.0, 1.0);
  learning.learning = true;
  EXPECT_EQ(alert.update(learning), AlertChange::kNone);
  EXPECT_FALSE(alert.active());
}

}  // namespace
}  // namespace supportd::obs::anomaly
