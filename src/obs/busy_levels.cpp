// Time and departures by the number of requests in service: a sweep over interval ends.
#include "obs/busy_levels.h"

#include <algorithm>

namespace supportd::obs {

std::vector<BusyLevel> busy_levels(std::vector<ServiceInterval> intervals, double from_s,
                                   double to_s) {
  struct Event {
    double at;
    int change;  // -1: a departure, +1: a start
  };
  std::vector<Event> events;
  events.reserve(intervals.size() * 2);
  for (const ServiceInterval& i : intervals) {
    if (i.end_s <= from_s || i.start_s >= to_s) continue;  // not in service inside the span
    events.push_back({i.start_s, +1});
    events.push_back({i.end_s, -1});
  }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return a.at < b.at || (a.at == b.at && a.change < b.change);
  });
  std::vector<BusyLevel> levels;
  std::size_t in_service = 0;
  double previous = from_s;
  const auto spend = [&](double until) {
    if (in_service > 0 && until > previous) {
      if (levels.size() < in_service) levels.resize(in_service);
      levels[in_service - 1].seconds += until - previous;
    }
    previous = std::max(previous, until);
  };
  for (const Event& e : events) {
    if (e.at > to_s) break;
    spend(e.at);
    if (e.change > 0) {
      ++in_service;
    } else {
      if (e.at > from_s) {
        if (levels.size() < in_service) levels.resize(in_service);
        ++levels[in_service - 1].departures;
      }
      --in_service;
    }
  }
  spend(to_s);
  return levels;
}

}  // namespace supportd::obs
