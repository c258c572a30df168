#include "sched/admission_queue.h"

#include <gtest/gtest.h>

namespace supportd::sched {
namespace {

Ticket ticket(std::uint64_t id, Priority p) {
  return Ticket{id, p, "", Clock::now(), 10};
}

TEST(AdmissionQueue, HigherClassesGoFirstThenArrivalOrder) {
  AdmissionQueue q;
  q.push(ticket(1, Priority::kLow));
  q.push(ticket(2, Priority::kNormal));
  q.push(ticket(3, Priority::kHigh));
  q.push(ticket(4, Priority::kNormal));
  EXPECT_EQ(q.pop().id, 3u);
  EXPECT_EQ(q.pop().id, 2u);
  EXPECT_EQ(q.pop().id, 4u);
  EXPECT_EQ(q.pop().id, 1u);
  EXPECT_TRUE(q.empty());
}

TEST(AdmissionQueue, EraseRemovesAWaitingRequest) {
  AdmissionQueue q;
  q.push(ticket(1, Priority::kNormal));
  q.push(ticket(2, Priority::kNormal));
  EXPECT_TRUE(q.erase(1));
  EXPECT_FALSE(q.erase(1));
  EXPECT_EQ(q.size(), 1u);
  EXPECT_EQ(q.next()->id, 2u);
}

}  // namespace
}  // namespace supportd::sched
