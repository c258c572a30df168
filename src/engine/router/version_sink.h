// A model version's figures (requests, errors, refusals, TTFT / ITL / E2E histograms timed as
// the caller sees them), and the sink the router wraps each of its requests in to record them;
// for a shadowed request the sink also keeps production's answer for the comparison
// (shadow_queue.h).
// Thread-safety: Figures are atomics and histograms, shared with the sinks of the requests in
// flight; a VersionSink is called on its engine's thread, as every sink.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "engine/engine.h"
#include "engine/router/shadow_queue.h"
#include "obs/metrics.h"

namespace supportd::engine::router {

// What a version's requests add up to.
struct Figures {
  std::atomic<int> in_flight{0};
  std::atomic<std::int64_t> requests{0};  // given to it (refused at submit ones too)
  std::atomic<std::int64_t> errors{0};    // ended with kError
  std::atomic<std::int64_t> refusals{0};  // refused at submit, or ended by their deadline
  obs::Histogram ttft_ms{obs::exponential_buckets(1, 1.5, 32)};
  obs::Histogram itl_ms{obs::exponential_buckets(0.25, 1.5, 32)};  // between text pieces
  obs::Histogram e2e_ms{obs::exponential_buckets(1, 1.5, 32)};
};

// Counts a request out of its version when it ends (in_flight falls after the caller's sink
// saw the end: a drain waits for it) and records its figures; passes everything on.
class VersionSink final : public GenerationSink {
 public:
  // `pair`: the request is shadowed; production's text is kept and handed to it at the end.
  VersionSink(std::shared_ptr<GenerationSink> inner, std::shared_ptr<Figures> figures,
              std::shared_ptr<AnswerPair> pair);

  void on_version(std::string_view version) override { inner_->on_version(version); }
  void on_text(std::string_view text) override;
  void on_done(const Completion& completion) override;

 private:
  const std::shared_ptr<GenerationSink> inner_;
  const std::shared_ptr<Figures> figures_;
  const std::shared_ptr<AnswerPair> pair_;
  const Clock::time_point submitted_ = Clock::now();
  // The engine's thread alone reads and writes these.
  Clock::time_point last_text_{};
  bool first_token_seen_ = false;
  std::string text_;  // with a pair only
};

}  // namespace supportd::engine::router
