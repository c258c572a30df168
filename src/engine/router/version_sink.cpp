// A model version's figures and the sink that records them (see version_sink.h).
#include "engine/router/version_sink.h"

#include <chrono>

namespace supportd::engine::router {
namespace {

double milliseconds_between(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double, std::milli>(end - start).count();
}

}  // namespace

VersionSink::VersionSink(std::shared_ptr<GenerationSink> inner, std::shared_ptr<Figures> figures,
                         std::shared_ptr<AnswerPair> pair)
    : inner_(std::move(inner)), figures_(std::move(figures)), pair_(std::move(pair)) {}

void VersionSink::on_text(std::string_view text) {
  // Timed from the router's submit, as the caller sees it (whatever delayed it).
  const Clock::time_point now = Clock::now();
  if (!first_token_seen_) {
    first_token_seen_ = true;
    figures_->ttft_ms.observe(milliseconds_between(submitted_, now));
  } else {
    figures_->itl_ms.observe(milliseconds_between(last_text_, now));
  }
  last_text_ = now;
  if (pair_) text_ += text;
  inner_->on_text(text);
}

void VersionSink::on_done(const Completion& completion) {
  if (completion.reason == FinishReason::kError) figures_->errors.fetch_add(1);
  if (completion.reason == FinishReason::kDeadline) figures_->refusals.fetch_add(1);
  figures_->e2e_ms.observe(milliseconds_between(submitted_, Clock::now()));
  inner_->on_done(completion);
  if (pair_) pair_->production_ended(std::move(text_), is_answer(completion.reason));
  figures_->in_flight.fetch_sub(1);  // after the answer's end: a drain waits for it
}

}  // namespace supportd::engine::router
