// The GenerationSink wrapper that records each request in ServingMetrics and charges the caller's
// token budget (see metering_sink.h).
#include "api/metering_sink.h"

namespace supportd::api {
namespace {

class MeteringSink final : public engine::GenerationSink {
 public:
  MeteringSink(std::shared_ptr<engine::GenerationSink> inner, ServingMetrics* metrics,
               Access* access, Caller caller, sched::Priority priority)
      : inner_(std::move(inner)),
        metrics_(metrics),
        access_(access),
        caller_(std::move(caller)),
        priority_(sched::priority_name(priority)) {}

  void on_version(std::string_view version) override { inner_->on_version(version); }

  void on_text(std::string_view text) override {
    const auto now = engine::Clock::now();
    if (metrics_ && last_ != engine::Clock::time_point{}) {
      metrics_->record_inter_token(priority_, caller_.tenant,
                                   std::chrono::duration<double>(now - last_).count());
    }
    last_ = now;
    inner_->on_text(text);
  }

  void on_done(const engine::Completion& c) override {
    if (metrics_) {
      RequestRecord r;
      r.priority = priority_;
      r.tenant = caller_.tenant;
      switch (c.reason) {
        case engine::FinishReason::kStop:
        case engine::FinishReason::kLength: r.outcome = Outcome::kOk; break;
        case engine::FinishReason::kCancelled: r.outcome = Outcome::kCancelled; break;
        case engine::FinishReason::kDeadline: r.outcome = Outcome::kRejectedDeadline; break;
        case engine::FinishReason::kError: r.outcome = Outcome::kError; break;
      }
      // A refusal that came as the end (a cluster's engine refusing what its gateway queued)
      // counts as the refusal it is, as it would at submit.
      if (c.reason == engine::FinishReason::kError) {
        if (auto refusal = refusal_outcome(c.error.code)) r.outcome = *refusal;
      }
      r.queue_seconds = c.timings.queued_ms / 1e3;
      r.first_token_seconds = c.timings.first_token_ms < 0 ? -1 : c.timings.first_token_ms / 1e3;
      r.total_seconds = c.timings.total_ms / 1e3;
      r.prompt_tokens = c.usage.prompt_tokens;
      r.completion_tokens = c.usage.completion_tokens;
      metrics_->record(r);
    }
    if (access_) access_->charge_tokens(caller_, c.usage.prompt_tokens + c.usage.completion_tokens);
    inner_->on_done(c);
  }

 private:
  std::shared_ptr<engine::GenerationSink> inner_;
  ServingMetrics* metrics_;
  Access* access_;
  Caller caller_;
  std::string priority_;
  engine::Clock::time_point last_;
};

}  // namespace

std::shared_ptr<engine::GenerationSink> make_metering_sink(
    std::shared_ptr<engine::GenerationSink> inner, ServingMetrics* metrics, Access* access,
    Caller caller, sched::Priority priority) {
  return std::make_shared<MeteringSink>(std::move(inner), metrics, access, std::move(caller),
                                        priority);
}

}  // namespace supportd::api
