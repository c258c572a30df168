// The load a server is under, over a sliding window: how fast requests arrive and how regular
// their arrivals are, and how long they hold a slot (the service time) and how variable that
// is; per group (priority class) too. These are the inputs of a queueing model
// (`supportd capacity --url` reads them from /v1/stats).
// Requests are recorded when they end, with their arrival time. Rates count the requests that
// ended in the window (equal to the arrivals in a steady state, whatever the requests' length),
// from the first arrival when traffic began inside the window (n arrivals: n - 1 gaps);
// the arrival CV comes from the gaps between arrival times old enough that every request that
// arrived then has ended (older than the longest request in the window); so do the busy
// levels (how fast requests leave service with k of them in it).
// Bounded: at most `capacity` records are kept; the window shrinks to what they cover.
// Thread-safety: all methods may be called from any thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <mutex>
#include <vector>

#include "obs/busy_levels.h"

namespace supportd::obs {

struct LoadSummary {
  double window_s = 0;         // the span the rates cover: the window, or since traffic began
  std::size_t arrivals = 0;    // requests that ended in the window, whatever their outcome
  double arrival_rate = 0;     // arrivals (less the first when traffic began inside) / window_s
  double arrival_cv = -1;      // std / mean of the gaps between arrivals; -1: too few
  std::size_t served = 0;      // requests with a service time
  double service_mean_s = -1;  // -1: none served
  double service_cv = -1;      // -1: fewer than two served
  struct Group {
    std::size_t arrivals = 0;
    double arrival_rate = 0;
    double service_mean_s = -1;
  };
  std::vector<Group> groups;
  // Time and departures with 1, 2, .. requests in service (busy_levels.h), over the part of
  // the window whose requests have all ended (up to `now` less the longest request).
  std::vector<BusyLevel> busy;
  double busy_span_s = 0;  // the span `busy` covers
};

class LoadWindow {
 public:
  using Clock = std::chrono::steady_clock;

  // `groups` groups (0 .. groups - 1); the window starts at `start` (figures cover no more).
  explicit LoadWindow(int groups, std::chrono::seconds span = std::chrono::seconds(60),
                      std::size_t capacity = 20000, Clock::time_point start = Clock::now());

  // A request of `group` that arrived at `arrived` and ended at `now`; `service_seconds` is the
  // time it held a slot, negative when it has none to count (refused, cancelled, failed).
  // REQUIRES: 0 <= group < groups.
  void add(int group, Clock::time_point arrived, double service_seconds,
           Clock::time_point now = Clock::now());

  LoadSummary summary(Clock::time_point now = Clock::now()) const;

 private:
  struct Record {
    Clock::time_point arrived, ended;
    double service_seconds;
    int group;
  };

  const int groups_;
  const std::chrono::seconds span_;
  const std::size_t capacity_;
  const Clock::time_point start_;
  mutable std::mutex mutex_;
  std::deque<Record> records_;  // guarded by mutex_, in the order they ended
};

}  // namespace supportd::obs
