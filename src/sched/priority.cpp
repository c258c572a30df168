// Priority classes' names, both ways (see priority.h).
#include "sched/priority.h"

namespace supportd::sched {

const char* priority_name(Priority priority) {
  switch (priority) {
    case Priority::kHigh: return "high";
    case Priority::kNormal: return "normal";
    case Priority::kLow: return "low";
  }
  return "normal";
}

std::optional<Priority> parse_priority(std::string_view name) {
  if (name == "high") return Priority::kHigh;
  if (name == "normal") return Priority::kNormal;
  if (name == "low") return Priority::kLow;
  return std::nullopt;
}

}  // namespace supportd::sched
