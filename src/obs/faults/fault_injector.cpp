// Fault injection (see fault_injector.h): validating and arming faults, the lock-free decision
// on the request path, and marking what was injected in the request's trace and the log.
#include "obs/faults/fault_injector.h"

#include <algorithm>
#include <array>
#include <random>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "obs/metrics.h"
#include "obs/trace/current.h"

namespace supportd::obs::faults {
namespace {

constexpr std::array<const char*, kStageCount> kStageNames = {
    "http", "queue", "prefill", "decode", "retrieval", "store", "encoder"};
constexpr std::array<const char*, kKindCount> kKindNames = {"delay", "abort", "throttle"};

std::uint32_t bit(Stage stage) {
  return 1u << static_cast<unsigned>(stage);
}

// A draw in [0, 100), from a generator of this thread's own.
double draw_percent() {
  thread_local std::minstd_rand generator(
      static_cast<std::minstd_rand::result_type>(std::random_device{}()));
  return std::uniform_real_distribution<double>(0.0, 100.0)(generator);
}

Status check(const FaultSpec& spec, const FaultLimits& limits) {
  if (!(spec.percent >= 0 && spec.percent <= 100))
    return Error::invalid("'percent' must be between 0 and 100", "percent");
  if (!spec.priority.empty() && spec.priority != "high" && spec.priority != "normal" &&
      spec.priority != "low") {
    return Error::invalid("'class' must be high, normal or low", "class");
  }
  if (spec.expires_after.count() < 1 || spec.expires_after > limits.max_expiry) {
    return Error::invalid(
        fmt::format("'expires_s' must be between 1 and {}", limits.max_expiry.count()),
        "expires_s");
  }
  switch (spec.kind) {
    case Kind::kDelay:
      if (spec.delay.count() <= 0 || spec.delay > limits.max_delay) {
        return Error::invalid(
            fmt::format("'delay_ms' must be between 1 and {}", limits.max_delay.count()),
            "delay_ms");
      }
      break;
    case Kind::kAbort:
      if (spec.status < 400 || spec.status > 599)
        return Error::invalid("'status' must be an HTTP error status, 400 to 599", "status");
      break;
    case Kind::kThrottle:
      if (spec.stage != Stage::kDecode)
        return Error::invalid("a throttle acts on the decode stage only", "kind");
      if (!(spec.tokens_per_second > 0 && spec.tokens_per_second <= 1e6))
        return Error::invalid("'tokens_per_second' must be above 0", "tokens_per_second");
      break;
  }
  return {};
}

void describe(const Injection& injection, trace::ScopedSpan& span) {
  span.set("supportd.fault.id", static_cast<std::int64_t>(injection.fault));
  span.set("supportd.fault.stage", stage_name(injection.stage));
  span.set("supportd.fault.kind", kind_name(injection.kind));
  if (injection.kind == Kind::kDelay)
    span.set("supportd.fault.delay_ms", static_cast<std::int64_t>(injection.delay.count()));
  if (injection.kind == Kind::kAbort) span.set("supportd.fault.status", injection.status);
  if (injection.kind == Kind::kThrottle)
    span.set("supportd.fault.tokens_per_second", injection.tokens_per_second);
}

void log(const Injection& injection) {
  spdlog::info("fault {} injected: {} {} ({})", injection.fault, stage_name(injection.stage),
               kind_name(injection.kind),
               injection.kind == Kind::kDelay ? fmt::format("{} ms", injection.delay.count())
               : injection.kind == Kind::kAbort
                   ? fmt::format("status {}", injection.status)
                   : fmt::format("{} tokens/s", injection.tokens_per_second));
}

}  // namespace

struct FaultInjector::Armed {
  std::uint64_t id = 0;
  FaultSpec spec;
  SteadyClock::time_point expires;
  WallClock::time_point created_wall;
  WallClock::time_point expires_wall;
  std::atomic<std::int64_t> injected{0};
};

const char* stage_name(Stage stage) {
  return kStageNames[static_cast<std::size_t>(stage)];
}

std::optional<Stage> parse_stage(std::string_view name) {
  for (std::size_t i = 0; i < kStageNames.size(); ++i) {
    if (name == kStageNames[i]) return static_cast<Stage>(i);
  }
  return std::nullopt;
}

const char* kind_name(Kind kind) {
  return kKindNames[static_cast<std::size_t>(kind)];
}

std::optional<Kind> parse_kind(std::string_view name) {
  for (std::size_t i = 0; i < kKindNames.size(); ++i) {
    if (name == kKindNames[i]) return static_cast<Kind>(i);
  }
  return std::nullopt;
}

std::string stage_names() {
  std::string names;
  for (const char* name : kStageNames)
    names += (names.empty() ? "" : ", ") + std::string(name);
  return names;
}

FaultInjector::FaultInjector(const FaultLimits& limits, Registry* registry) : limits_(limits) {
  armed_.store(std::make_shared<const Snapshot>());
  if (registry == nullptr) return;
  auto& family = registry->counter("supportd_faults_injected_total",
                                   "Faults injected into requests (POST /admin/faults), by stage "
                                   "and kind.",
                                   {"stage", "kind"});
  for (const char* stage : kStageNames) {
    for (const char* kind : kKindNames)
      injected_.push_back(&family.with({stage, kind}));
  }
}

FaultInjector::~FaultInjector() = default;

void FaultInjector::publish(Snapshot snapshot) {
  std::uint32_t stages = 0;
  for (const auto& armed : snapshot)
    stages |= bit(armed->spec.stage);
  armed_.store(std::make_shared<const Snapshot>(std::move(snapshot)));
  stages_armed_.store(stages, std::memory_order_release);
}

Result<FaultView> FaultInjector::add(const FaultSpec& spec, SteadyClock::time_point now) {
  if (Status valid = check(spec, limits_); !valid) return valid.error();
  std::lock_guard lock(mutex_);
  Snapshot snapshot = *armed_.load();
  std::erase_if(snapshot, [now](const auto& armed) { return armed->expires <= now; });
  if (snapshot.size() >= limits_.max_faults) {
    return Error::make(ErrorCode::kOverloaded,
                       fmt::format("{} faults are armed, the most allowed at once: DELETE one "
                                   "first (or all: DELETE /admin/faults)",
                                   snapshot.size()));
  }
  auto armed = std::make_shared<Armed>();
  armed->id = next_id_++;
  armed->spec = spec;
  armed->expires = now + spec.expires_after;
  armed->created_wall = WallClock::now();
  armed->expires_wall = armed->created_wall + spec.expires_after;
  FaultView view{armed->id, spec, armed->created_wall, armed->expires_wall, 0};
  snapshot.push_back(std::move(armed));
  publish(std::move(snapshot));
  spdlog::warn("fault {} armed: {} {} for {}% of requests{}{}, for {} s", view.id,
               stage_name(spec.stage), kind_name(spec.kind), spec.percent,
               spec.priority.empty() ? "" : " of class " + spec.priority,
               spec.tenant.empty() ? "" : " of tenant " + spec.tenant, spec.expires_after.count());
  return view;
}

std::vector<FaultView> FaultInjector::list(SteadyClock::time_point now) {
  std::lock_guard lock(mutex_);
  Snapshot snapshot = *armed_.load();
  const std::size_t before = snapshot.size();
  std::erase_if(snapshot, [now](const auto& armed) { return armed->expires <= now; });
  if (snapshot.size() != before) publish(snapshot);
  std::vector<FaultView> views;
  for (const auto& armed : snapshot) {
    views.push_back({armed->id, armed->spec, armed->created_wall, armed->expires_wall,
                     armed->injected.load(std::memory_order_relaxed)});
  }
  return views;
}

std::size_t FaultInjector::clear() {
  std::lock_guard lock(mutex_);
  const std::size_t armed = armed_.load()->size();
  publish({});
  if (armed > 0) spdlog::warn("every fault disarmed ({})", armed);
  return armed;
}

bool FaultInjector::remove(std::uint64_t id) {
  std::lock_guard lock(mutex_);
  Snapshot snapshot = *armed_.load();
  const std::size_t removed =
      std::erase_if(snapshot, [id](const auto& armed) { return armed->id == id; });
  if (removed == 0) return false;
  publish(std::move(snapshot));
  spdlog::warn("fault {} disarmed", id);
  return true;
}

std::optional<Injection> FaultInjector::decide(Stage stage, std::string_view priority,
                                               std::string_view tenant,
                                               SteadyClock::time_point now) {
  if ((stages_armed_.load(std::memory_order_acquire) & bit(stage)) == 0) return std::nullopt;
  const std::shared_ptr<const Snapshot> snapshot = armed_.load();
  for (const auto& armed : *snapshot) {
    const FaultSpec& spec = armed->spec;
    if (spec.stage != stage || armed->expires <= now) continue;
    if (!spec.priority.empty() && spec.priority != priority) continue;
    if (!spec.tenant.empty() && spec.tenant != tenant) continue;
    if (spec.percent < 100 && draw_percent() >= spec.percent) continue;
    armed->injected.fetch_add(1, std::memory_order_relaxed);
    if (!injected_.empty()) {
      injected_[static_cast<std::size_t>(stage) * kKindCount + static_cast<std::size_t>(spec.kind)]
          ->increment();
    }
    return Injection{armed->id, stage, spec.kind, spec.delay, spec.status, spec.tokens_per_second};
  }
  return std::nullopt;
}

void pause(const Injection& injection) {
  trace::ScopedSpan span(fmt::format("fault {}", stage_name(injection.stage)));
  describe(injection, span);
  log(injection);
  std::this_thread::sleep_for(injection.delay);
}

void mark(const Injection& injection) {
  trace::ScopedSpan span(fmt::format("fault {}", stage_name(injection.stage)));
  describe(injection, span);
  log(injection);
}

}  // namespace supportd::obs::faults
