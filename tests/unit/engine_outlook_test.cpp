// The engine's outlook (sched/outlook.h): forecast from views of the running requests, and
// published to admission control whole, without a model.
#include "sched/outlook.h"

#include <gtest/gtest.h>

#include <vector>

#include "sched/admission_control.h"

namespace supportd::sched {
namespace {

using std::chrono::milliseconds;
const Clock::time_point t0 = Clock::time_point{} + std::chrono::hours(1);

// A running request with `prompt_left` of `prompt` tokens and `answer_left` of `answer`.
RequestView running(std::uint64_t id, std::size_t prompt_left, int answer_left, std::size_t prompt,
                    int answer) {
  RequestView r;
  r.id = id;
  r.prompt_left = prompt_left;
  r.answer_left = answer_left;
  r.prompt_computed = prompt;
  r.answer_max = answer;
  return r;
}

TEST(EngineOutlook, TheRunningRequestsWorkGivesTheReleasesAndTheRate) {
  const Pace pace{.step_seconds = 0.1, .prompt_chunk = 64};
  // 100 prompt tokens left: two chunks; then 8 answer tokens. A whole request: 2 + 10 steps.
  std::vector<RequestView> requests = {running(1, 100, 8, 100, 10), running(2, 0, 3, 64, 10)};
  RequestView finished = running(3, 0, 0, 64, 10);
  finished.streaming = false;  // finished during the step: it frees its slot now
  requests.push_back(finished);
  EngineOutlook outlook;
  outlook.step_end = t0;  // the engine's to set: left alone
  forecast(requests, 3, false, pace, t0, outlook);
  EXPECT_EQ(outlook.free_slots, 3);
  EXPECT_DOUBLE_EQ(outlook.step_seconds, 0.1);
  ASSERT_EQ(outlook.releases.size(), 2u);
  EXPECT_NEAR(std::chrono::duration<double>(outlook.releases[0] - t0).count(), 1.0, 1e-9);
  EXPECT_NEAR(std::chrono::duration<double>(outlook.releases[1] - t0).count(), 0.3, 1e-9);
  EXPECT_NEAR(outlook.service_seconds, (1.2 + 1.1) / 2, 1e-9);
  EXPECT_NEAR(outlook.predicted_rate, 2 / outlook.service_seconds, 1e-9);
  EXPECT_EQ(outlook.step_end, t0);
  // Requests left waiting hold no slot; with nothing running the last prediction stands.
  forecast({}, 3, true, pace, t0, outlook);
  EXPECT_EQ(outlook.free_slots, 0);
  EXPECT_TRUE(outlook.releases.empty());
  EXPECT_EQ(outlook.service_seconds, 0);
  EXPECT_NEAR(outlook.predicted_rate, 2 / 1.15, 1e-9);
  // Until a step is timed there are no releases to tell.
  forecast(requests, 3, false, Pace{}, t0, outlook);
  EXPECT_TRUE(outlook.releases.empty());
}

TEST(EngineOutlook, AdmissionControlReadsTheLastOutlookWhole) {
  AdmissionControl admission;
  const auto now = std::chrono::steady_clock::now();
  EngineOutlook busy;
  busy.free_slots = 0;
  busy.step_seconds = 0.1;
  busy.releases = {now + std::chrono::seconds(3), now + std::chrono::seconds(2)};
  busy.service_seconds = 5;
  busy.predicted_rate = 0.4;
  admission.publish(busy);
  ASSERT_FALSE(admission.enter(Priority::kNormal, std::nullopt));  // one request waits
  // The re-check's wait is the releases' (the second slot, 3 s) while they are known...
  EXPECT_NEAR(admission.wait_to_start(Priority::kNormal, 1, now, {}).count(), 3.1, 1e-6);
  // No slot free: an arrival waits for a completion (at the predicted rate, with its spread).
  EXPECT_GT(admission.expected_wait(Priority::kNormal).count(), 2.1);
  // ...and the rate's once an outlook without them replaces that one.
  EngineOutlook idle;
  idle.step_seconds = 0.1;
  idle.predicted_rate = 0.4;
  idle.free_slots = 4;
  admission.publish(idle);
  EXPECT_DOUBLE_EQ(admission.wait_to_start(Priority::kNormal, 1, now, {}).count(),
                   admission.expected_wait(Priority::kNormal, 1).count());
  EXPECT_FALSE(admission.wait_for_slot(Priority::kNormal, 1, now));
  // Four free slots, one taken by the request waiting, no step running: the next step.
  EXPECT_DOUBLE_EQ(admission.expected_wait(Priority::kNormal).count(), 0.1);
}

}  // namespace
}  // namespace supportd::sched
