// One signal's streaming detector: features, the forest's score, the onset filter, in order.
#include "obs/anomaly/detector.h"

#include <cmath>

namespace supportd::obs::anomaly {

AnomalyDetector::AnomalyDetector(const DetectorOptions& options)
    : options_(options),
      shaper_(options.features),
      forest_(shaper_.dimensions(), options.forest, options.seed),
      likelihood_(options.likelihood),
      onset_(options.onset) {}

AnomalyReading AnomalyDetector::update(double value, bool learn) {
  if (!std::isfinite(value)) return last_;
  AnomalyReading reading;
  const auto features = shaper_.push(value);
  if (!features.empty()) {
    const auto isolation = learn ? forest_.score_and_learn(features) : forest_.score(features);
    if (isolation) {
      reading.level = options_.likelihood_on ? likelihood_.update(*isolation) : *isolation;
      reading.learning = options_.likelihood_on && !likelihood_.ready();
      reading.score = onset_.filter(reading.level);
      reading.onset = onset_.last_was_onset();
    }
  }
  last_ = reading;
  return reading;
}

}  // namespace supportd::obs::anomaly
