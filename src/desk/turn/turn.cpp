// The pipeline of a customer turn, as one ordered list, and what every stage shares: running
// and timing the stages, replying, storing the answer (see turn.h).
#include "desk/turn/turn.h"

#include <iterator>

#include "desk/message_meta.h"
#include "filter/pii_masker.h"
#include "obs/faults/fault_injector.h"

namespace supportd::desk {

// The pipeline, in order. Each stage either hands the turn on or ends it.
const Turn::Stage Turn::kPipeline[] = {
    {"validate", &Turn::validate},        // the session is the tenant's; the text is taken
    {"safety", &Turn::screen},            // the content rules refuse or mask the question
    {"store", &Turn::record_question},    // the question joins the conversation
    {"handoff", &Turn::check_handoff},    // asked for a person, or a configured topic
    {"faq", &Turn::answer_faq},           // an exact FAQ question
    {"cache", &Turn::answer_from_cache},  // an answer given before
    {"retrieval", &Turn::retrieve},       // the articles; a confident one's answer
    {"prompt", &Turn::prepare_prompt},    // (generating) history and articles
    {"generate", &Turn::generate},        // (generating) the engine writes: pending
    {"postprocess", &Turn::postprocess},  // (generated) stored and cached
    {"fallback", &Turn::fall_back},       // nothing answered: articles and a person
};

Turn::Turn(const TurnContext& context, std::string tenant, std::string session, std::string text,
           std::shared_ptr<AnswerSink> sink)
    : context_(context),
      tenant_(std::move(tenant)),
      session_(std::move(session)),
      text_(std::move(text)),
      sink_(std::move(sink)),
      trace_(obs::trace::capture()) {
  if (trace_.trace) trace_.trace->open_part();
}

Turn::~Turn() {
  // The last reference may be dropped on the engine's thread, which must not finish a trace.
  if (trace_.trace) trace_.trace->end_part_elsewhere();
}

void Turn::run() {
  const obs::trace::Scope traced(trace_);
  knowledge_ = context_.knowledge.current();
  advance(0);
}

// The stage's span is the thread's current one while the stage runs: the generation, a store
// call hang from it.
Turn::Next Turn::run_stage(std::size_t i) {
  timer_.start(kPipeline[i].name);
  const obs::trace::Scope in_stage(timer_.trace(), timer_.span());
  if (auto aborted = inject_fault(kPipeline[i].name)) return *aborted;
  return (this->*kPipeline[i].run)();
}

std::optional<Turn::Next> Turn::inject_fault(std::string_view stage) {
  if (context_.faults == nullptr) return std::nullopt;
  namespace faults = obs::faults;
  // The query is encoded (vector retrieval) as retrieval begins: the encoder's faults act
  // there, before the retrieval's own. A turn's class is not known here: faults bound to a
  // class do not reach the desk's stages.
  std::vector<faults::Stage> stages;
  if (stage == "retrieval") stages = {faults::Stage::kEncoder, faults::Stage::kRetrieval};
  if (stage == "store") stages = {faults::Stage::kStore};
  for (faults::Stage at : stages) {
    auto injection = context_.faults->decide(at, "", tenant_);
    if (!injection) continue;
    if (injection->kind != faults::Kind::kAbort) {
      faults::pause(*injection);
      continue;
    }
    faults::mark(*injection);
    return fail({DeskErrorKind::kInjectedFault,
                 "fault " + std::to_string(injection->fault) + " injected at the " +
                     faults::stage_name(at) + " stage (POST /admin/faults)",
                 injection->status});
  }
  return std::nullopt;
}

void Turn::advance(std::size_t from) {
  for (std::size_t i = from; i < std::size(kPipeline); ++i) {
    next_stage_ = i + 1;  // before the stage runs: a pending stage's resume() reads it
    switch (run_stage(i)) {
      case Next::kContinue: timer_.stop(answer_, context_.metrics); break;
      case Next::kSkip: timer_.drop(); break;
      case Next::kDone: timer_.stop(answer_, context_.metrics); return;  // no-op after reply()
      case Next::kPending: return;  // the turn now belongs to another thread
    }
  }
}

void Turn::resume(const engine::Completion& completion) {
  const obs::trace::Scope traced(trace_);
  timer_.stop(answer_, context_.metrics);  // the generate stage
  finished_ = completion.reason;
  advance(next_stage_);
}

Turn::Next Turn::reply(AnswerSource source, std::string text, bool stream_text) {
  timer_.stop(answer_, context_.metrics);
  answer_.source = source;
  answer_.text = std::move(text);
  if (!answer_.citations.empty()) sink_->on_citations(answer_.citations);
  if (stream_text && !answer_.text.empty()) sink_->on_token(answer_.text);
  store_answer();
  deliver();
  return Next::kDone;
}

void Turn::deliver() {
  timer_.stop(answer_, context_.metrics);
  context_.metrics.answered(answer_.source, session_, answer_.version);
  sink_->on_done(answer_);
}

void Turn::store_answer() {
  if (session_.empty() || answer_.text.empty()) return;
  // The source and citations go with the text, so that the history shows them as they were.
  const std::string meta =
      encode_message_meta({answer_source_name(answer_.source), answer_.citations, ""});
  auto seq = context_.sessions.append(
      session_, {store::Role::kAssistant, filter::mask_pii(answer_.text), meta});
  if (seq) answer_.seq_id = *seq;
}

Turn::Next Turn::fail(const DeskError& error) {
  sink_->on_error(error);
  return Next::kDone;
}

}  // namespace supportd::desk
