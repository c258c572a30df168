// Priority classes a request can carry. High is served first; classes age so none starves.
#pragma once

#include <optional>
#include <string_view>

namespace supportd::sched {

enum class Priority { kHigh = 0, kNormal = 1, kLow = 2 };
constexpr int kPriorityCount = 3;

const char* priority_name(Priority priority);
std::optional<Priority> parse_priority(std::string_view name);

}  // namespace supportd::sched
