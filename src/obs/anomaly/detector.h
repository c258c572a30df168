// The streaming anomaly detector for one signal: values in, one at a time, in time order; each
// gets a score in [0, 1] computed from it and the values before it only (never a later one).
// Feature shaping -> isolation forest over a sliding window -> anomaly likelihood.
// Deterministic: the same options (seed included) and values give the same scores.
// Thread-safety: not thread-safe; one owner feeds it (the server: one per signal, on its timer).
#pragma once

#include <deque>
#include <optional>

#include "obs/anomaly/anomaly_likelihood.h"
#include "obs/anomaly/detector_options.h"
#include "obs/anomaly/feature_shaper.h"
#include "obs/anomaly/streaming_forest.h"

namespace supportd::obs::anomaly {

struct AnomalyReading {
  double score = 0;      // in [0, 1]: 0 while learning
  double raw = 0;        // the forest's score of the point (0 while learning)
  bool learning = true;  // not enough history yet to judge
};

class AnomalyDetector {
 public:
  explicit AnomalyDetector(const DetectorOptions& options = {});

  // Scores `value` and learns from it. A value that is not finite is not learnt from and
  // scores as the previous one did.
  AnomalyReading update(double value);

  const DetectorOptions& options() const { return options_; }

 private:
  DetectorOptions options_;
  FeatureShaper shaper_;
  StreamingForest forest_;
  AnomalyLikelihood likelihood_;
  TailProbability tail_;
  AnomalyReading last_;
  std::deque<double> recent_;
  std::deque<double> raws_;
};

}  // namespace supportd::obs::anomaly
