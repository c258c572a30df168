// One customer turn through the desk's pipeline. The stages, in order (the list is
// Turn::kPipeline in turn.cpp; each stage lives in its own file of this folder):
//
//   validate     validate.cpp     the session is the tenant's; the text is one the desk takes
//   safety       safety.cpp       the tenant's content rules refuse or mask the question
//   store        store.cpp        the question joins the conversation; a person may have it
//   handoff      handoff.cpp      asked for a person, or a configured topic: one is called
//   faq          faq.cpp          an exact FAQ question: its answer
//   cache        cache.cpp        an answer given before (L1, L2, semantic)
//   retrieval    retrieve.cpp     the articles; a confident one with an answer gives it
//   prompt       prompt.cpp       (when the desk generates) history and articles into a prompt
//   generate     generate.cpp     the engine writes, through the output filter, to the customer
//   postprocess  postprocess.cpp  the generated answer is kept and cached
//   fallback     fallback.cpp     nothing answered: the closest articles and a person
//
// Each stage either hands the turn on, does not apply to it (then it is not timed), ends it
// (an answer, or an error), or continues on another thread (generate). Every stage runs through
// Turn::advance, which times it with a StageTimer: one place for stage timings and spans.
// Threads: a desk worker runs the stages up to generate; the engine's thread streams the
// generated text through the output filter; a worker runs postprocess (or fallback) after it.
// The turn's state is touched by one thread at a time, handed over by submit and post.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "desk/answer.h"
#include "desk/prompt.h"
#include "desk/stage_timer.h"
#include "desk/turn/turn_context.h"
#include "engine/engine.h"
#include "filter/output_filter.h"
#include "kb/knowledge_base.h"
#include "store/session_types.h"

namespace supportd::desk {

class Turn : public std::enable_shared_from_this<Turn> {
 public:
  // `session` empty: a one-shot question (no history, no handoff, nothing stored).
  // REQUIRES: `context` outlives the turn (the Desk outlives its turns).
  // The turn joins the trace of the thread's current request (obs/trace/current.h), if any,
  // as one of its parts until the turn is destroyed: its stages' spans hang from that span.
  Turn(const TurnContext& context, std::string tenant, std::string session, std::string text,
       std::shared_ptr<AnswerSink> sink);
  ~Turn();
  Turn(const Turn&) = delete;
  Turn& operator=(const Turn&) = delete;

  // Runs the pipeline from its first stage; `sink` hears the answer or the error, exactly once.
  // Call once, on a desk worker, with the turn owned by a shared_ptr.
  void run();

 private:
  // What a stage tells the pipeline.
  enum class Next {
    kContinue,  // on to the next stage; this one's time is recorded
    kSkip,      // this stage does not apply to the turn: on to the next, no time recorded
    kDone,      // the stage ended the turn (answered it, or reported an error): stop here
    kPending,   // the stage goes on in another thread, which calls resume(): touch nothing more
  };
  struct Stage {
    const char* name;  // the label of supportd_desk_stage_seconds and the answer's timings
    Next (Turn::*run)();
  };
  static const Stage kPipeline[];  // the pipeline, in order (turn.cpp)
  class Relay;                     // generated text, engine -> output filter -> customer

  // Runs kPipeline[from] and the stages after it, each timed, until one ends the turn or
  // goes pending.
  void advance(std::size_t from);
  // Starts timing kPipeline[i] and runs it.
  Next run_stage(std::size_t i);
  // A drill's fault on the stage about to run (obs/faults: retrieval, encoder, store): waits
  // out a delay; an abort ends the turn with kBusy. Nothing without an injector.
  std::optional<Next> inject_fault(std::string_view stage);
  // The generation ended: records the generate stage, runs the stages after it. On a desk
  // worker (or the engine's thread when the workers are stopping).
  void resume(const engine::Completion& completion);

  // The stages, in pipeline order; each in its own file.
  Next validate();
  Next screen();
  Next record_question();
  Next check_handoff();
  Next answer_faq();
  Next answer_from_cache();
  Next retrieve();
  Next prepare_prompt();
  Next generate();
  Next postprocess();
  Next fall_back();

  // Submits `prompt_` to the engine (generate.cpp).
  Result<engine::Engine::RequestId> submit();
  // Ends the running stage's timing, then: citations, the text as one token (`stream_text`),
  // the answer stored (with a session), counted, done. Returns kDone.
  Next reply(AnswerSource source, std::string text, bool stream_text = true);
  // Ends the running stage's timing (when reply() did not), counts the answer, sends done.
  void deliver();
  // With a session, appends the answer (text, source, citations) and sets answer_.seq_id.
  void store_answer();
  // Sends `error` instead of an answer. Returns kDone.
  Next fail(const DeskError& error);

  const TurnContext& context_;
  const std::string tenant_;
  const std::string session_;  // empty: a one-shot question
  std::string text_;           // the question (masked by safety when the rules say so)
  const std::shared_ptr<AnswerSink> sink_;
  std::shared_ptr<const kb::KnowledgeBase> knowledge_;  // the one the turn started with
  Answer answer_;
  StageTimer timer_;
  const obs::trace::Handoff trace_;  // the request the turn works for (no trace: none)
  std::size_t next_stage_ = 0;       // set before each stage runs: where resume() goes on
  std::string key_;                  // answer-cache key (cache, postprocess)
  std::vector<float> vector_;        // the question's embedding, when there is one
  kb::SearchResult search_;
  std::vector<store::Message> history_;  // prompt: the conversation before the question
  std::optional<Prompt> prompt_;         // set by prompt when the desk generates
  std::unique_ptr<filter::OutputFilter> output_;
  std::optional<engine::FinishReason> finished_;  // how the generation ended; set by resume()
  // The generation's id, and whether the output filter stopped it (engine thread); the two
  // make sure a stop that comes before submit() returns still cancels the generation.
  std::atomic<engine::Engine::RequestId> generation_{0};
  std::atomic<bool> stop_requested_{false};
};

}  // namespace supportd::desk
