#include "obs/anomaly/detector.h"

#include <algorithm>
#include <cmath>

namespace supportd::obs::anomaly {

AnomalyDetector::AnomalyDetector(const DetectorOptions& options)
    : options_(options),
      shaper_(options.features),
      forest_(shaper_.dimensions(), options.forest, options.seed),
      likelihood_(options.likelihood),
      tail_(options.tail) {}

AnomalyReading AnomalyDetector::update(double value) {
  if (!std::isfinite(value)) return last_;
  const auto features = shaper_.push(value);
  AnomalyReading reading;
  if (!features.empty()) {
    if (const auto raw = forest_.score_and_learn(features)) {
      raws_.push_back(*raw);
      if (raws_.size() > options_.raw_average) raws_.pop_front();
      double averaged = 0;
      for (double r : raws_)
        averaged += r;
      averaged /= static_cast<double>(raws_.size());
      reading.raw = averaged;
      reading.learning = false;
      reading.score = options_.calibration == 1   ? likelihood_.update(averaged)
                      : options_.calibration == 2 ? tail_.update(averaged)
                                                  : averaged;
      if (options_.recent > 0) {
        double highest = 0;
        const double n = static_cast<double>(options_.recent);
        double age = static_cast<double>(recent_.size());
        for (double past : recent_) {
          const double weight = options_.recent_fades ? 1 - (age - 1) / n : 1;
          highest = std::max(highest, 0.5 + (past - 0.5) * weight);
          age -= 1;
        }
        recent_.push_back(reading.score);
        if (recent_.size() > options_.recent) recent_.pop_front();
        if (reading.score <= highest) reading.score *= options_.damping;
      }
    }
  }
  last_ = reading;
  return reading;
}

}  // namespace supportd::obs::anomaly
