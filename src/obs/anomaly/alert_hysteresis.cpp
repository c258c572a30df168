// Raising and clearing one signal's alert from the detector's readings, with hysteresis.
#include "obs/anomaly/alert_hysteresis.h"

#include <algorithm>

namespace supportd::obs::anomaly {

AlertChange AlertHysteresis::update(const AnomalyReading& reading) {
  if (reading.learning) return AlertChange::kNone;
  if (!active_) {
    if (reading.score < options_.raise) return AlertChange::kNone;
    active_ = true;
    readings_active_ = 1;
    calm_ = 0;
    peak_ = reading.score;
    return AlertChange::kRaised;
  }
  ++readings_active_;
  peak_ = std::max(peak_, reading.score);
  calm_ = reading.level < options_.clear ? calm_ + 1 : 0;
  if (calm_ < options_.clear_after) return AlertChange::kNone;
  active_ = false;
  readings_active_ = 0;
  peak_ = 0;
  return AlertChange::kCleared;
}

}  // namespace supportd::obs::anomaly
