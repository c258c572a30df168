// The customer-service desk: answers a business's customers from its knowledge base, keeps each
// conversation, never says what it must not, and hands over to a person when it should.
// One customer turn runs the stages of desk/turn/ in order (validate, safety, store, handoff,
// faq, cache, retrieval, prompt, generate, postprocess, fallback), each timed; the list is
// Turn::kPipeline. The Desk owns the services a turn uses and gives each turn a TurnContext.
// With a model whose text is meaningless (synthesized), it never shows generated text: it
// answers confident matches from the knowledge base and otherwise offers the closest articles
// and a person.
// Errors: the desk's own kinds (desk_error.h) for a turn, core/status.h's for the rest; api/
// turns both into HTTP.
// Thread-safety: every public method may be called from any thread. Work that can wait on a
// network or a model runs on the desk's worker threads; results arrive through AnswerSink.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/worker_pool.h"
#include "desk/answer.h"
#include "desk/cached_answers.h"
#include "desk/conversation_hub.h"
#include "desk/conversation_queue.h"
#include "desk/desk_metrics.h"
#include "desk/desk_options.h"
#include "desk/faq_index.h"
#include "desk/handoff_policy.h"
#include "desk/handoffs.h"
#include "desk/tenant_rules.h"
#include "desk/turn/turn_context.h"
#include "engine/engine.h"
#include "kb/live_knowledge_base.h"
#include "store/open_stores.h"

namespace supportd::desk {

struct History {
  std::vector<store::Message> messages;
  store::Conversation conversation;
};

class Desk {
 public:
  // REQUIRES: `engine`, `knowledge`, `stores` and `registry` outlive the desk;
  // stores.sessions and stores.answers_l1 are set; `options` within the ranges DeskOptions
  // states. `faults` (may be null; outlives the desk too): a drill's faults on the turn's
  // retrieval, encoder and store stages.
  Desk(DeskOptions options, engine::Engine& engine, kb::LiveKnowledgeBase& knowledge,
       store::Stores& stores, TenantRules rules, obs::Registry& registry,
       obs::faults::FaultInjector* faults = nullptr);
  ~Desk();  // finishes the turns queued and running on its workers first

  // --- customers ---
  // A new conversation; fails like Sessions::create.
  Result<store::Conversation> start(const std::string& tenant, const std::string& user);
  // One customer turn in a session; the answer arrives through `sink`, or a DeskError: the
  // turn's (turn/turn.h), kBusy when the workers' queue is full, kTooManyWaiting when
  // max_waiting_per_conversation messages of the session already wait.
  void ask(const std::string& tenant, const std::string& session, std::string text,
           std::shared_ptr<AnswerSink> sink);
  // A question without a session (a help centre's search box): no history, no handoff.
  void answer(const std::string& tenant, std::string question, std::shared_ptr<AnswerSink> sink);
  // The exact-FAQ fast path alone, synchronously: an answer without leaving the caller's thread,
  // or nullopt when the question is not a known FAQ question.
  std::optional<Answer> answer_from_faq(const std::string& question);
  // The answer cache's in-process level alone, synchronously, for a question without a session:
  // the answer given before when the question is acceptable, passes `tenant`'s content rules
  // unchanged and is in the cache; nullopt otherwise (then ask() runs the whole pipeline, which
  // also looks in the shared and semantic caches). Never blocks on a network or a model.
  std::optional<Answer> answer_from_cache(const std::string& tenant, const std::string& question);

  // Whether `session` is a valid id of `tenant` (without touching any store): errors as
  // verify_session (desk/intake.h).
  Status check_session(const std::string& tenant, const std::string& session);
  // The conversation's messages (at most `limit`, before `before_seq` when not 0) and state.
  // Errors: the session check's, then the store's.
  Result<History> history(const std::string& tenant, const std::string& session, std::size_t limit,
                          std::int64_t before_seq);
  // A thumb on the answer `seq_id`, or a CSAT score (1-5) for the conversation; counted.
  // Errors: the session check's, then the store's (invalid_argument for a bad seq_id or score).
  Status rate_answer(const std::string& tenant, const std::string& session, std::int64_t seq_id,
                     bool up);
  Status rate_conversation(const std::string& tenant, const std::string& session, int csat);
  // Puts the conversation in the waiting list (see Handoffs::request_human).
  Result<store::Conversation> request_human(const std::string& tenant, const std::string& session,
                                            HandoffReason reason);

  // --- agents ---
  // `tenant`'s conversations waiting for a person, oldest first, at most `limit` (and at most
  // store::kMaxWaitingListed: /v1/stats counts the waiting up to that); without `limit`,
  // DeskOptions::waiting_listed.
  Result<store::WaitingList> waiting(const std::string& tenant);
  Result<store::WaitingList> waiting(const std::string& tenant, std::size_t limit);
  // An agent's verbs; each fails with the session check's errors, invalid_argument (param
  // "agent") when another agent has the conversation (reply, close, release), or the store's
  // (invalid_argument, param "handoff", when the conversation's state forbids the change).
  Result<store::Conversation> take(const std::string& tenant, const std::string& session,
                                   const std::string& agent);
  Result<std::int64_t> agent_reply(const std::string& tenant, const std::string& session,
                                   const std::string& agent, const std::string& text);
  Result<store::Conversation> close(const std::string& tenant, const std::string& session,
                                    const std::string& agent);
  Result<store::Conversation> release(const std::string& tenant, const std::string& session,
                                      const std::string& agent);

  // --- operations ---
  // Loads the knowledge base's new generation, if any (LiveKnowledgeBase::reload); a new one
  // empties the semantic cache.
  Result<bool> reload_knowledge();
  // The version of the knowledge base answering now ("g<generation>-<content hash>").
  std::string knowledge_version() const;
  // The waiting list as the agents' socket message ({"type": "waiting", ...}).
  std::string waiting_message(const std::string& tenant);
  ConversationHub& hub() { return hub_; }
  // The desk's in-process caches against their caps (CachedAnswers::fill).
  std::vector<obs::CacheFill> cache_fill() const { return answers_.fill(); }
  DeskMetrics& metrics() { return metrics_; }
  const DeskOptions& options() const { return options_; }

 private:
  // An error unless `agent` is the one who has the conversation.
  Status require_agent(const std::string& session, const std::string& agent);

  // Constant after construction; every member below is thread-safe on its own.
  const DeskOptions options_;
  engine::Engine& engine_;
  kb::LiveKnowledgeBase& knowledge_;
  store::Stores& stores_;
  const TenantRules rules_;
  DeskMetrics metrics_;
  HandoffPolicy handoff_policy_;
  ConversationHub hub_;
  Handoffs handoffs_;
  FaqIndex faq_;
  CachedAnswers answers_;
  ConversationQueue conversations_;
  const TurnContext context_;  // what each turn uses of the members above (and of workers_)

  WorkerPool workers_;  // last: stops (and drains) first
};

}  // namespace supportd::desk
