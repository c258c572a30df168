// Durations and shares with four significant digits.
#include "plan/units.h"

#include <fmt/format.h>

#include <cmath>

namespace supportd::plan {

std::string format_seconds(double s) {
  if (!std::isfinite(s)) return "-";
  if (s == 0) return "0 s";
  if (s < 1e-3) return fmt::format("{:#.4g} us", s * 1e6);
  if (s < 1) return fmt::format("{:#.4g} ms", s * 1e3);
  if (s < 3600) return fmt::format("{:#.4g} s", s);
  return fmt::format("{:#.4g} h", s / 3600);
}

std::string format_percent(double share) {
  if (!std::isfinite(share)) return "-";
  return fmt::format("{:.4g}%", share * 100);
}

}  // namespace supportd::plan
