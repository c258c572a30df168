// Which running stream pauses for a waiting request (sched/preemption.h), without a model.
#include "sched/preemption.h"

#include <gtest/gtest.h>

#include <vector>

namespace supportd::sched {
namespace {

const Clock::time_point t0 = Clock::time_point{} + std::chrono::hours(1);

RequestView stream(std::uint64_t id, Priority priority, int admitted_ms) {
  RequestView r;
  r.id = id;
  r.priority = priority;
  r.submitted = t0;
  r.admitted = t0 + std::chrono::milliseconds(admitted_ms);
  r.has_first_token = true;
  return r;
}

std::uint64_t id_of(const RequestView* view) {
  return view == nullptr ? 0 : view->id;
}

TEST(Preemption, TheLowestClassPausesFirstThenTheLatestAdmitted) {
  const std::vector<RequestView> running = {
      stream(1, Priority::kLow, 0), stream(2, Priority::kNormal, 30), stream(3, Priority::kLow, 20),
      stream(4, Priority::kLow, 10)};
  EXPECT_EQ(id_of(stream_to_pause(running, Priority::kHigh)), 3u);
  EXPECT_EQ(id_of(stream_to_pause_for_promise(running, Priority::kHigh)), 3u);
}

TEST(Preemption, OnlyALowerClassGivesWayToARequestAndNeverOnePromisedAStart) {
  std::vector<RequestView> running = {stream(1, Priority::kNormal, 0),
                                      stream(2, Priority::kHigh, 10)};
  EXPECT_EQ(stream_to_pause(running, Priority::kNormal), nullptr);  // same class: no
  EXPECT_EQ(id_of(stream_to_pause(running, Priority::kHigh)), 1u);  // a lower one gives way
  running.push_back(stream(3, Priority::kLow, 20));
  EXPECT_EQ(id_of(stream_to_pause(running, Priority::kNormal)), 3u);
  // Started with a deadline and no first token yet: it keeps running.
  running.back().has_first_token = false;
  running.back().deadline = t0 + std::chrono::seconds(1);
  EXPECT_FALSE(may_pause_for(running.back(), Priority::kHigh));
  EXPECT_EQ(stream_to_pause(running, Priority::kNormal), nullptr);
  // With its first token, the deadline is kept already.
  running.back().has_first_token = true;
  EXPECT_EQ(id_of(stream_to_pause(running, Priority::kNormal)), 3u);
  // A stream that finished during the step is not there to pause.
  running.back().streaming = false;
  EXPECT_EQ(stream_to_pause(running, Priority::kNormal), nullptr);
}

TEST(Preemption, APromiseMayPauseItsOwnClassButNoStreamTwice) {
  std::vector<RequestView> running = {stream(1, Priority::kNormal, 0)};
  EXPECT_TRUE(may_pause_for_promise(running[0], Priority::kNormal));
  EXPECT_FALSE(may_pause_for(running[0], Priority::kNormal));
  EXPECT_FALSE(may_pause_for_promise(running[0], Priority::kLow));  // a higher class: no
  running[0].preemptions = 1;  // paused for a promise once already
  EXPECT_EQ(stream_to_pause_for_promise(running, Priority::kNormal), nullptr);
  EXPECT_EQ(id_of(stream_to_pause(running, Priority::kHigh)), 1u);  // outranked, it still gives way
  running[0].preemptions = 0;
  running[0].has_first_token = false;
  running[0].deadline = t0;  // promised itself
  EXPECT_EQ(stream_to_pause_for_promise(running, Priority::kNormal), nullptr);
}

}  // namespace
}  // namespace supportd::sched
