// The server's anomaly monitor (see signal_monitor.h): a detector and an alert per signal.
#include "obs/anomaly/signal_monitor.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace supportd::obs::anomaly {

AnomalyMonitor::AnomalyMonitor(const MonitorOptions& options) : options_(options) {}

AnomalyMonitor::Signal& AnomalyMonitor::signal(const std::string& name) {
  auto found = signals_.find(name);
  if (found != signals_.end()) return found->second;
  DetectorOptions detector = options_.detector;
  // Signals sampled alike should not draw alike trees: the seed follows the name.
  detector.seed = options_.detector.seed ^ std::hash<std::string>{}(name);
  Signal created{AnomalyDetector(detector), AlertHysteresis(options_.alert), {}, {}, {}, {}, {}};
  created.state.signal = name;
  return signals_.emplace(name, std::move(created)).first->second;
}

std::vector<AlertRecord> AnomalyMonitor::observe(std::span<const SignalValue> values,
                                                 WallClock::time_point now) {
  std::vector<AlertRecord> changes;
  std::lock_guard lock(mutex_);
  for (const SignalValue& value : values) {
    if (!std::isfinite(value.value)) continue;
    Signal& s = signal(value.signal);
    s.state.value = value.value;
    const bool learn =
        !s.alert.active() || s.alert.readings_active() >= options_.unlearnt_alert_readings;
    s.state.reading = s.detector.update(value.value, learn);
    s.values.push_back(value.value);
    if (s.values.size() > options_.kept_values) s.values.erase(s.values.begin());

    // Raising needs a change the bad way that matters; the score shown stays the detector's.
    // Once raised, a reading back within that margin of the level before the incident is calm
    // whatever the detector makes of it: after an incident the series moves again (the load
    // settles, or stops and starts), which the detector finds as unusual as the incident, and
    // an alert held up by the recovery would hide the next incident (it cannot be raised
    // twice) until the detector had learnt the recovered series.
    AnomalyReading gated = s.state.reading;
    if (!s.alert.active()) {
      if (value.worse != Direction::kEither) s.reference = reference(s);
      if (!material(s.reference, value.value, value.worse)) gated.score = 0;
    } else if (value.worse != Direction::kEither &&
               !material(s.reference, value.value, value.worse)) {
      gated.level = 0;
    }
    s.recent.push_back(value.value);
    if (s.recent.size() > options_.reference_readings) s.recent.pop_front();

    const AlertChange change = s.alert.update(gated);
    s.state.alert_active = s.alert.active();
    AlertRecord& record = s.record;
    if (change == AlertChange::kRaised) {
      record = AlertRecord{};
      record.signal = value.signal;
      record.since = now;
      record.raising_value = value.value;
      record.raising_score = s.state.reading.score;
    }
    if (s.alert.active() || change == AlertChange::kCleared) {
      record.values = s.values;
      if (s.alert.active()) {
        record.peak_score = s.alert.peak_score();
        record.readings = s.alert.readings_active();
      }
    }
    if (change == AlertChange::kRaised) changes.push_back(record);
    if (change == AlertChange::kCleared) {
      // A new incident soon after this one must be able to raise again (onset_filter.h).
      s.detector.forget_onsets();
      record.active = false;
      record.ended = now;
      ++record.readings;  // the clearing reading
      changes.push_back(record);
      remember_ended(record);
    }
  }
  return changes;
}

std::optional<double> AnomalyMonitor::reference(const Signal& s) {
  if (s.recent.empty()) return std::nullopt;
  std::vector<double> sorted(s.recent.begin(), s.recent.end());
  const auto middle = sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2);
  std::nth_element(sorted.begin(), middle, sorted.end());
  return *middle;
}

bool AnomalyMonitor::material(std::optional<double> reference, double value,
                              Direction worse) const {
  if (worse == Direction::kEither || !reference) return true;
  const double margin = std::abs(*reference) * options_.material_change;
  return worse == Direction::kUp ? value > *reference + margin : value < *reference - margin;
}

void AnomalyMonitor::remember_ended(const AlertRecord& record) {
  ended_.insert(ended_.begin(), record);
  if (ended_.size() > options_.kept_ended) ended_.resize(options_.kept_ended);
}

std::optional<AlertRecord> AnomalyMonitor::set_condition(const std::string& alert, bool active,
                                                         double value, WallClock::time_point now) {
  std::lock_guard lock(mutex_);
  auto found = conditions_.find(alert);
  if (found != conditions_.end()) {
    AlertRecord& record = found->second;
    record.values.push_back(value);
    if (record.values.size() > options_.kept_values) record.values.erase(record.values.begin());
    ++record.readings;
    if (active) return std::nullopt;
    record.active = false;
    record.ended = now;
    AlertRecord ended = std::move(record);
    conditions_.erase(found);
    remember_ended(ended);
    return ended;
  }
  if (!active) return std::nullopt;
  AlertRecord record;
  record.signal = alert;
  record.since = now;
  record.raising_value = value;
  record.raising_score = record.peak_score = 1;
  record.values = {value};
  record.readings = 1;
  conditions_[alert] = record;
  return record;
}

std::vector<AlertRecord> AnomalyMonitor::active() const {
  std::lock_guard lock(mutex_);
  std::vector<AlertRecord> alerts;
  for (const auto& [name, s] : signals_) {
    if (s.alert.active()) alerts.push_back(s.record);
  }
  for (const auto& [name, record] : conditions_)
    alerts.push_back(record);
  return alerts;
}

std::vector<AlertRecord> AnomalyMonitor::ended() const {
  std::lock_guard lock(mutex_);
  return ended_;
}

std::vector<SignalState> AnomalyMonitor::signals() const {
  std::lock_guard lock(mutex_);
  std::vector<SignalState> states;
  states.reserve(signals_.size());
  for (const auto& [name, s] : signals_)
    states.push_back(s.state);
  return states;
}

}  // namespace supportd::obs::anomaly
