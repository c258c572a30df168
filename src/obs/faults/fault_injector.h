// Fault injection for drills and tests: an operator arms faults on named stages of the request
// path (POST /admin/faults), each a delay, an abort with a given HTTP status, or a token-rate
// throttle, for a share of the requests passing the stage, optionally of one class or tenant,
// until it expires or is removed. The stages ask decide() for each request; what it returns is
// a plain instruction the stage applies itself (the engine thread only ever sees the numbers in
// GenerationRequest::injected, decided before submit). Off, a decision is one atomic load and a
// branch. Every injection is counted in supportd_faults_injected_total{stage,kind}.
// Thread-safety: every method may be called from any thread. decide() takes no lock: it reads
// an immutable snapshot of the armed faults; add/remove/clear replace the snapshot under a
// mutex.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace supportd::obs {
class Counter;
class Registry;
}  // namespace supportd::obs

namespace supportd::obs::faults {

// Where on the request path a fault acts.
enum class Stage : std::uint8_t {
  kHttp,       // before the route's handler runs (every API route; not /admin, not probes)
  kQueue,      // before the request joins the engine's queue
  kPrefill,    // the engine's prompt steps
  kDecode,     // the engine's token steps
  kRetrieval,  // the desk's knowledge-base search
  kStore,      // the desk's session store
  kEncoder,    // the desk's sentence encoder (vector retrieval)
};
inline constexpr int kStageCount = 7;

enum class Kind : std::uint8_t {
  kDelay,     // wait this long (prefill, decode: every engine step the request takes part in)
  kAbort,     // answer the request with this status instead
  kThrottle,  // at most this many tokens a second (decode only)
};
inline constexpr int kKindCount = 3;

const char* stage_name(Stage stage);  // "http", "queue", ...
std::optional<Stage> parse_stage(std::string_view name);
const char* kind_name(Kind kind);  // "delay", "abort", "throttle"
std::optional<Kind> parse_kind(std::string_view name);
// "http, queue, prefill, ..." for error messages.
std::string stage_names();

using SteadyClock = std::chrono::steady_clock;
using WallClock = std::chrono::system_clock;

// What an operator asks for.
struct FaultSpec {
  Stage stage = Stage::kDecode;
  Kind kind = Kind::kDelay;
  std::chrono::milliseconds delay{0};  // kDelay: > 0
  int status = 503;                    // kAbort: 400..599
  double tokens_per_second = 0;        // kThrottle: > 0
  double percent = 100;                // of the requests passing the stage: 0..100
  std::string priority;                // only this class (high, normal, low); empty: all
  std::string tenant;                  // only this tenant; empty: all
  std::chrono::seconds expires_after{300};
};

// Bounds on what may be armed.
struct FaultLimits {
  std::size_t max_faults = 8;                  // armed at once
  std::chrono::seconds max_expiry{3600};       // expires_after at most
  std::chrono::milliseconds max_delay{60000};  // kDelay at most
};

// An armed fault as GET /admin/faults lists it.
struct FaultView {
  std::uint64_t id = 0;
  FaultSpec spec;
  WallClock::time_point created;
  WallClock::time_point expires;
  std::int64_t injected = 0;  // requests it has hit so far
};

// What a stage must do to one request.
struct Injection {
  std::uint64_t fault = 0;  // the fault's id
  Stage stage = Stage::kDecode;
  Kind kind = Kind::kDelay;
  std::chrono::milliseconds delay{0};
  int status = 0;
  double tokens_per_second = 0;
};

class FaultInjector {
 public:
  // `registry` (may be null) gets supportd_faults_injected_total; it must outlive this.
  explicit FaultInjector(const FaultLimits& limits = {}, Registry* registry = nullptr);
  ~FaultInjector();
  FaultInjector(const FaultInjector&) = delete;
  FaultInjector& operator=(const FaultInjector&) = delete;

  // Arms `spec`. kInvalidArgument naming the field (param: "delay_ms", "status",
  // "tokens_per_second", "percent", "class", "expires_s", "kind") when a value is out of its
  // range or the kind does not fit the stage; kOverloaded when limits.max_faults are armed.
  Result<FaultView> add(const FaultSpec& spec, SteadyClock::time_point now = SteadyClock::now());
  // The faults armed and not expired, oldest first (expired ones are dropped).
  std::vector<FaultView> list(SteadyClock::time_point now = SteadyClock::now());
  // Disarms every fault (the kill switch); returns how many were armed.
  std::size_t clear();
  // Disarms one; false when no such fault is armed.
  bool remove(std::uint64_t id);

  // Whether this request, of `priority` (empty: not known yet) and `tenant`, gets a fault at
  // `stage`; the first armed fault that matches and draws it wins. An injection returned is
  // counted. Lock-free; when nothing is armed on `stage`, one atomic load.
  std::optional<Injection> decide(Stage stage, std::string_view priority, std::string_view tenant,
                                  SteadyClock::time_point now = SteadyClock::now());

  const FaultLimits& limits() const { return limits_; }

 private:
  struct Armed;  // one fault with its hit count
  using Snapshot = std::vector<std::shared_ptr<Armed>>;

  void publish(Snapshot snapshot);  // REQUIRES: mutex_ held

  const FaultLimits limits_;
  std::vector<Counter*> injected_;  // [stage * kKindCount + kind]; empty without a registry
  std::atomic<std::uint32_t> stages_armed_{0};  // bit per stage with an armed fault
  std::atomic<std::shared_ptr<const Snapshot>> armed_;
  std::mutex mutex_;           // serializes writers
  std::uint64_t next_id_ = 1;  // guarded by mutex_
};

// The delay an injection asks for, done on this thread, as a span "fault STAGE" under the
// current span (obs/trace/current.h) with the fault's attributes, and a log line.
void pause(const Injection& injection);
// An injection applied elsewhere (an abort answered here, a delay the engine applies): a span
// "fault STAGE" of no length under the current span with the fault's attributes, and a log
// line.
void mark(const Injection& injection);

}  // namespace supportd::obs::faults
