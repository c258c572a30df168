// The step-time model admission control predicts with: a fixed cost plus a cost per token, one
// size predicting its mean, a step of two calls counted whole, recent steps weighing more.
#include "engine/step_time.h"

#include <gtest/gtest.h>

namespace supportd::engine {
namespace {

TEST(StepTimeModel, FitsAFixedCostPlusACostPerToken) {
  // Steps of 4 decode tokens (10 ms) and, now and then, a 256-token prompt chunk (330 ms):
  // 8 ms per step plus 0.5 ms per token.
  StepTimeModel model;
  for (int i = 0; i < 100; ++i) {
    model.record(4, 10);
    if (i % 5 == 0) model.record(260, 138);
  }
  EXPECT_NEAR(model.predict(4), 10, 0.5);
  EXPECT_NEAR(model.predict(260), 138, 0.5);
  EXPECT_NEAR(model.predict(132), 74, 0.5);  // never seen, on the line
}

TEST(StepTimeModel, OneSizeOnlyPredictsItsMeanAndNothingBeforeAStep) {
  StepTimeModel model;
  EXPECT_EQ(model.predict(10), 0);
  EXPECT_EQ(model.mean(), 0);
  model.record(4, 10);
  model.record_step(10);
  model.record(4, 12);
  model.record_step(12);
  EXPECT_GT(model.mean(), 10);
  EXPECT_LT(model.mean(), 12);
  EXPECT_GT(model.predict(4), 10);
  EXPECT_LT(model.predict(4), 12);
  EXPECT_EQ(model.predict(400), model.predict(4));
}

TEST(StepTimeModel, AStepOfTwoCallsCountsWholeInTheMean) {
  // Decode tokens (80 ms) and a prompt chunk (240 ms) decoded apart are one 320 ms step: a
  // request waits for both, and the per-call line still predicts each call.
  StepTimeModel model;
  for (int i = 0; i < 50; ++i) {
    model.record(16, 80);
    model.record(75, 240);
    model.record_step(320);
  }
  EXPECT_NEAR(model.mean(), 320, 1);
  EXPECT_NEAR(model.predict(16), 80, 1);
  EXPECT_NEAR(model.predict(75), 240, 1);
}

TEST(StepTimeModel, RecentStepsOutweighOldOnes) {
  // The machine got slower (another process took a core): predictions follow within a few
  // dozen steps.
  StepTimeModel model(16);
  for (int i = 0; i < 200; ++i)
    model.record(i % 2 ? 4 : 64, i % 2 ? 10 : 40);
  for (int i = 0; i < 100; ++i)
    model.record(i % 2 ? 4 : 64, i % 2 ? 20 : 80);
  EXPECT_NEAR(model.predict(4), 20, 1);
  EXPECT_NEAR(model.predict(64), 80, 1);
}

}  // namespace
}  // namespace supportd::engine
