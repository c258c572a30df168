// The customer-service desk: answers a business's customers from its knowledge base, keeps each
// conversation, never says what it must not, and hands over to a person when it should.
// One customer turn runs the stages of turn.cpp in order (validate, language, safety, store,
// handoff, faq, cache, retrieval, prompt, generate, postprocess), each timed.
// With a model whose text is meaningless (synthesized), it never shows generated text: it
// answers confident matches from the knowledge base and otherwise offers the closest articles
// and a person.
// Thread-safety: every public method may be called from any thread. Work that can wait on a
// network or a model runs on the desk's worker threads; results arrive through AnswerSink.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/worker_pool.h"
#include "desk/answer.h"
#include "desk/conversation_hub.h"
#include "desk/conversation_queue.h"
#include "desk/desk_metrics.h"
#include "desk/handoff_policy.h"
#include "desk/prompt.h"
#include "engine/engine.h"
#include "filter/rule_set.h"
#include "kb/live_knowledge_base.h"
#include "store/cache/semantic_cache.h"
#include "store/open_stores.h"

namespace supportd::desk {

struct DeskOptions {
  PromptOptions prompt{
      "You are the customer-service assistant of an online store. Answer the customer's last "
      "question briefly and politely, only from the articles below, and cite the articles you "
      "used as [1], [2]. If the articles do not answer it, say so and offer a person.",
      3, 1200, 4000};
  int max_answer_tokens = 256;
  std::size_t max_question_characters = 4000;  // what the widget's text box takes
  std::vector<std::string> handoff_topics;
  int low_confidence_turns = 2;  // unconfident answers in a row before a person is called
  int worker_threads = 2;
  std::size_t max_queued_turns = 4096;
  // Messages of one conversation waiting for the answer in progress (more get 429).
  std::size_t max_waiting_per_conversation = 8;
  // false: never show generated text (when the model is synthesized, unless `serve
  // --show-synthesized-text` asks for it in a test or benchmark)
  bool generate = true;
  std::size_t semantic_cache_entries = 10000;
};

// Content rules per tenant; tenants without their own use the default.
struct TenantRules {
  std::shared_ptr<const filter::RuleSet> fallback = filter::RuleSet::empty();
  std::map<std::string, std::shared_ptr<const filter::RuleSet>> tenants;
  const std::shared_ptr<const filter::RuleSet>& for_tenant(const std::string& tenant) const;
};

struct History {
  std::vector<store::Message> messages;
  store::Conversation conversation;
};

class Desk {
 public:
  Desk(DeskOptions options, engine::Engine& engine, kb::LiveKnowledgeBase& knowledge,
       store::Stores& stores, TenantRules rules, obs::Registry& registry);
  ~Desk();

  // --- customers ---
  Result<store::Conversation> start(const std::string& tenant, const std::string& user);
  // One customer turn in a session; the answer arrives through `sink`.
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

  // Whether `session` is a valid id of `tenant` (without touching any store).
  Status check_session(const std::string& tenant, const std::string& session);
  Result<History> history(const std::string& tenant, const std::string& session, std::size_t limit,
                          std::int64_t before_seq);
  Status rate_answer(const std::string& tenant, const std::string& session, std::int64_t seq_id,
                     bool up);
  Status rate_conversation(const std::string& tenant, const std::string& session, int csat);
  Result<store::Conversation> request_human(const std::string& tenant, const std::string& session,
                                            HandoffReason reason);

  // --- agents ---
  // `tenant`'s conversations waiting for a person, oldest first, at most `limit` (and at most
  // store::kMaxWaitingListed: /v1/stats counts the waiting up to that).
  Result<store::WaitingList> waiting(const std::string& tenant, std::size_t limit = 200);
  Result<store::Conversation> take(const std::string& tenant, const std::string& session,
                                   const std::string& agent);
  Result<std::int64_t> agent_reply(const std::string& tenant, const std::string& session,
                                   const std::string& agent, const std::string& text);
  Result<store::Conversation> close(const std::string& tenant, const std::string& session,
                                    const std::string& agent);
  Result<store::Conversation> release(const std::string& tenant, const std::string& session,
                                      const std::string& agent);

  // --- operations ---
  Result<bool> reload_knowledge();
  // The version of the knowledge base answering now ("g<generation>-<content hash>").
  std::string knowledge_version() const;
  // The waiting list as the agents' socket message ({"type": "waiting", ...}).
  std::string waiting_message(const std::string& tenant);
  ConversationHub& hub() { return hub_; }
  DeskMetrics& metrics() { return metrics_; }
  const DeskOptions& options() const { return options_; }

 private:
  // A fast-path answer's last touch: its stage timing, in the answer and in the metrics.
  Answer timed(Answer answer, const char* stage, std::chrono::steady_clock::time_point started);
  // The exact-FAQ lookup alone, neither timed nor counted (the turn's faq stage and
  // answer_from_faq each count their own answers, once).
  std::optional<Answer> find_faq(const std::string& question);
  class Turn;
  friend class Turn;

  // The session's id after checking it belongs to `tenant`.
  Result<store::SessionId> verify(const std::string& tenant, const std::string& session);
  Result<store::Conversation> change_handoff(const std::string& tenant, const std::string& session,
                                             const store::HandoffChange& change,
                                             const std::string& note);
  void publish_waiting(const std::string& tenant);
  // An error unless `agent` is the one who has the conversation.
  Status require_agent(const std::string& session, const std::string& agent);
  // The FAQ question index of the current knowledge base (rebuilt when its version changes).
  std::shared_ptr<const std::map<std::string, std::string>> faq_index();
  // Why a customer's text cannot be taken (not UTF-8, empty, NUL, over
  // max_question_characters), or nullopt.
  struct Refusal {
    int status;
    std::string code;
    std::string message;
  };
  std::optional<Refusal> check_text(const std::string& text) const;
  // The citations of a cached answer: its entries as they are in `knowledge` now.
  static std::vector<Citation> cached_citations(const kb::KnowledgeBase& knowledge,
                                                const store::CachedAnswer& cached);

  const DeskOptions options_;
  engine::Engine& engine_;
  kb::LiveKnowledgeBase& knowledge_;
  store::Stores& stores_;
  const TenantRules rules_;
  DeskMetrics metrics_;
  HandoffPolicy handoff_;
  ConversationHub hub_;
  store::SemanticCache semantic_cache_;
  ConversationQueue conversations_;

  std::mutex faq_mutex_;
  std::string faq_version_;  // guarded by faq_mutex_
  std::shared_ptr<const std::map<std::string, std::string>>
      faq_;  // normalized question -> entry id

  WorkerPool workers_;  // last: stops (and drains) first
};

}  // namespace supportd::desk
