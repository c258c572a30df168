#include "sched/admission_control.h"

#include <gtest/gtest.h>

#include <thread>

#include "sched/rate_limiter.h"

namespace supportd::sched {
namespace {

// Twenty-one completions `gap` apart, the last one at `until`: a measured rate of 1 / gap.
void record_completions(AdmissionControl& control, std::chrono::milliseconds gap,
                        std::chrono::steady_clock::time_point until) {
  for (int i = 20; i >= 0; --i)
    control.record_finish(until - gap * i);
}

TEST(AdmissionControl, RefusesWhenAClassQueueIsFull) {
  AdmissionOptions options;
  options.queue_limit = {1, 2, 0};
  AdmissionControl control(options);
  EXPECT_FALSE(control.enter(Priority::kHigh, std::nullopt));
  auto refused = control.enter(Priority::kHigh, std::nullopt);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->error.code, ErrorCode::kOverloaded);
  EXPECT_GE(refused->retry_after.count(), 1);
  EXPECT_FALSE(control.enter(Priority::kNormal, std::nullopt));  // other classes are separate
  control.left_queue(Priority::kHigh);
  EXPECT_FALSE(control.enter(Priority::kHigh, std::nullopt));
  for (int i = 0; i < 100; ++i)
    EXPECT_FALSE(control.enter(Priority::kLow, std::nullopt));  // unbounded
}

TEST(AdmissionControl, RefusesDeadlinesTheServiceRateCannotMeet) {
  AdmissionControl control;
  for (int i = 0; i < 20; ++i) {  // about 100 completions per second
    control.record_finish();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EngineOutlook outlook;
  outlook.free_slots = 0;
  control.publish(outlook);
  for (int i = 0; i < 50; ++i)
    ASSERT_FALSE(control.enter(Priority::kNormal, std::nullopt));
  const auto now = std::chrono::steady_clock::now();
  // 50 ahead at ~100/s is ~0.5 s: a 10 ms deadline is out of reach, a 60 s one is fine.
  auto refused = control.enter(Priority::kNormal, now + std::chrono::milliseconds(10));
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->error.code, ErrorCode::kDeadline);
  EXPECT_FALSE(control.enter(Priority::kNormal, now + std::chrono::seconds(60)));
  // A high request does not wait behind normal ones.
  EXPECT_LT(control.expected_wait(Priority::kHigh).count(),
            control.expected_wait(Priority::kNormal).count());
  outlook.free_slots = 1000;
  control.publish(outlook);
  EXPECT_EQ(control.expected_wait(Priority::kNormal).count(), 0.0);
}

TEST(AdmissionControl, RequestsArrivingDuringAStepShareTheFreeSlots) {
  // Two slots free at the last step boundary; slots free up only between steps. The first two
  // normal arrivals will take them; a third waits for a completion and its deadline counts.
  AdmissionControl control;
  const auto now = std::chrono::steady_clock::now();
  record_completions(control, std::chrono::seconds(1), now);  // one completion a second
  EngineOutlook outlook;
  outlook.free_slots = 2;
  control.publish(outlook);
  const auto soon = now + std::chrono::milliseconds(500);
  ASSERT_FALSE(control.enter(Priority::kNormal, soon));
  ASSERT_FALSE(control.enter(Priority::kNormal, soon));
  auto refused = control.enter(Priority::kNormal, soon);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->error.code, ErrorCode::kDeadline);
  // A high request starts before the waiting normal ones: a free slot is still its own.
  EXPECT_EQ(control.expected_wait(Priority::kHigh).count(), 0.0);
  ASSERT_FALSE(control.enter(Priority::kHigh, soon));
  ASSERT_FALSE(control.enter(Priority::kHigh, soon));
  EXPECT_TRUE(control.enter(Priority::kHigh, soon));
}

TEST(AdmissionControl, HigherClassesArrivingBeforeTheNextStepMayTakeAFreeSlot) {
  // One slot free, steps of half a second, high requests arriving ten a second: before the
  // next step starts, high ones will very likely have taken the slot, so a normal request
  // waits for a completion; a high one does not, but its first token is a step away.
  AdmissionControl control;
  const auto now = std::chrono::steady_clock::now();
  record_completions(control, std::chrono::seconds(1), now);  // one completion a second
  EngineOutlook outlook;
  outlook.free_slots = 1;
  outlook.step_seconds = 0.5;
  control.publish(outlook);
  EXPECT_DOUBLE_EQ(control.expected_wait(Priority::kNormal).count(), 0.5);  // nobody overtakes
  for (int i = 0; i < 10; ++i) {  // ten high requests a second, started and gone
    ASSERT_FALSE(control.enter(Priority::kHigh, std::nullopt));
    control.left_queue(Priority::kHigh);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_DOUBLE_EQ(control.expected_wait(Priority::kHigh).count(), 0.5);
  EXPECT_GT(control.expected_wait(Priority::kNormal).count(), 1.5);
  // Arriving in the middle of a step, a request cannot start before the step ends.
  outlook.step_end = std::chrono::steady_clock::now() - std::chrono::milliseconds(200) +
                     std::chrono::milliseconds(500);
  control.publish(outlook);
  EXPECT_NEAR(control.expected_wait(Priority::kHigh).count(), 0.8, 0.05);
}

TEST(AdmissionControl, RefusedHigherClassRequestsStillCountAsLikelyToTakeAFreeSlot) {
  // Under overload most high requests are refused while every slot is busy, so few are
  // accepted; but when a slot frees up, the next high request to arrive takes it. A normal
  // request must count the high requests offered, not only those accepted so far.
  AdmissionControl control;
  const auto now = std::chrono::steady_clock::now();
  record_completions(control, std::chrono::seconds(1), now);  // one completion a second
  EngineOutlook outlook;
  outlook.step_seconds = 0.5;
  outlook.free_slots = 0;
  control.publish(outlook);
  for (int i = 0; i < 10; ++i) {  // ten high requests a second, refused: too tight a deadline
    ASSERT_TRUE(control.enter(Priority::kHigh,
                              std::chrono::steady_clock::now() + std::chrono::milliseconds(10)));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(control.arrival_rate(Priority::kHigh), 0.0);  // none accepted
  outlook.free_slots = 1;
  control.publish(outlook);
  EXPECT_GT(control.expected_wait(Priority::kNormal).count(), 1.5);
}

TEST(AdmissionControl, BatchesFinishingTogetherDoNotInflateTheRate) {
  // Four sequences finish in the same step, once a second: 4 requests/s, however close the
  // four finishes are to each other.
  AdmissionControl control;
  const auto now = std::chrono::steady_clock::now();
  for (int second = 30; second >= 0; --second) {
    for (int i = 0; i < 4; ++i) {
      control.record_finish(now - std::chrono::seconds(second) + std::chrono::microseconds(i));
    }
  }
  const double rate = control.completion_rate();
  EXPECT_GT(rate, 2.0);
  EXPECT_LT(rate, 8.0);
}

TEST(AdmissionControl, AColdStartsFirstBatchFinishingTogetherIsNotAFastRate) {
  // A fresh engine starts four sequences at once; a second later all four finish in one step.
  // That is four completions a second. Averaged from its first near-zero gap instead, the rate
  // looked thousands a second fast for several seconds, and deadlines accepted against it were
  // refused late in the queue.
  AdmissionControl control;
  const auto start = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  control.engine_busy(start);
  for (int i = 0; i < 4; ++i)
    control.record_finish(start + std::chrono::seconds(1) + std::chrono::microseconds(i));
  const double rate = control.completion_rate();
  EXPECT_GT(rate, 2.0);
  EXPECT_LT(rate, 8.0);
}

TEST(AdmissionControl, AnIdleSpellIsNotPartOfTheServiceRate) {
  // Ten completions a second, then nothing to do for a minute; busy again, the next completion
  // 0.1 s later keeps the rate at about ten a second.
  AdmissionControl control;
  const auto now = std::chrono::steady_clock::now();
  record_completions(control, std::chrono::milliseconds(100), now - std::chrono::seconds(60));
  control.engine_busy(now - std::chrono::milliseconds(100));
  control.record_finish(now);
  EXPECT_NEAR(control.completion_rate(), 10.0, 1.0);
}

TEST(AdmissionControl, BurstyCompletionsLengthenTheWait) {
  // Four completions a second either way: evenly spaced, or four at once every second. A
  // request that needs one completion waits about 0.25 s in the first case, but up to a
  // second in the second; accepting it against the mean would let it miss its deadline.
  AdmissionControl even;
  AdmissionControl bursty;
  const auto now = std::chrono::steady_clock::now();
  for (int i = 120; i >= 0; --i)
    even.record_finish(now - std::chrono::milliseconds(250 * i));
  for (int second = 30; second >= 0; --second) {
    for (int i = 0; i < 4; ++i)
      bursty.record_finish(now - std::chrono::seconds(second) + std::chrono::microseconds(i));
  }
  EXPECT_LT(even.completion_spread(), 0.1);
  EXPECT_GT(bursty.completion_spread(), 1.0);
  const double even_wait = even.expected_wait(Priority::kNormal, 0).count();
  const double bursty_wait = bursty.expected_wait(Priority::kNormal, 0).count();
  EXPECT_NEAR(even_wait, 0.25, 0.05);
  EXPECT_GT(bursty_wait, 0.75);
}

TEST(AdmissionControl, APredictionStandsInUntilCompletionsAreMeasured) {
  // A cold start into a surge: nothing has finished yet, so without the engine's prediction
  // every deadline would be accepted and left to expire in the queue.
  AdmissionControl control;
  EngineOutlook outlook;
  outlook.free_slots = 0;
  control.publish(outlook);
  EXPECT_EQ(control.expected_wait(Priority::kNormal, 0).count(), 0.0);
  outlook.predicted_rate = 2.0;
  control.publish(outlook);
  EXPECT_EQ(control.completion_rate(), 2.0);
  EXPECT_GT(control.expected_wait(Priority::kNormal, 0).count(), 0.5);
  const auto now = std::chrono::steady_clock::now();
  ASSERT_FALSE(control.enter(Priority::kNormal, now + std::chrono::seconds(60)));
  auto refused = control.enter(Priority::kNormal, now + std::chrono::milliseconds(100));
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->error.code, ErrorCode::kDeadline);
  // Measured completions take over.
  record_completions(control, std::chrono::milliseconds(10), now);
  EXPECT_GT(control.completion_rate(), 50.0);
}

TEST(AdmissionControl, HigherClassesArrivingLengthenALowerClassWait) {
  // Ten completions a second; then a flood of high requests. Each of them will start before
  // any normal request that is waiting, so a normal request's expected wait grows with the
  // high arrival rate, while a high request's does not.
  AdmissionControl control;
  const auto now = std::chrono::steady_clock::now();
  record_completions(control, std::chrono::milliseconds(100), now);
  const double normal_before = control.expected_wait(Priority::kNormal, 0).count();
  EXPECT_NEAR(normal_before, 0.1, 0.05);
  for (int i = 0; i < 20; ++i)
    ASSERT_FALSE(control.enter(Priority::kHigh, std::nullopt));
  EXPECT_GT(control.arrival_rate(Priority::kHigh), 10.0);
  EXPECT_EQ(control.arrival_rate(Priority::kNormal), 0.0);
  const double high = control.expected_wait(Priority::kHigh, 0).count();
  const double normal = control.expected_wait(Priority::kNormal, 0).count();
  EXPECT_NEAR(high, normal_before, 0.05);
  EXPECT_GT(normal, 10 * high);
  // The more ahead, the longer.
  EXPECT_GT(control.expected_wait(Priority::kHigh, 9).count(), 5 * high);
}

TEST(AdmissionControl, TheSlotReleasesGiveTheWaitForTheKthSlot) {
  // Two running sequences finish in 1 s and 2 s; a sequence takes 3 s; a step 0.1 s.
  AdmissionControl control;
  EXPECT_FALSE(control.wait_for_slot(Priority::kNormal, 0, std::chrono::steady_clock::now()));
  EngineOutlook outlook;
  outlook.step_seconds = 0.1;
  control.publish(outlook);
  const auto now = std::chrono::steady_clock::now();
  outlook.releases = {now + std::chrono::seconds(2), now + std::chrono::seconds(1)};
  outlook.service_seconds = 3.0;
  control.publish(outlook);
  EXPECT_NEAR(control.wait_for_slot(Priority::kNormal, 0, now)->count(), 1.1, 1e-6);
  EXPECT_NEAR(control.wait_for_slot(Priority::kNormal, 1, now)->count(), 2.1, 1e-6);
  EXPECT_NEAR(control.wait_for_slot(Priority::kNormal, 2, now)->count(), 4.1, 1e-6);  // 1 + 3
  EXPECT_NEAR(control.wait_for_slot(Priority::kNormal, 3, now)->count(), 5.1, 1e-6);  // 2 + 3
  // Half a second later the first slot is half a second nearer (a rate would not know).
  EXPECT_NEAR(
      control.wait_for_slot(Priority::kNormal, 0, now + std::chrono::milliseconds(500))->count(),
      0.6, 1e-6);
  // Higher classes arriving meanwhile take slots first; the highest class has none above it.
  for (int i = 0; i < 20; ++i)
    ASSERT_FALSE(control.enter(Priority::kHigh, std::nullopt));
  EXPECT_NEAR(control.wait_for_slot(Priority::kHigh, 0, now)->count(), 1.1, 1e-6);
  EXPECT_GT(control.wait_for_slot(Priority::kNormal, 0, now)->count(), 4.0);
  outlook.releases.clear();
  outlook.service_seconds = 0;
  control.publish(outlook);
  EXPECT_FALSE(control.wait_for_slot(Priority::kNormal, 0, now));
}

TEST(AdmissionControl, AHigherClassJustSeenDoesNotYetCountAsOvertakingTheSlots) {
  // Two high requests a moment apart on a fresh server: one gap, a rate of thousands a second.
  // Counted, it would put every slot out of reach; it counts from four gaps on.
  AdmissionControl control;
  EngineOutlook outlook;
  outlook.step_seconds = 0.1;
  control.publish(outlook);
  const auto now = std::chrono::steady_clock::now();
  outlook.releases = {now + std::chrono::seconds(1)};
  outlook.service_seconds = 3.0;
  control.publish(outlook);
  for (int i = 0; i < 2; ++i)
    ASSERT_FALSE(control.enter(Priority::kHigh, std::nullopt));
  EXPECT_NEAR(control.wait_for_slot(Priority::kNormal, 0, now)->count(), 1.1, 1e-6);
  for (int i = 0; i < 3; ++i)
    ASSERT_FALSE(control.enter(Priority::kHigh, std::nullopt));
  EXPECT_GT(control.wait_for_slot(Priority::kNormal, 0, now)->count(), 4.0);
}

TEST(AdmissionControl, ADeadlineIsRefusedOnArrivalWhenNoSlotFreesInTimeWhateverTheRate) {
  // A hundred completions a second measured, but the four running sequences started together
  // and none finishes for 5 s: a 1-second deadline is out of reach.
  AdmissionControl control;
  const auto now = std::chrono::steady_clock::now();
  record_completions(control, std::chrono::milliseconds(10), now);
  EngineOutlook outlook;
  outlook.free_slots = 0;
  outlook.step_seconds = 0.01;
  control.publish(outlook);
  // By the rate alone, a 1-second deadline is accepted.
  EXPECT_FALSE(control.enter(Priority::kNormal, now + std::chrono::seconds(1)));
  control.left_queue(Priority::kNormal);
  const auto in_five = now + std::chrono::seconds(5);
  outlook.releases = {in_five, in_five, in_five, in_five};
  outlook.service_seconds = 5.0;
  control.publish(outlook);
  auto refused = control.enter(Priority::kNormal, now + std::chrono::seconds(1));
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->error.code, ErrorCode::kDeadline);
  EXPECT_FALSE(control.enter(Priority::kNormal, now + std::chrono::seconds(30)));
}

// Two controls, one without aging and one with `aging`, each measuring ten completions a second
// and then seeing a flood of high requests (far more than the engine completes).
struct FloodedPair {
  explicit FloodedPair(std::chrono::milliseconds aging) : aged(AdmissionOptions{{0, 0, 0}, aging}) {
    const auto now = std::chrono::steady_clock::now();
    for (AdmissionControl* control : {&never, &aged}) {
      record_completions(*control, std::chrono::milliseconds(100), now);
      for (int i = 0; i < 20; ++i)
        EXPECT_FALSE(control->enter(Priority::kHigh, std::nullopt));
    }
  }
  AdmissionControl never;
  AdmissionControl aged;
};

TEST(AdmissionControl, AgingEndsTheOvertakingOfALowerClassWait) {
  // High requests overtake a normal one only until it has waited one aging step (1 s): then it
  // competes as high and is older than all of them, so the nine ahead of it and itself start
  // at ten a second. Without aging it waits on a floor of the rate (16 times the service time).
  FloodedPair pair(std::chrono::seconds(1));
  ASSERT_GT(pair.aged.arrival_rate(Priority::kHigh), 100.0);
  EXPECT_GT(pair.never.expected_wait(Priority::kNormal, 9).count(), 15.0);
  EXPECT_NEAR(pair.aged.expected_wait(Priority::kNormal, 9).count(), 1.0 + 1.0, 0.1);
  // Low needs two steps up.
  EXPECT_NEAR(pair.aged.expected_wait(Priority::kLow, 9).count(), 2.0 + 1.0, 0.1);
  // A request that has waited already has less of its step left, and none once it is high.
  using Seconds = std::chrono::duration<double>;
  EXPECT_NEAR(pair.aged.expected_wait(Priority::kNormal, 9, Seconds(0.75)).count(), 0.25 + 1.0,
              0.1);
  EXPECT_NEAR(pair.aged.expected_wait(Priority::kLow, 9, Seconds(1.5)).count(), 0.5 + 1.0, 0.1);
  EXPECT_NEAR(pair.aged.expected_wait(Priority::kNormal, 9, Seconds(1.5)).count(), 1.0, 0.1);
  // The highest class is not affected.
  EXPECT_NEAR(pair.aged.expected_wait(Priority::kHigh, 9).count(),
              pair.never.expected_wait(Priority::kHigh, 9).count(), 1e-6);
}

TEST(AdmissionControl, AgingBoundsTheSlotWaitAndTheRetryAfterOfALowerClass) {
  // The slot releases: one slot, free in 1 s, then a sequence every 0.1 s. Overtaken for good,
  // a normal request's slot is always taken; aged after 1 s, it gets the next one.
  FloodedPair pair(std::chrono::seconds(1));
  EngineOutlook outlook;
  outlook.step_seconds = 0.1;
  outlook.releases = {std::chrono::steady_clock::now() + std::chrono::seconds(1)};
  outlook.service_seconds = 0.1;
  for (AdmissionControl* control : {&pair.never, &pair.aged})
    control->publish(outlook);
  const auto now = std::chrono::steady_clock::now();
  EXPECT_GT(pair.never.wait_for_slot(Priority::kNormal, 0, now)->count(), 10.0);
  EXPECT_LT(pair.aged.wait_for_slot(Priority::kNormal, 0, now)->count(), 10.0);
  // Refused at a full queue (twenty high requests waiting, no free slot), a low request is told
  // to come back when aging would have started it, not at the 60 s cap.
  outlook.releases.clear();
  outlook.service_seconds = 0;
  outlook.free_slots = 0;
  outlook.step_seconds = 0;  // no step in the way: only the rate and the aging count
  for (AdmissionControl* control : {&pair.never, &pair.aged})
    control->publish(outlook);
  EXPECT_GE(pair.never.retry_after(Priority::kLow).count(), 30);
  const auto aged_retry = pair.aged.retry_after(Priority::kLow).count();
  EXPECT_GE(aged_retry, 4);  // two aging steps, then twenty starts at ten a second
  EXPECT_LE(aged_retry, 5);
}

TEST(RateLimiter, RequestBucketRefillsAtItsRate) {
  RateLimiter limiter;
  limiter.set_limit("k", {2.0, 2.0, 0});
  const auto t0 = RateLimiter::Clock::now();
  EXPECT_FALSE(limiter.acquire("k", t0));
  EXPECT_FALSE(limiter.acquire("k", t0));
  auto wait = limiter.acquire("k", t0);
  ASSERT_TRUE(wait);
  EXPECT_NEAR(wait->count(), 0.5, 0.01);
  EXPECT_FALSE(limiter.acquire("k", t0 + std::chrono::milliseconds(500)));
  EXPECT_FALSE(limiter.acquire("unlimited", t0));
}

TEST(RateLimiter, TokenDebtBlocksUntilRepaid) {
  RateLimiter limiter;
  limiter.set_limit("k", {0, 0, 600});  // 10 tokens per second
  const auto t0 = RateLimiter::Clock::now();
  EXPECT_FALSE(limiter.acquire("k", t0));
  limiter.charge_tokens("k", 650, t0);  // 50 tokens in debt
  auto wait = limiter.acquire("k", t0);
  ASSERT_TRUE(wait);
  EXPECT_NEAR(wait->count(), 5.0, 0.01);
  EXPECT_FALSE(limiter.acquire("k", t0 + std::chrono::seconds(5)));
}

}  // namespace
}  // namespace supportd::sched
