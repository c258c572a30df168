// The streaming anomaly detector for one signal: values in, one at a time, in time order; each
// gets a score in [0, 1] computed from it and the values before it only (never a later one).
//   value -> features (feature_shaper.h) -> isolation forest over a sliding window
//   (streaming_forest.h) -> [anomaly likelihood, off by default] -> onset filter (onset_filter.h)
// Deterministic: the same options (seed included) and values give the same scores.
// Thread-safety: not thread-safe; one owner feeds it (the server: one per signal, on its timer).
#pragma once

#include "obs/anomaly/anomaly_likelihood.h"
#include "obs/anomaly/detector_options.h"
#include "obs/anomaly/feature_shaper.h"
#include "obs/anomaly/onset_filter.h"
#include "obs/anomaly/streaming_forest.h"

namespace supportd::obs::anomaly {

struct AnomalyReading {
  // The anomaly score in [0, 1]: `level` where an anomaly starts or grows (onset), damped
  // where it merely goes on. What alerts are raised on and what `anomaly score` writes.
  double score = 0;
  // How anomalous this point is, in [0, 1], whether or not it is an onset (the forest's
  // score, or its likelihood): what an alert is cleared on. About 0.5 and below is usual.
  double level = 0;
  bool onset = false;    // score == level
  bool learning = true;  // too little history to judge yet: score and level are 0
};

class AnomalyDetector {
 public:
  // REQUIRES: options valid as set_option accepts them.
  explicit AnomalyDetector(const DetectorOptions& options = {});

  // Scores `value` and, when `learn`, learns from it. A value that is not finite is neither
  // scored nor learnt from: the previous reading is returned again. Not learning is for an
  // incident's readings (signal_monitor.h): learnt, they teach the forest that the incident is
  // usual, and the next one like it scores lower (the anomaly likelihood, when on, still
  // learns its scores).
  AnomalyReading update(double value, bool learn = true);

  const DetectorOptions& options() const { return options_; }

  // The incident reported so far is over (its alert cleared): later scores are no longer
  // damped for not exceeding its scores (OnsetFilter::forget). What was learnt is kept.
  void forget_onsets() { onset_.forget(); }

 private:
  DetectorOptions options_;
  FeatureShaper shaper_;
  StreamingForest forest_;
  AnomalyLikelihood likelihood_;
  OnsetFilter onset_;
  AnomalyReading last_;
};

}  // namespace supportd::obs::anomaly
