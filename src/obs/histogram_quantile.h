// Quantiles estimated from a histogram's buckets, the way Prometheus' histogram_quantile() does:
// linear interpolation inside the bucket holding the rank. Cheap (no samples kept), as exact as
// the bucket bounds allow, and over everything the histogram has seen (since start).
#pragma once

#include "obs/metrics.h"

namespace supportd::obs {

// The estimated `q`-quantile (0 <= q <= 1) of the observations in `histogram`: 0 when it is
// empty; the highest finite bound when the rank falls in the +Inf bucket. The first bucket's
// lower edge is 0 (observations are assumed non-negative).
double histogram_quantile(const Histogram::Snapshot& histogram, double q);

}  // namespace supportd::obs
