// The server's anomaly monitor: many named signals (TTFT p99 of a class, tokens/s, RSS...),
// each with its own streaming detector (detector.h) and alert (alert_hysteresis.h), fed one
// reading per signal per tick. It keeps the alerts active now and a bounded list of those that
// ended, with what fired, since when and the signal's values, for GET /v1/alerts and /metrics.
// Signals are created the first time they are fed; a signal not fed in a tick stays as it was.
// Thread-safety: every method may be called from any thread (one mutex); the server feeds it
// from its timer thread and reads it from HTTP handlers.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "obs/anomaly/alert_hysteresis.h"
#include "obs/anomaly/detector.h"

namespace supportd::obs::anomaly {

struct MonitorOptions {
  DetectorOptions detector;      // every signal's detector (the seed is varied per signal)
  AlertOptions alert;            // every signal's hysteresis
  std::size_t kept_ended = 50;   // ended alerts remembered, newest first
  std::size_t kept_values = 10;  // a signal's latest values shown with its alert
  // For a signal with a direction (SignalValue::worse): an alert is raised only by a reading
  // on the wrong side of the median of the signal's last `reference_readings` values, and
  // beyond it by at least `material_change` of it; while it is active, a reading no longer
  // beyond that median (as it was before the raise) by that much counts as calm, whatever the
  // detector's level.
  double material_change = 0.2;
  std::size_t reference_readings = 120;
  // An active alert's first readings are scored and not learnt: learnt, an incident becomes
  // part of what the detector calls usual, and each later one like it scores lower (the
  // latency-spike drill's raising scores fell from 0.91 to under the 0.78 that raises over six
  // incidents in 25 minutes, and the next four raised nothing). After these many readings the
  // detector learns again, so a change that persists becomes usual and its alert can clear.
  std::size_t unlearnt_alert_readings = 600;
};

// Which way a signal goes wrong. The detector scores any change as unusual; an operator is
// paged only for the bad way and only for a change that matters (MonitorOptions): a latency
// that falls, or that moves a few percent on a flat series, raises nothing.
enum class Direction {
  kEither,  // any anomaly the detector scores high enough (the offline scorer's sense)
  kUp,      // higher is worse: latencies, queue depths, refusals, errors, memory
  kDown,    // lower is worse: throughput
};

// One reading of one signal. A value that is not finite (e.g. a percentile over no requests)
// is skipped: the signal's detector neither scores nor learns it.
struct SignalValue {
  std::string signal;
  double value = 0;
  Direction worse = Direction::kEither;
};

using WallClock = std::chrono::system_clock;

struct AlertRecord {
  std::string signal;  // the alert is named after its signal
  bool active = true;
  WallClock::time_point since;  // the tick that raised it
  WallClock::time_point ended;  // the tick that cleared it (when !active)
  double raising_value = 0;     // the signal's value that raised it
  double raising_score = 0;
  double peak_score = 0;       // highest score while active
  std::vector<double> values;  // the signal's latest values, oldest first (at the change)
  std::size_t readings = 0;    // readings while active
};

// A signal as the last tick left it.
struct SignalState {
  std::string signal;
  double value = 0;
  AnomalyReading reading;
  bool alert_active = false;
};

class AnomalyMonitor {
 public:
  explicit AnomalyMonitor(const MonitorOptions& options = {});

  // Feeds one reading per listed signal, taken at `now`. Returns the alerts that changed with
  // this tick (raised: active; cleared: not), in the order of `values`.
  std::vector<AlertRecord> observe(std::span<const SignalValue> values, WallClock::time_point now);

  // An alert decided elsewhere (a threshold, such as the leak watchdog's), listed with the
  // others: raised when `active` first holds, cleared when it first does not. Returns the
  // change, if any. Its raising score is 1 (it is not a detector's).
  std::optional<AlertRecord> set_condition(const std::string& alert, bool active, double value,
                                           WallClock::time_point now);

  std::vector<AlertRecord> active() const;   // the signals' by name, then the conditions
  std::vector<AlertRecord> ended() const;    // newest first, at most options.kept_ended
  std::vector<SignalState> signals() const;  // by signal name

  const MonitorOptions& options() const { return options_; }

 private:
  struct Signal {
    AnomalyDetector detector;
    AlertHysteresis alert;
    SignalState state;
    std::vector<double> values;  // the latest kept_values, oldest first
    AlertRecord record;          // the current alert, while active
    std::deque<double> recent;   // the latest reference_readings values, oldest first
    // The median of `recent` before the reading that raised the current alert (while inactive,
    // before the latest reading): what the signal was before the incident.
    std::optional<double> reference;
  };

  Signal& signal(const std::string& name);  // REQUIRES: mutex_ held
  // The median of the signal's recent values; nullopt without history.
  static std::optional<double> reference(const Signal& s);
  // Whether `value` is a change worth an alert for a signal going wrong `worse`, against
  // `reference` (always, for kEither or without a reference).
  bool material(std::optional<double> reference, double value, Direction worse) const;

  const MonitorOptions options_;
  mutable std::mutex mutex_;
  void remember_ended(const AlertRecord& record);  // REQUIRES: mutex_ held

  std::map<std::string, Signal> signals_;          // guarded by mutex_
  std::map<std::string, AlertRecord> conditions_;  // guarded by mutex_; the active ones
  std::vector<AlertRecord> ended_;                 // guarded by mutex_; newest first
};

}  // namespace supportd::obs::anomaly
