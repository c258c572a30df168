// histogram_quantile(): the rank's bucket found in the cumulative counts, and the value
// interpolated linearly inside it.
#include "obs/histogram_quantile.h"

#include <algorithm>

namespace supportd::obs {

double histogram_quantile(const Histogram::Snapshot& h, double q) {
  if (h.count == 0 || h.cumulative.empty()) return 0;
  const double rank = std::clamp(q, 0.0, 1.0) * static_cast<double>(h.count);
  const std::size_t finite = h.upper_bounds.size();
  for (std::size_t i = 0; i < h.cumulative.size(); ++i) {
    if (static_cast<double>(h.cumulative[i]) < rank) continue;
    if (i >= finite) return finite > 0 ? h.upper_bounds.back() : 0;
    const double lower = i == 0 ? 0 : h.upper_bounds[i - 1];
    const double upper = h.upper_bounds[i];
    const double below = i == 0 ? 0 : static_cast<double>(h.cumulative[i - 1]);
    const double in_bucket = static_cast<double>(h.cumulative[i]) - below;
    if (in_bucket <= 0) return upper;
    return lower + (upper - lower) * (rank - below) / in_bucket;
  }
  return finite > 0 ? h.upper_bounds.back() : 0;
}

}  // namespace supportd::obs
