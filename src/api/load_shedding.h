// Shedding a priority class at run time: the runbook's first relief when the engine is slower
// than its load (docs/operations.md, "Runbook"), and the mitigation `supportd drill
// latency-spike` applies. While a class is shed, its completions are refused at once with 503,
// Retry-After and the code "class_shed", before they reach the queue; the other classes keep
// the engine. Behind the admin key:
//   POST   /admin/shed            {"class": "low"} -> {"shed": ["low"]}
//   GET    /admin/shed            {"shed": [...]}
//   DELETE /admin/shed            every class served again -> {"shed": []}
// Thread-safety: every method may be called from any thread (one atomic flag per class).
#pragma once

#include <array>
#include <atomic>
#include <string>
#include <vector>

#include "api/routes.h"
#include "http/message.h"
#include "sched/priority.h"

namespace supportd::api {

class LoadShedding {
 public:
  bool shed(sched::Priority priority) const {
    return shed_[static_cast<std::size_t>(priority)].load(std::memory_order_relaxed);
  }
  void set(sched::Priority priority, bool shed);
  std::vector<std::string> shed_classes() const;  // names, highest class first

 private:
  std::array<std::atomic<bool>, sched::kPriorityCount> shed_{};
};

// The refusal a shed class's request gets.
http::Response shed_refusal(sched::Priority priority);

http::Response add_shed(Services& services, http::Request& request);
http::Response list_shed(Services& services, http::Request& request);
http::Response clear_shed(Services& services, http::Request& request);

}  // namespace supportd::api
