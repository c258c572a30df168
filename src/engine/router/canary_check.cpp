// The automatic rollback's decision (see canary_check.h).
#include "engine/router/canary_check.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "obs/histogram_quantile.h"

namespace supportd::engine::router {
namespace {

// True when `canary_bad` of `canary_n` is worse than `stable_bad` of `stable_n` by the margin
// and by z standard errors of the difference (pooled, two proportions).
bool rate_worse(std::int64_t stable_bad, std::int64_t stable_n, std::int64_t canary_bad,
                std::int64_t canary_n, const CanaryLimits& limits) {
  const double p_stable = static_cast<double>(stable_bad) / static_cast<double>(stable_n);
  const double p_canary = static_cast<double>(canary_bad) / static_cast<double>(canary_n);
  if (p_canary - p_stable < limits.rate_margin) return false;
  const double pooled =
      static_cast<double>(stable_bad + canary_bad) / static_cast<double>(stable_n + canary_n);
  const double error =
      std::sqrt(pooled * (1 - pooled) *
                (1.0 / static_cast<double>(stable_n) + 1.0 / static_cast<double>(canary_n)));
  return error == 0 || (p_canary - p_stable) / error >= limits.z;
}

}  // namespace

std::optional<std::string> canary_verdict(const CanarySample& stable, const CanarySample& canary,
                                          const CanaryLimits& limits) {
  if (stable.requests < limits.min_requests || canary.requests < limits.min_requests)
    return std::nullopt;
  const std::string over = fmt::format("over {} and {} requests", canary.requests, stable.requests);
  if (rate_worse(stable.errors, stable.requests, canary.errors, canary.requests, limits)) {
    return fmt::format("error_rate: canary {:.3f} vs stable {:.3f} {}",
                       static_cast<double>(canary.errors) / static_cast<double>(canary.requests),
                       static_cast<double>(stable.errors) / static_cast<double>(stable.requests),
                       over);
  }
  if (rate_worse(stable.refusals, stable.requests, canary.refusals, canary.requests, limits)) {
    return fmt::format("refusal_rate: canary {:.3f} vs stable {:.3f} {}",
                       static_cast<double>(canary.refusals) / static_cast<double>(canary.requests),
                       static_cast<double>(stable.refusals) / static_cast<double>(stable.requests),
                       over);
  }
  if (canary.ttft_ms.count >= static_cast<std::uint64_t>(limits.min_requests) &&
      stable.ttft_ms.count >= static_cast<std::uint64_t>(limits.min_requests)) {
    const double canary_p99 = obs::histogram_quantile(canary.ttft_ms, 0.99);
    const double stable_p99 = obs::histogram_quantile(stable.ttft_ms, 0.99);
    if (stable_p99 > 0 && canary_p99 > stable_p99 * limits.ttft_p99_ratio) {
      return fmt::format(
          "ttft_p99: canary {:.0f} ms vs stable {:.0f} ms (ratio {:.2f} > {:.2f}) {}", canary_p99,
          stable_p99, canary_p99 / stable_p99, limits.ttft_p99_ratio, over);
    }
  }
  return std::nullopt;
}

obs::Histogram::Snapshot since(const obs::Histogram::Snapshot& now,
                               const obs::Histogram::Snapshot& before) {
  obs::Histogram::Snapshot difference = now;
  if (before.cumulative.size() != now.cumulative.size()) return difference;
  for (std::size_t i = 0; i < now.cumulative.size(); ++i)
    difference.cumulative[i] -= std::min(before.cumulative[i], now.cumulative[i]);
  difference.count -= std::min(before.count, now.count);
  difference.sum -= before.sum;
  return difference;
}

}  // namespace supportd::engine::router
