// The reference queue for the plan's tests: the NLU service, 8 instances of 25
// requests per second each, at 150 requests per second (75% busy) unless told otherwise.
#pragma once

#include "plan/queue_model.h"

namespace supportd::plan::testing {

inline Station nlu_station(double arrival_rate = 150) {
  Station s;
  s.arrival_rate = arrival_rate;
  s.service_rate = 25;
  s.servers = 8;
  return s;
}

}  // namespace supportd::plan::testing
