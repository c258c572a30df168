// The automatic rollback's decision: is a canary worse than the stable version it is compared
// with, on its time to first token (p99), its error rate or its refusal rate, by more than a
// margin, over at least a minimum number of requests on each? A sequential test, read again as
// requests come (not one bad request): the rates must differ by the margin and by `z`
// standard errors of the difference of two proportions; the p99 must be over the ratio.
// Thread-safety: pure functions over values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "obs/metrics.h"

namespace supportd::engine::router {

struct CanaryLimits {
  int min_requests = 50;        // on each side, since the split was set
  double ttft_p99_ratio = 1.5;  // canary p99 over stable p99 that trips
  double rate_margin = 0.05;    // an error or refusal rate this much above stable's ...
  double z = 3.0;               // ... and this many standard errors above
};

// What one version did since the split was set.
struct CanarySample {
  std::int64_t requests = 0;
  std::int64_t errors = 0;
  std::int64_t refusals = 0;  // refused by their deadline
  obs::Histogram::Snapshot ttft_ms;
};

// The figure that trips, said for people ("ttft_p99: canary 812 ms vs stable 301 ms (ratio
// 2.70 > 1.50) over 64 and 210 requests"), or nothing while the canary holds or either side
// has fewer than min_requests.
std::optional<std::string> canary_verdict(const CanarySample& stable, const CanarySample& canary,
                                          const CanaryLimits& limits);

// `now` less `before` (counts and buckets): what happened between the two snapshots.
// REQUIRES: both of one histogram, `before` taken first.
obs::Histogram::Snapshot since(const obs::Histogram::Snapshot& now,
                               const obs::Histogram::Snapshot& before);

}  // namespace supportd::engine::router
