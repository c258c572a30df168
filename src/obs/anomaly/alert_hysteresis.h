// An alert on one signal, raised and cleared with hysteresis from the detector's readings: it
// is raised by a score at or above `raise` (an onset) and cleared only once the level has
// stayed below `clear` for `clear_after` readings in a row, so a signal hovering near a
// threshold does not flap. The server feeds it once a second per signal.
// Thread-safety: not thread-safe; one owner feeds it.
#pragma once

#include <cstddef>

#include "obs/anomaly/detector.h"

namespace supportd::obs::anomaly {

struct AlertOptions {
  double raise = 0.78;           // score that raises the alert (about NAB's swept threshold)
  double clear = 0.62;           // level the signal must stay under to clear it
  std::size_t clear_after = 60;  // readings in a row under `clear` that clear it
};

enum class AlertChange {
  kNone,     // no change
  kRaised,   // became active with this reading: report it (metric, log line, /v1/alerts)
  kCleared,  // became inactive with this reading: report the end
};

class AlertHysteresis {
 public:
  // REQUIRES: clear <= raise.
  explicit AlertHysteresis(const AlertOptions& options = {}) : options_(options) {}

  AlertChange update(const AnomalyReading& reading);

  bool active() const { return active_; }
  // Readings since the alert was raised (0 when inactive) and the highest score in them.
  std::size_t readings_active() const { return readings_active_; }
  double peak_score() const { return peak_; }

 private:
  AlertOptions options_;
  bool active_ = false;
  std::size_t readings_active_ = 0;
  std::size_t calm_ = 0;  // readings in a row with the level under `clear`
  double peak_ = 0;
};

}  // namespace supportd::obs::anomaly
