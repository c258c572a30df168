// Which waiting requests' deadlines have passed or are out of reach (sched/deadlines.h),
// without a model: admission control's estimates come from an outlook published by hand.
#include "sched/deadlines.h"

#include <gtest/gtest.h>

#include <vector>

namespace supportd::sched {
namespace {

using std::chrono::milliseconds;

RequestView waiting_request(std::uint64_t id, Priority priority, Clock::time_point submitted,
                            std::optional<Clock::time_point> deadline) {
  RequestView r;
  r.id = id;
  r.priority = priority;
  r.submitted = submitted;
  r.deadline = deadline;
  r.answer_left = 10;
  return r;
}

RequestView running_stream(std::uint64_t id, Priority priority) {
  RequestView r = waiting_request(id, priority, {}, std::nullopt);
  r.has_first_token = true;
  return r;
}

std::vector<std::uint64_t> ids(std::span<const Unreachable> refused) {
  std::vector<std::uint64_t> out;
  for (const Unreachable& r : refused)
    out.push_back(r.id);
  return out;
}

TEST(Deadlines, APassedDeadlineExpiresUnlessTheLoopWasLateAndThePromiseCanBeKept) {
  const auto now = Clock::now();
  const auto last_admission = now - milliseconds(100);
  const std::vector<RequestView> waiting = {
      waiting_request(1, Priority::kNormal, now, now - milliseconds(200)),  // before admission
      waiting_request(2, Priority::kNormal, now, now - milliseconds(50)),   // since admission
      waiting_request(3, Priority::kNormal, now, now + milliseconds(50)),   // not yet
      waiting_request(4, Priority::kNormal, now, std::nullopt)};
  RequestView started = waiting_request(5, Priority::kNormal, now, now - milliseconds(50));
  started.has_first_token = true;  // resuming: its promise was kept
  std::vector<RequestView> all = waiting;
  all.push_back(started);
  const std::vector<RequestView> running = {running_stream(9, Priority::kLow)};
  std::vector<std::uint64_t> expired;
  // A stream may pause for request 2: the step overran, the start comes a step late.
  expired_deadlines(all, running, 0, PromiseRules{}, now, last_admission, expired);
  EXPECT_EQ(expired, (std::vector<std::uint64_t>{1}));
  // Nothing to pause and no free slot, or no pausing at all: it expires too.
  expired_deadlines(all, {}, 0, PromiseRules{}, now, last_admission, expired);
  EXPECT_EQ(expired, (std::vector<std::uint64_t>{1, 2}));
  expired_deadlines(all, running, 1, {.preemption = false}, now, last_admission, expired);
  EXPECT_EQ(expired, (std::vector<std::uint64_t>{1, 2}));
  // A free slot keeps it.
  expired_deadlines(all, {}, 1, PromiseRules{}, now, last_admission, expired);
  EXPECT_EQ(expired, (std::vector<std::uint64_t>{1}));
}

// Tells admission control of one running sequence, finishing in 1 s, then one every 3 s;
// steps of 0.1 s; no free slot.
void one_slot_in_a_second(AdmissionControl& admission, Clock::time_point now) {
  EngineOutlook outlook;
  outlook.free_slots = 0;
  outlook.step_seconds = 0.1;
  outlook.releases = {now + std::chrono::seconds(1)};
  outlook.service_seconds = 3.0;
  admission.publish(outlook);
}

TEST(Deadlines, ADeadlineTheSlotReleasesCannotMeetIsRefusedWhileEverySlotIsBusy) {
  const auto now = Clock::now();
  AdmissionControl admission;
  one_slot_in_a_second(admission, now);
  const std::vector<RequestView> waiting = {
      waiting_request(1, Priority::kNormal, now - milliseconds(2), now + milliseconds(500)),
      waiting_request(2, Priority::kNormal, now - milliseconds(1), now + milliseconds(2000))};
  // The first needs 1.1 s; the second too, as the first, refused, is no longer ahead of it.
  DeadlineCheck check({.preemption = false}, milliseconds(0));
  const auto refused = check.unreachable(waiting, {}, 0, admission, now);
  ASSERT_EQ(ids(refused), (std::vector<std::uint64_t>{1}));
  EXPECT_NEAR(refused[0].wait.count(), 1.1, 1e-6);
  EXPECT_EQ(refused[0].ahead, 0);
  // With a free slot, nothing waits for a release: nothing to refuse.
  EXPECT_TRUE(check.unreachable(waiting, {}, 1, admission, now).empty());
}

TEST(Deadlines, ARequestOvertakenByAHigherClassIsRefusedWhenItsSlotComesTooLate) {
  const auto now = Clock::now();
  AdmissionControl admission;
  one_slot_in_a_second(admission, now);
  // Alone, the normal request starts at the release (1.1 s), within its 2 s. A high request,
  // younger and without a deadline, starts first: the normal one's slot frees at 4.1 s.
  std::vector<RequestView> waiting = {
      waiting_request(1, Priority::kNormal, now - milliseconds(10), now + milliseconds(2000))};
  DeadlineCheck check({.preemption = false}, milliseconds(0));
  EXPECT_TRUE(check.unreachable(waiting, {}, 0, admission, now).empty());
  waiting.push_back(waiting_request(2, Priority::kHigh, now, std::nullopt));
  const auto refused = check.unreachable(waiting, {}, 0, admission, now);
  ASSERT_EQ(ids(refused), (std::vector<std::uint64_t>{1}));
  EXPECT_NEAR(refused[0].wait.count(), 4.1, 1e-6);
  EXPECT_EQ(refused[0].ahead, 1);
  // Aged one class (2 s waited, aging 1 s: high, and older), it starts first again.
  waiting[0].submitted = now - milliseconds(2000);
  DeadlineCheck aging({.preemption = false}, milliseconds(1000));
  EXPECT_TRUE(aging.unreachable(waiting, {}, 0, admission, now).empty());
}

TEST(Deadlines, AStreamThatMayPauseKeepsOnePromiseFromRefusal) {
  const auto now = Clock::now();
  AdmissionControl admission;
  one_slot_in_a_second(admission, now);
  const std::vector<RequestView> waiting = {
      waiting_request(1, Priority::kNormal, now, now + milliseconds(300)),
      waiting_request(2, Priority::kNormal, now + milliseconds(1), now + milliseconds(300))};
  std::vector<RequestView> running = {running_stream(9, Priority::kLow)};
  DeadlineCheck check(PromiseRules{}, milliseconds(0));
  // One stream, one promise: the first in start order is kept, the second refused.
  EXPECT_EQ(ids(check.unreachable(waiting, running, 0, admission, now)),
            (std::vector<std::uint64_t>{2}));
  running.push_back(running_stream(8, Priority::kNormal));
  EXPECT_TRUE(check.unreachable(waiting, running, 0, admission, now).empty());
  // A stream of a higher class, or one paused once already, keeps none.
  running = {running_stream(9, Priority::kHigh), running_stream(8, Priority::kLow)};
  running[1].preemptions = 1;
  EXPECT_EQ(ids(check.unreachable(waiting, running, 0, admission, now)),
            (std::vector<std::uint64_t>{1, 2}));
}

}  // namespace
}  // namespace supportd::sched
