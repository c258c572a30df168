// Arrival and service statistics over a sliding window of ended requests.
#include "obs/load_window.h"

#include <algorithm>
#include <cmath>

namespace supportd::obs {
namespace {

struct Moments {
  double mean = -1, cv = -1;
};

// Mean and coefficient of variation (sample standard deviation / mean); -1 when undefined.
Moments moments(const std::vector<double>& values) {
  Moments m;
  if (values.empty()) return m;
  double sum = 0;
  for (double v : values)
    sum += v;
  m.mean = sum / static_cast<double>(values.size());
  if (values.size() < 2 || !(m.mean > 0)) return m;
  double squares = 0;
  for (double v : values)
    squares += (v - m.mean) * (v - m.mean);
  m.cv = std::sqrt(squares / static_cast<double>(values.size() - 1)) / m.mean;
  return m;
}

double seconds(LoadWindow::Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

}  // namespace

LoadWindow::LoadWindow(int groups, std::chrono::seconds span, std::size_t capacity,
                       Clock::time_point start)
    : groups_(groups), span_(span), capacity_(capacity), start_(start) {}

void LoadWindow::add(int group, Clock::time_point arrived, double service_seconds,
                     Clock::time_point now) {
  std::lock_guard lock(mutex_);
  records_.push_back({std::min(arrived, now), now, service_seconds, group});
  while (records_.size() > capacity_ ||
         (!records_.empty() && records_.front().ended < now - span_)) {
    records_.pop_front();
  }
}

LoadSummary LoadWindow::summary(Clock::time_point now) const {
  LoadSummary s;
  s.groups.resize(static_cast<std::size_t>(groups_));
  std::vector<Clock::time_point> arrivals;
  std::vector<double> service;
  std::vector<std::vector<double>> group_service(static_cast<std::size_t>(groups_));
  std::vector<ServiceInterval> intervals;  // seconds relative to `now`
  Clock::time_point from = std::max(now - span_, start_);
  Clock::duration longest{0};
  {
    std::lock_guard lock(mutex_);
    if (records_.size() >= capacity_ && !records_.empty())
      from = std::max(from, records_.front().ended);
    for (const Record& r : records_) {
      if (r.ended < from || r.ended > now) continue;
      ++s.arrivals;
      ++s.groups[static_cast<std::size_t>(r.group)].arrivals;
      arrivals.push_back(r.arrived);
      longest = std::max(longest, r.ended - r.arrived);
      if (r.service_seconds >= 0) {
        const double end_s = seconds(r.ended - now);
        intervals.push_back({end_s - r.service_seconds, end_s});
        service.push_back(r.service_seconds);
        group_service[static_cast<std::size_t>(r.group)].push_back(r.service_seconds);
      }
    }
  }
  // Traffic that began inside the window (after an idle spell, or a server just started) is
  // measured from its first arrival: n arrivals from the first one on are n - 1 gaps (the
  // first arrival only marks the start), so an idle beginning does not dilute the rate.
  double counted = static_cast<double>(s.arrivals);
  if (!arrivals.empty()) {
    const Clock::time_point first = *std::min_element(arrivals.begin(), arrivals.end());
    if (first > from) {
      from = first;
      counted -= 1;
    }
  }
  s.window_s = seconds(now - from);
  if (!(s.window_s > 0)) return s;
  s.arrival_rate = counted / s.window_s;
  for (std::size_t g = 0; g < s.groups.size(); ++g) {
    if (s.arrivals > 0) {
      s.groups[g].arrival_rate = s.arrival_rate * static_cast<double>(s.groups[g].arrivals) /
                                 static_cast<double>(s.arrivals);
    }
    s.groups[g].service_mean_s = moments(group_service[g]).mean;
  }
  const Moments m = moments(service);
  s.served = service.size();
  s.service_mean_s = m.mean;
  s.service_cv = m.cv;
  // Arrivals before `settled` have all ended (none is still in flight), so their gaps are whole,
  // and who was in service before it is known.
  const Clock::time_point settled = now - longest;
  if (settled > from) {
    s.busy = busy_levels(std::move(intervals), seconds(from - now), seconds(settled - now));
    s.busy_span_s = seconds(settled - from);
  }
  std::erase_if(arrivals, [&](Clock::time_point t) { return t < from || t > settled; });
  std::sort(arrivals.begin(), arrivals.end());
  constexpr std::size_t kMinGaps = 10;
  if (arrivals.size() > kMinGaps) {
    std::vector<double> gaps;
    for (std::size_t i = 1; i < arrivals.size(); ++i)
      gaps.push_back(seconds(arrivals[i] - arrivals[i - 1]));
    s.arrival_cv = moments(gaps).cv;
  }
  return s;
}

}  // namespace supportd::obs
