// How fast requests leave service according to how many are in service: from the intervals
// the requests of a window held a slot, the time spent with exactly k in service and the
// departures that happened at k (the k before the departure). Their ratio is the departure
// rate of a load-dependent queue at k (plan/load_dependent.h), which continuous batching needs:
// eight sequences decoding together finish faster in total, but not eight times faster, than
// one alone. `supportd capacity --url` reads them from /v1/stats.
// Thread-safety: a pure function.
#pragma once

#include <cstddef>
#include <vector>

namespace supportd::obs {

struct ServiceInterval {
  double start_s = 0, end_s = 0;  // seconds on any clock common to every interval
};

struct BusyLevel {
  double seconds = 0;          // time with exactly k in service (k = index + 1)
  std::size_t departures = 0;  // requests that ended while k were in service
};

// Levels 1 .. the most seen in service within [from_s, to_s]; intervals reaching outside it
// count for the part inside (a request in service at from_s counts from there). Ends at the
// same instant as starts are taken first. REQUIRES: each interval's start_s <= end_s.
std::vector<BusyLevel> busy_levels(std::vector<ServiceInterval> intervals, double from_s,
                                   double to_s);

}  // namespace supportd::obs
