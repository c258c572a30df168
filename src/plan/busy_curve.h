// One engine's load-dependent service curve from what a running supportd measured: the time it
// spent with k requests in service and the departures at k (/v1/stats `capacity.busy`, from
// obs/busy_levels.h). Rates are departures / seconds where a level was seen long enough; the
// others are filled conservatively: interpolated between measured levels, scaled down below the
// lowest (each request as fast as at that level, not faster), held at the highest measured
// total above it (no batching gain assumed beyond what was seen).
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace supportd::plan {

struct MeasuredLevel {
  double seconds = 0;     // time with exactly k in service (k = index + 1)
  double departures = 0;  // requests that left service while k were in it
};

// A level counts once seen this long with this many departures.
constexpr double kMinLevelSeconds = 2.0;
constexpr double kMinLevelDepartures = 5;

struct BusyCurve {
  std::vector<double> rates;  // [k - 1]: completions per second with k busy, k = 1 .. slots
  std::vector<int> measured;  // the k measured well enough, ascending
};

// The curve over `slots` levels; nullopt when no level up to `slots` was measured well enough.
// REQUIRES: slots >= 1.
std::optional<BusyCurve> busy_curve(std::span<const MeasuredLevel> levels, int slots);

// "k = 1, 2, 5 measured" for notes.
std::string describe_measured(const BusyCurve& curve);

}  // namespace supportd::plan
