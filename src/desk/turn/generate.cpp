// Stage generate: the prompt goes to the engine at the customer's priority; the generated text
// streams back through the tenant's output filter to the customer (Relay, on the engine's
// thread). A prompt over the model's context is asked again with less of the conversation; a
// refused generation hands the turn to fallback.
#include <spdlog/spdlog.h>

#include "desk/turn/turn.h"
#include "engine/generation_trace.h"

namespace supportd::desk {

// Carries generated text from the engine through the output filter to the customer.
class Turn::Relay final : public engine::GenerationSink {
 public:
  explicit Relay(std::shared_ptr<Turn> turn) : turn_(std::move(turn)) {}

  void on_text(std::string_view text) override {
    Turn& t = *turn_;
    if (t.output_->stopped()) return;
    const std::string safe = t.output_->push(text);
    t.answer_.text += safe;
    if (!safe.empty()) t.sink_->on_token(safe);
    if (t.output_->stopped()) stop();
  }

  // Before any text: which model version is answering (a router's; for the A/B figures).
  void on_version(std::string_view version) override { turn_->answer_.version = version; }

  void on_done(const engine::Completion& completion) override {
    Turn& t = *turn_;
    if (!t.output_->stopped()) {
      const std::string tail = t.output_->finish();
      t.answer_.text += tail;
      if (!tail.empty()) t.sink_->on_token(tail);
      if (t.output_->stopped()) stop();
    }
    // Storing and caching may wait on a network: not on the engine's thread.
    auto turn = turn_;
    if (!t.context_.workers.post([turn, completion] { turn->resume(completion); }))
      turn->resume(completion);
  }

 private:
  void stop() {
    Turn& t = *turn_;
    const std::string notice = t.context_.rules.for_tenant(t.tenant_)->notice();
    t.sink_->on_notice(notice, "filtered");
    t.answer_.notice =
        "filtered: " + (t.output_->stopped_by() ? t.output_->stopped_by()->rule->category : "");
    t.answer_.text += t.answer_.text.empty() ? notice : "\n" + notice;
    t.stop_requested_ = true;
    if (const auto id = t.generation_.load(); id != 0) t.context_.engine.cancel(id);
  }

  std::shared_ptr<Turn> turn_;
};

Result<engine::Engine::RequestId> Turn::submit() {
  engine::GenerationRequest request;
  request.chat = true;
  request.messages = std::move(prompt_->messages);  // a retry builds a new prompt
  request.max_tokens = context_.options.max_answer_tokens;
  request.sampling.temperature = static_cast<float>(context_.options.answer_temperature);
  request.tenant = tenant_;
  request.id = session_.empty() ? "answer" : session_;
  // A router keeps the conversation on one version of a sticky split (and its turns that do
  // not generate count for that version: DeskMetrics asks the router with the same key).
  request.routing_key = session_;
  answer_.history_messages = prompt_->history_messages;
  // The generation's spans join the turn's trace under the generate stage's span.
  return engine::submit_traced(context_.engine, std::move(request),
                               std::make_shared<Relay>(shared_from_this()));
}

Turn::Next Turn::generate() {
  if (!prompt_) return Next::kSkip;  // the desk does not generate, or the engine is not ready
  answer_.citations = prompt_->citations;
  if (!answer_.citations.empty()) sink_->on_citations(answer_.citations);
  output_ = std::make_unique<filter::OutputFilter>(context_.rules.for_tenant(tenant_));
  auto submitted = submit();
  // A prompt over the model's context is asked again with the conversation so far halved
  // (newest messages kept), down to none (the articles, and so the citations, stay) before
  // the knowledge base answers alone. Each try drops at least the oldest message given.
  PromptOptions options = context_.options.prompt;
  while (!submitted && submitted.error().code == ErrorCode::kTooLarge &&
         prompt_->history_chars > 0) {
    options.history_chars = prompt_->history_chars / 2;
    prompt_ = build_prompt(options, search_.hits, history_, text_);
    spdlog::debug("desk: {}; asking again with {} of the conversation's messages",
                  submitted.error().message, prompt_->history_messages);
    submitted = submit();
  }
  if (!submitted) {
    spdlog::warn("desk: generation refused ({}); answering from the knowledge base",
                 submitted.error().message);
    answer_.citations.clear();
    return Next::kSkip;  // postprocess has nothing to do; fallback answers
  }
  // From here the engine's thread owns the turn; only these two atomics are shared with it.
  generation_ = *submitted;
  if (stop_requested_) context_.engine.cancel(*submitted);
  return Next::kPending;
}

}  // namespace supportd::desk
