// Busy-time completion rate and mean service time of one engine node.
#include "bus/rate_meter.h"

namespace supportd::bus {

double RateMeter::busy_seconds(Clock::time_point now) const {
  if (held_ <= 0) return busy_total_;
  return busy_total_ + std::chrono::duration<double>(now - since_).count();
}

void RateMeter::set_held(int held, Clock::time_point now) {
  busy_total_ = busy_seconds(now);
  since_ = now;
  held_ = held;
}

void RateMeter::record_finish(Clock::time_point started, Clock::time_point now) {
  finishes_.push_back(busy_seconds(now));
  if (finishes_.size() > kWindow) finishes_.pop_front();
  const double seconds = std::chrono::duration<double>(now - started).count();
  service_seconds_ = service_seconds_ == 0 ? seconds : 0.8 * service_seconds_ + 0.2 * seconds;
}

double RateMeter::completion_rate(Clock::time_point now) const {
  if (finishes_.size() < 2) return 0;
  // From the first completion of the window to now: a busy stretch with no completion since
  // the last one lowers the rate, as it should (the engine is slower than it was).
  const double busy = busy_seconds(now) - finishes_.front();
  if (busy <= 0) return 0;
  return static_cast<double>(finishes_.size() - 1) / busy;
}

}  // namespace supportd::bus
