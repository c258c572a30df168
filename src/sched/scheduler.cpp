// The scheduler: class order with aging, tenant fair share, dynamic batching (see scheduler.h).
#include "sched/scheduler.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

namespace supportd::sched {

Status validate(const SchedulerOptions& options) {
  const auto refuse = [](const char* name, const char* bound) {
    return Error::invalid(fmt::format("scheduling.{} must {}", name, bound),
                          fmt::format("scheduling.{}", name));
  };
  const auto negative = [](std::chrono::milliseconds d) { return d.count() < 0; };
  if (negative(options.aging)) return refuse("aging", "not be negative");
  if (options.batch_max < 1) return refuse("batch_max", "be at least 1");
  if (negative(options.batch_window)) return refuse("batch_window", "not be negative");
  if (options.early_release_count < 0) return refuse("early_release_count", "not be negative");
  if (negative(options.early_release_after))
    return refuse("early_release_after", "not be negative");
  for (const auto& [tenant, weight] : options.tenant_weights) {
    if (!(weight > 0)) {
      return Error::invalid(
          fmt::format("scheduling.tenant_weights: tenant '{}' must weigh more than 0", tenant),
          "scheduling.tenant_weights");
    }
  }
  return {};
}

Scheduler::Scheduler(SchedulerOptions options) : options_(std::move(options)) {}

double Scheduler::weight(const std::string& tenant) const {
  auto it = options_.tenant_weights.find(tenant);
  return it == options_.tenant_weights.end() || it->second <= 0 ? 1.0 : it->second;
}

void Scheduler::activate(const std::string& tenant) {
  if (queued_[tenant] > 0) return;
  // The least virtual time among tenants that are waiting: a tenant returning from idle starts
  // there, so it cannot claim the time it did not use.
  double floor = std::numeric_limits<double>::infinity();
  for (const auto& [name, count] : queued_) {
    if (count > 0) floor = std::min(floor, virtual_[name]);
  }
  if (floor != std::numeric_limits<double>::infinity()) {
    virtual_[tenant] = std::max(virtual_[tenant], floor);
  }
}

void Scheduler::push(Ticket ticket) {
  activate(ticket.tenant);
  ++queued_[ticket.tenant];
  waiting_.push_back(std::move(ticket));
}

bool Scheduler::erase(std::uint64_t id) {
  auto it =
      std::find_if(waiting_.begin(), waiting_.end(), [&](const Ticket& t) { return t.id == id; });
  if (it == waiting_.end()) return false;
  --queued_[it->tenant];
  waiting_.erase(it);
  return true;
}

Priority effective_priority(Priority priority, Clock::time_point arrived, Clock::time_point now,
                            std::chrono::milliseconds aging) {
  int rank = static_cast<int>(priority);
  if (aging.count() > 0) rank -= static_cast<int>((now - arrived) / aging);
  return static_cast<Priority>(std::max(0, rank));
}

Priority Scheduler::effective_priority(const Ticket& ticket, Clock::time_point now) const {
  return sched::effective_priority(ticket.priority, ticket.arrived, now, options_.aging);
}

const Ticket* Scheduler::next(Clock::time_point now, int running) {
  if (waiting_.empty()) return nullptr;
  if (options_.batching == BatchingMode::kDynamic) {
    if (batch_open_ && batch_admitted_ >= options_.batch_max) batch_open_ = false;
    if (!batch_open_) {
      if (running > 0) return nullptr;  // the current batch runs to completion
      const auto age = now - waiting_.front().arrived;
      const int count = static_cast<int>(waiting_.size());
      const bool full = count >= options_.batch_max;
      const bool window_over = age >= options_.batch_window;
      const bool early = options_.early_release_count > 0 && count < options_.early_release_count &&
                         age >= options_.early_release_after;
      if (!full && !window_over && !early) return nullptr;
      batch_open_ = true;
      batch_admitted_ = 0;
    }
  }
  const Ticket* best = nullptr;
  Priority best_class = Priority::kLow;
  double best_virtual = 0;
  for (const auto& t : waiting_) {
    const Priority p = effective_priority(t, now);
    const double v = virtual_time(t.tenant);
    const bool better =
        best == nullptr || p < best_class ||
        (p == best_class && (v < best_virtual || (v == best_virtual && t.arrived < best->arrived)));
    if (better) {
      best = &t;
      best_class = p;
      best_virtual = v;
    }
  }
  return best;
}

Ticket Scheduler::pop(std::uint64_t id) {
  auto it =
      std::find_if(waiting_.begin(), waiting_.end(), [&](const Ticket& t) { return t.id == id; });
  Ticket ticket = std::move(*it);
  waiting_.erase(it);
  --queued_[ticket.tenant];
  if (options_.batching == BatchingMode::kDynamic) {
    ++batch_admitted_;
    if (waiting_.empty()) batch_open_ = false;
  }
  return ticket;
}

void Scheduler::charge(const std::string& tenant, std::int64_t tokens) {
  virtual_[tenant] += static_cast<double>(tokens) / weight(tenant);
}

double Scheduler::virtual_time(const std::string& tenant) const {
  auto it = virtual_.find(tenant);
  return it == virtual_.end() ? 0.0 : it->second;
}

std::size_t Scheduler::size(Priority priority) const {
  return static_cast<std::size_t>(std::count_if(
      waiting_.begin(), waiting_.end(), [&](const Ticket& t) { return t.priority == priority; }));
}

std::optional<Clock::time_point> Scheduler::oldest() const {
  if (waiting_.empty()) return std::nullopt;
  return waiting_.front().arrived;
}

}  // namespace supportd::sched
