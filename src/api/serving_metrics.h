// Request-level serving metrics: Prometheus families (latencies, tokens, outcomes, engine
// gauges, process usage) and sliding-window percentiles for /v1/stats, per priority class.
// Thread-safety: all methods may be called from any thread.
#pragma once

#include <boost/json/fwd.hpp>

#include <array>
#include <chrono>
#include <optional>
#include <string>

#include "engine/engine.h"
#include "obs/load_window.h"
#include "obs/metrics.h"
#include "obs/sliding_window.h"

namespace supportd::api {

enum class Outcome { kOk, kCancelled, kRejectedQueueFull, kRejectedDeadline, kRateLimited, kError };
const char* outcome_name(Outcome outcome);
// The refusal a request turned away with `code` counts as (a full queue, a deadline it cannot
// meet), whether submit refused it or its engine did later (a cluster's, as the request's end);
// none for other errors.
std::optional<Outcome> refusal_outcome(ErrorCode code);

struct RequestRecord {
  std::string priority;
  std::string tenant;
  Outcome outcome = Outcome::kOk;
  double queue_seconds = -1;        // negative: not measured
  double first_token_seconds = -1;  // time to first token
  double total_seconds = -1;
  int prompt_tokens = 0;
  int completion_tokens = 0;
};

class ServingMetrics {
 public:
  // Registers the families in `registry`; engine and process gauges are refreshed from
  // `engine` on every exposition. The per-class percentiles are over the requests that ended
  // within `window`.
  ServingMetrics(obs::Registry& registry, engine::Engine& engine,
                 std::chrono::seconds window = std::chrono::seconds(60));

  void record(const RequestRecord& record);
  void record_inter_token(const std::string& priority, const std::string& tenant, double seconds);

  // The /v1/stats document: engine state, percentiles per class over the window, and the
  // load over it for capacity planning ("capacity"); the handler adds the desk's part.
  boost::json::object stats_object() const;

  obs::Registry& registry() { return registry_; }
  engine::Engine& engine() { return engine_; }

  // One class's latencies over the window and its outcome counts so far (for the anomaly
  // watch, which turns the counts into rates).
  struct ClassSample {
    obs::Percentiles ttft, itl, e2e;
    std::array<std::int64_t, 6> outcomes{};  // by Outcome
  };
  ClassSample class_sample(int priority) const;

 private:
  struct Windows {
    explicit Windows(std::chrono::seconds span) : ttft(span), itl(span), e2e(span), queue(span) {}
    obs::SlidingWindow ttft, itl, e2e, queue;
  };

  obs::Registry& registry_;
  engine::Engine& engine_;
  obs::Family<obs::Counter>& requests_;
  obs::Family<obs::Histogram>& ttft_;
  obs::Family<obs::Histogram>& itl_;
  obs::Family<obs::Histogram>& e2e_;
  obs::Family<obs::Histogram>& queue_;
  obs::Family<obs::Histogram>& prompt_tokens_;
  obs::Family<obs::Histogram>& completion_tokens_;
  const std::chrono::seconds window_;
  std::array<Windows, engine::kPriorityCount> windows_;
  obs::LoadWindow load_{engine::kPriorityCount};
  std::array<std::array<std::atomic<std::int64_t>, 6>, engine::kPriorityCount> outcomes_{};
};

}  // namespace supportd::api
