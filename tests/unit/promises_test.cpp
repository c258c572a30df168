// Keeping the promises made to requests accepted with a deadline (sched/promises.h), without a
// model: who takes the last free slot, whether a promise can still be kept, which fall due.
#include "sched/promises.h"

#include <gtest/gtest.h>

#include <vector>

namespace supportd::sched {
namespace {

using std::chrono::milliseconds;
const Clock::time_point t0 = Clock::time_point{} + std::chrono::hours(1);
const Pace pace{.step_seconds = 0.1, .prompt_chunk = 64};  // answer tokens: 10 a second

// A request with `answer_left` tokens to generate (a tenth of a second each) and, when
// `deadline_ms` >= 0, a deadline that long after t0.
RequestView request(std::uint64_t id, int answer_left, int deadline_ms, int cells = 10) {
  RequestView r;
  r.id = id;
  r.submitted = t0;
  r.answer_left = answer_left;
  r.cells = cells;
  if (deadline_ms >= 0) r.deadline = t0 + milliseconds(deadline_ms);
  return r;
}

RequestView running_stream(std::uint64_t id, int answer_left, Priority priority) {
  RequestView r = request(id, answer_left, -1);
  r.priority = priority;
  r.has_first_token = true;
  return r;
}

TEST(Promises, OnlyTheLastFreeSlotOfATimedContinuousEngineIsWeighed) {
  const PromiseRules rules;
  const RequestView chosen = request(1, 30, 10000);
  EXPECT_TRUE(may_pass_over(chosen, 1, pace, rules));
  EXPECT_FALSE(may_pass_over(chosen, 2, pace, rules));    // more slots: no one's last chance
  EXPECT_FALSE(may_pass_over(chosen, 1, Pace{}, rules));  // steps not timed yet
  EXPECT_FALSE(may_pass_over(chosen, 1, pace, {.continuous = false, .preemption = true}));
  // Neither a deadline nor a started stream: a promise nobody measured, never passed over.
  EXPECT_FALSE(may_pass_over(request(2, 30, -1), 1, pace, rules));
  RequestView resuming = request(3, 30, -1);
  resuming.has_first_token = true;
  EXPECT_TRUE(may_pass_over(resuming, 1, pace, rules));
}

TEST(Promises, TheLastFreeSlotGoesToTheRequestWhoseLastChanceItIs) {
  // The running stream frees its slot in 2 s; the chosen request would take 3 s. If it takes
  // the slot, the next frees at 2.1 s: a promise due at 1 s can only start now, and the chosen
  // request, due at 10 s, can wait for the next slot (0.6 s after the promised one starts).
  const std::vector<RequestView> running = {running_stream(9, 20, Priority::kLow)};
  const RequestView chosen = request(1, 30, 10000);
  const RequestView promised = request(2, 5, 1000);
  std::vector<RequestView> waiting = {chosen, promised};
  EXPECT_EQ(keep_promise(chosen, waiting, running, 100, pace, t0), 2u);
  // The earliest deadline of those whose last chance it is.
  waiting.push_back(request(3, 5, 800));
  EXPECT_EQ(keep_promise(chosen, waiting, running, 100, pace, t0), 3u);
  // A stream resuming after a pause has no deadline left to keep: it waits too.
  RequestView resuming = request(1, 30, -1);
  resuming.has_first_token = true;
  EXPECT_EQ(keep_promise(resuming, waiting, running, 100, pace, t0), 3u);
}

TEST(Promises, TheChosenRequestKeepsTheSlotWhenItCannotWaitOrNoOneNeedsIt) {
  const std::vector<RequestView> running = {running_stream(9, 20, Priority::kLow)};
  const auto pick = [&](const RequestView& other, const RequestView& first = request(1, 30, 10000),
                        std::int64_t free_cells = 100) {
    const std::vector<RequestView> waiting = {first, other};
    return keep_promise(first, waiting, running, free_cells, pace, t0);
  };
  EXPECT_EQ(pick(request(2, 5, 2500)), 1u);       // the next slot (2.1 s) is in time for it
  EXPECT_EQ(pick(request(2, 5, 1000, 200)), 1u);  // it would not fit the free cells
  EXPECT_EQ(pick(request(2, 5, 0)), 1u);          // its deadline has passed: not kept here
  RequestView started = request(2, 5, 1000);
  started.has_first_token = true;  // a started stream's promise is kept already
  EXPECT_EQ(pick(started), 1u);
  // The chosen request's own deadline falls before the next slot (0.6 s) would come.
  EXPECT_EQ(pick(request(2, 5, 1000), request(1, 30, 500)), 1u);
  EXPECT_EQ(pick(request(2, 5, 1000), request(1, 30, 700)), 2u);
}

TEST(Promises, APromiseCanBeKeptInAFreeSlotOrByAStreamThatMayPause) {
  const PromiseRules rules;
  std::vector<RequestView> running = {running_stream(9, 20, Priority::kHigh)};
  EXPECT_TRUE(can_keep_promise(Priority::kNormal, running, 1, rules));
  EXPECT_FALSE(can_keep_promise(Priority::kNormal, running, 0, rules));  // a higher class runs
  running.push_back(running_stream(8, 20, Priority::kNormal));
  EXPECT_TRUE(can_keep_promise(Priority::kNormal, running, 0, rules));
  running.back().preemptions = 1;  // it paused once already
  EXPECT_FALSE(can_keep_promise(Priority::kNormal, running, 0, rules));
  // Without preemption, or in dynamic batching, no promise is kept by this way at all.
  EXPECT_FALSE(can_keep_promise(Priority::kNormal, running, 1, {.preemption = false}));
  EXPECT_FALSE(can_keep_promise(Priority::kNormal, running, 1, {.continuous = false}));
}

TEST(Promises, ThePromisesDueAreThoseBeforeTheWindowEarliestFirst) {
  EXPECT_DOUBLE_EQ(promise_window(0.2, 0.01), 0.4);       // twice the slowest iteration
  EXPECT_DOUBLE_EQ(promise_window(0.01, 0.05), 0.15);     // three mean steps
  EXPECT_DOUBLE_EQ(promise_window(0.001, 0.001), 0.025);  // the least: kPromiseJitter
  RequestView started = request(4, 5, 100);
  started.has_first_token = true;
  RequestView overran = request(6, 5, 0);
  overran.deadline = t0 - milliseconds(20);  // passed during a step that overran
  const std::vector<RequestView> waiting = {request(1, 5, 300), request(2, 5, -1),
                                            request(3, 5, 50),  started,
                                            request(5, 5, 900), overran};
  std::vector<const RequestView*> due;
  due_promises(waiting, t0 + milliseconds(400), due);
  std::vector<std::uint64_t> ids;
  for (const RequestView* r : due)
    ids.push_back(r->id);
  EXPECT_EQ(ids, (std::vector<std::uint64_t>{6, 3, 1}));
}

}  // namespace
}  // namespace supportd::sched
