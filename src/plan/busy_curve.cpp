// A load-dependent service curve from measured busy levels, the gaps filled conservatively.
#include "plan/busy_curve.h"

#include <fmt/format.h>

namespace supportd::plan {

std::optional<BusyCurve> busy_curve(std::span<const MeasuredLevel> levels, int slots) {
  BusyCurve curve;
  curve.rates.assign(static_cast<std::size_t>(slots), 0);
  for (int k = 1; k <= slots && k <= static_cast<int>(levels.size()); ++k) {
    const MeasuredLevel& level = levels[static_cast<std::size_t>(k - 1)];
    if (level.seconds >= kMinLevelSeconds && level.departures >= kMinLevelDepartures) {
      curve.rates[static_cast<std::size_t>(k - 1)] = level.departures / level.seconds;
      curve.measured.push_back(k);
    }
  }
  if (curve.measured.empty()) return std::nullopt;
  const int lowest = curve.measured.front(), highest = curve.measured.back();
  const auto rate = [&](int k) { return curve.rates[static_cast<std::size_t>(k - 1)]; };
  for (int k = 1; k < lowest; ++k)
    curve.rates[static_cast<std::size_t>(k - 1)] = rate(lowest) * k / lowest;
  for (std::size_t i = 0; i + 1 < curve.measured.size(); ++i) {
    const int a = curve.measured[i], b = curve.measured[i + 1];
    for (int k = a + 1; k < b; ++k) {
      curve.rates[static_cast<std::size_t>(k - 1)] =
          rate(a) + (rate(b) - rate(a)) * (k - a) / static_cast<double>(b - a);
    }
  }
  for (int k = highest + 1; k <= slots; ++k)
    curve.rates[static_cast<std::size_t>(k - 1)] = rate(highest);
  return curve;
}

std::string describe_measured(const BusyCurve& curve) {
  return fmt::format("k = {} measured", fmt::join(curve.measured, ", "));
}

}  // namespace supportd::plan
