// Admission control's queue bounds and estimates (see admission_control.h). Every public
// estimate takes the lock once and computes over that one state with the *_locked helpers.
#include "sched/admission_control.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace supportd::sched {
namespace {

constexpr double kEndless = std::numeric_limits<double>::infinity();

// P(N >= k) for N ~ Poisson(mean).
double poisson_at_least(double mean, int k) {
  if (k <= 0) return 1;
  double term = std::exp(-mean);  // P(N = 0)
  double below = 0;
  for (int i = 0; i < k; ++i) {
    below += term;
    term *= mean / (i + 1);
  }
  return std::max(1 - below, 0.0);
}

}  // namespace

Status validate(const AdmissionOptions& options) {
  for (int p = 0; p < kPriorityCount; ++p) {
    if (options.queue_limit[p] < 0) {
      return Error::invalid(fmt::format("admission.queue_limit[{}] must not be negative",
                                        priority_name(static_cast<Priority>(p))),
                            "admission.queue_limit");
    }
  }
  if (options.aging.count() < 0)
    return Error::invalid("admission.aging must not be negative", "admission.aging");
  return {};
}

AdmissionControl::AdmissionControl(AdmissionOptions options) : options_(options) {
  for (auto& w : waiting_)
    w.store(0);
}

std::optional<Refusal> AdmissionControl::enter(
    Priority priority, std::optional<std::chrono::steady_clock::time_point> deadline) {
  const int index = static_cast<int>(priority);
  {
    std::lock_guard lock(mutex_);
    offered_[index].record(std::chrono::steady_clock::now());
  }
  const int limit = options_.queue_limit[index];
  const int now_waiting = waiting_[index].fetch_add(1) + 1;
  if (limit > 0 && now_waiting > limit) {
    waiting_[index].fetch_sub(1);
    return Refusal{Error::make(ErrorCode::kOverloaded,
                               fmt::format("the {} queue is full ({} waiting); try again later",
                                           priority_name(priority), limit)),
                   retry_after(priority)};
  }
  const auto now = std::chrono::steady_clock::now();
  if (deadline) {
    const auto expected = expected_wait(priority);
    if (now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(expected) >
        *deadline) {
      waiting_[index].fetch_sub(1);
      return Refusal{
          Error::make(
              ErrorCode::kDeadline,
              fmt::format("the request cannot start before its deadline (expected wait "
                          "{} at the current service rate)",
                          expected.count() < 1 ? fmt::format("{:.0f} ms", expected.count() * 1000)
                                               : fmt::format("{:.1f} s", expected.count()))),
          retry_after(priority)};
    }
  }
  std::lock_guard lock(mutex_);
  arrivals_[index].record(now);
  return std::nullopt;
}

void AdmissionControl::left_queue(Priority priority) {
  waiting_[static_cast<int>(priority)].fetch_sub(1);
}

void AdmissionControl::Rate::record(std::chrono::steady_clock::time_point when) {
  if (last != std::chrono::steady_clock::time_point{}) {
    const double gap = std::max(std::chrono::duration<double>(when - last).count(), 1e-4);
    // The mean gap over roughly the last 16 events, and its inverse. (Averaging the
    // instantaneous rates 1/gap instead overestimates badly: sequences of one batch finish
    // together, and their near-zero gaps dominated the average, so deadlines that could not
    // be met were accepted and expired in the queue.) Until 16 gaps are seen, the plain mean
    // and variance of all of them: seeded by its first gap alone, the average took seconds to
    // forget a cold start's first batch finishing together.
    gaps = std::min(gaps + 1, 16);
    const double weight = 1.0 / gaps;
    const double difference = gap - mean_gap;
    mean_gap += difference * weight;
    gap_variance = (1 - weight) * (gap_variance + difference * difference * weight);
  }
  last = std::max(last, when);
}

double AdmissionControl::Rate::per_second(std::chrono::steady_clock::time_point now,
                                          double floor) const {
  if (mean_gap <= 0) return 0;
  const double rate = 1.0 / mean_gap;
  const double idle = std::chrono::duration<double>(now - last).count();
  return idle > 0 ? std::min(rate, std::max(1.0 / idle, rate * floor)) : rate;
}

void AdmissionControl::engine_busy(std::chrono::steady_clock::time_point when) {
  std::lock_guard lock(mutex_);
  completions_.last = std::max(completions_.last, when);
}

void AdmissionControl::record_finish(std::chrono::steady_clock::time_point when) {
  std::lock_guard lock(mutex_);
  completions_.record(when);
}

void AdmissionControl::publish(const EngineOutlook& outlook) {
  std::lock_guard lock(mutex_);
  outlook_ = outlook;  // the vector's storage is reused
  outlook_.step_seconds = std::max(outlook_.step_seconds, 0.0);
  outlook_.predicted_rate = std::max(outlook_.predicted_rate, 0.0);
  outlook_.service_seconds = std::max(outlook_.service_seconds, 0.0);
  std::sort(outlook_.releases.begin(), outlook_.releases.end());
}

double AdmissionControl::completion_rate() const {
  std::lock_guard lock(mutex_);
  return completion_rate_locked();
}

double AdmissionControl::completion_spread() const {
  std::lock_guard lock(mutex_);
  return completion_spread_locked();
}

double AdmissionControl::arrival_rate(Priority priority) const {
  std::lock_guard lock(mutex_);
  // A class that stopped arriving takes nothing away from the others.
  return arrivals_[static_cast<int>(priority)].per_second(std::chrono::steady_clock::now(), 0);
}

std::chrono::duration<double> AdmissionControl::expected_wait(Priority priority, int ahead,
                                                              Seconds waited) const {
  std::lock_guard lock(mutex_);
  return expected_wait_locked(priority, ahead, waited);
}

std::chrono::duration<double> AdmissionControl::expected_wait(Priority priority) const {
  std::lock_guard lock(mutex_);
  return arrival_wait_locked(priority);
}

std::optional<std::chrono::duration<double>> AdmissionControl::wait_for_slot(Priority priority,
                                                                             int ahead,
                                                                             TimePoint now,
                                                                             Seconds waited) const {
  std::lock_guard lock(mutex_);
  return wait_for_slot_locked(priority, ahead, now, waited);
}

std::chrono::duration<double> AdmissionControl::wait_to_start(Priority priority, int ahead,
                                                              TimePoint now, Seconds waited) const {
  std::lock_guard lock(mutex_);
  const auto by_slots = wait_for_slot_locked(priority, ahead, now, waited);
  return by_slots ? *by_slots : expected_wait_locked(priority, ahead, waited);
}

std::chrono::seconds AdmissionControl::retry_after(Priority priority) const {
  double wait = 0;
  {
    std::lock_guard lock(mutex_);
    wait = arrival_wait_locked(priority).count();
  }
  const double bounded = std::clamp(std::isfinite(wait) ? wait : 60.0, 1.0, 60.0);
  return std::chrono::seconds(static_cast<long>(std::ceil(bounded)));
}

double AdmissionControl::completion_rate_locked() const {
  if (completions_.mean_gap <= 0) return outlook_.predicted_rate;  // nothing measured yet
  // A long silence since the last completion means the rate is lower than the average says.
  return completions_.per_second(std::chrono::steady_clock::now(), 1.0 / 16);
}

double AdmissionControl::completion_spread_locked() const {
  // A prediction knows nothing of how completions bunch: assume a spread as large as the mean.
  if (completions_.mean_gap <= 0) return outlook_.predicted_rate > 0 ? 1.0 : 0;
  return std::sqrt(completions_.gap_variance) / completions_.mean_gap;
}

std::optional<std::chrono::duration<double>> AdmissionControl::wait_for_slot_locked(
    Priority priority, int ahead, TimePoint now, Seconds waited) const {
  const auto& releases = outlook_.releases;
  if (releases.empty()) return std::nullopt;
  const auto parts = stretches_locked(priority, waited.count(), kSettledGaps);
  double overtaken_until = 0;  // the end of the last stretch in which anyone overtakes it
  double elapsed = 0;
  for (const Stretch& part : parts) {
    elapsed += part.seconds;
    if (part.overtaking > 0) overtaken_until = elapsed;
  }
  const auto slots = static_cast<int>(releases.size());
  const auto start = [&](int k) {  // seconds from now until the (k+1)-th slot frees
    const auto release = releases[static_cast<std::size_t>(k % slots)];
    return std::max(std::chrono::duration<double>(release - now).count(), 0.0) +
           (k / slots) * outlook_.service_seconds;
  };
  // Slot by slot: a higher-class request that has arrived by then and not started yet takes
  // it while they still overtake; then those ahead; then this one. Higher-class requests still
  // waiting when aging lifts it to their class came after it, and now start after it.
  int overtook = 0;
  int k = 0;
  for (; k < kSlotHorizon; ++k) {
    const double at = start(k);
    if (at >= overtaken_until) {  // nobody overtakes any more: the next ahead + 1 slots
      k = std::min(k + ahead, kSlotHorizon);
      break;
    }
    if (overtakers(parts, at) >= overtook + 1) {
      ++overtook;
    } else if (ahead > 0) {
      --ahead;
    } else {
      break;
    }
  }
  return std::chrono::duration<double>(start(k) + outlook_.step_seconds);
}

double AdmissionControl::rest_of_step_locked(TimePoint now) const {
  return std::max(std::chrono::duration<double>(outlook_.step_end - now).count(), 0.0);
}

AdmissionControl::Seconds AdmissionControl::expected_wait_locked(Priority priority, int ahead,
                                                                 Seconds waited) const {
  const double rate = completion_rate_locked();
  if (rate <= 0) return std::chrono::duration<double>(0);  // unknown yet: do not refuse on a guess
  // Stretch by stretch, completions go first to the classes overtaking it, the rest to those
  // ahead of it and then to it. Higher classes arriving faster than the engine completes leave
  // nothing; in the endless last stretch (no aging) a floor keeps the estimate finite (it is
  // then long enough to refuse any sensible deadline).
  const double starts = ahead + 1;
  double remaining = starts;
  double wait = 0;
  double left = rate;
  for (const Stretch& part : stretches_locked(priority, waited.count(), 0)) {
    const bool last = std::isinf(part.seconds);
    left = std::max(rate - part.overtaking, last ? rate / 16.0 : 0.0);
    if (last || left * part.seconds >= remaining) {
      wait += remaining / left;
      break;
    }
    remaining -= left * part.seconds;
    wait += part.seconds;
  }
  return Seconds(outlook_.step_seconds + wait +
                 2 * completion_spread_locked() * std::sqrt(starts) / left);
}

AdmissionControl::Seconds AdmissionControl::arrival_wait_locked(Priority priority) const {
  int waiting = 0;  // the request itself included
  for (int p = 0; p <= static_cast<int>(priority); ++p)
    waiting += waiting_[p].load();
  const double step = outlook_.step_seconds;
  const double rest = rest_of_step_locked(std::chrono::steady_clock::now());
  // Higher-class requests arriving before the next step starts take free slots first (at a
  // step boundary, arrivals until the one after). All of them count, not only the accepted
  // ones: while slots are free, they are accepted (under overload, accepted requests bunch
  // exactly when slots free up, so their average rate is far too low here).
  const double overtakers = higher_rate_locked(priority, offered_, 0) * std::max(rest, step);
  const int left = outlook_.free_slots - (waiting - 1);
  if (left > 0 && poisson_at_least(overtakers, left) < 0.02) {
    return Seconds(rest + step);  // it starts at the next step
  }
  const int ahead = static_cast<int>(std::lround(std::max(overtakers - left, 0.0)));
  const auto by_rate = Seconds(rest) + expected_wait_locked(priority, ahead, Seconds(0));
  // The rate knows nothing of where the running sequences are: when all of them started
  // together a moment ago, no slot frees for a while whatever the average says. A request
  // accepted against the rate alone was then refused at the next step's re-check, late.
  if (left > 0) return by_rate;
  const auto by_slots =
      wait_for_slot_locked(priority, -left, std::chrono::steady_clock::now(), Seconds(0));
  return by_slots ? std::max(by_rate, *by_slots) : by_rate;
}

double AdmissionControl::higher_rate_locked(Priority priority,
                                            const std::array<Rate, kPriorityCount>& rates,
                                            int min_gaps) const {
  const auto now = std::chrono::steady_clock::now();
  double rate = 0;
  for (int p = 0; p < static_cast<int>(priority); ++p) {
    if (rates[p].gaps < min_gaps) continue;
    rate += rates[p].per_second(now, 0);  // a class that stopped arriving takes nothing
  }
  return rate;
}

std::vector<AdmissionControl::Stretch> AdmissionControl::stretches_locked(Priority priority,
                                                                          double waited,
                                                                          int min_gaps) const {
  const double aging = std::chrono::duration<double>(options_.aging).count();
  if (aging <= 0) return {{kEndless, higher_rate_locked(priority, arrivals_, min_gaps)}};
  // The class it competes in now, and how long until the next step up.
  const auto steps = static_cast<int>(std::floor(std::max(waited, 0.0) / aging));
  int rank = std::max(static_cast<int>(priority) - steps, 0);
  double until_next = aging - std::fmod(std::max(waited, 0.0), aging);
  std::vector<Stretch> parts;
  for (; rank > 0; --rank, until_next = aging) {
    parts.push_back(
        {until_next, higher_rate_locked(static_cast<Priority>(rank), arrivals_, min_gaps)});
  }
  parts.push_back({kEndless, 0});  // the highest class: nobody overtakes it
  return parts;
}

double AdmissionControl::overtakers(const std::vector<Stretch>& stretches, double seconds) {
  double count = 0;
  for (const Stretch& part : stretches) {
    if (seconds <= 0) break;
    const double span = std::min(part.seconds, seconds);
    count += part.overtaking * span;
    seconds -= span;
  }
  return count;
}

}  // namespace supportd::sched
