// The Desk: owns the services a turn uses, starts turns (one at a time per conversation), runs
// the two fast paths on the caller's thread, and carries the customers' and agents' verbs that
// are not turns.
#include "desk/desk.h"

#include <fmt/format.h>
#include <boost/json.hpp>

#include "desk/intake.h"
#include "desk/message_meta.h"
#include "desk/stage_timer.h"
#include "desk/turn/turn.h"
#include "filter/pii_masker.h"
#include "kb/analyze/language.h"
#include "store/cache/answer_cache.h"

namespace supportd::desk {
namespace json = boost::json;
namespace {

// Forwards a turn's answer, then calls `ended` once its last event (done or error) went out.
class EndingSink final : public AnswerSink {
 public:
  EndingSink(std::shared_ptr<AnswerSink> inner, std::function<void()> ended)
      : inner_(std::move(inner)), ended_(std::move(ended)) {}
  void on_citations(const std::vector<Citation>& citations) override {
    inner_->on_citations(citations);
  }
  void on_token(std::string_view text) override { inner_->on_token(text); }
  void on_notice(std::string_view text, std::string_view kind) override {
    inner_->on_notice(text, kind);
  }
  void on_done(const Answer& answer) override {
    inner_->on_done(answer);
    ended_();
  }
  void on_error(const DeskError& error) override {
    inner_->on_error(error);
    ended_();
  }

 private:
  const std::shared_ptr<AnswerSink> inner_;
  const std::function<void()> ended_;
};

const DeskError kBusy{DeskErrorKind::kBusy, "the desk is busy; try again in a moment"};

}  // namespace

Desk::Desk(DeskOptions options, engine::Engine& engine, kb::LiveKnowledgeBase& knowledge,
           store::Stores& stores, TenantRules rules, obs::Registry& registry,
           obs::faults::FaultInjector* faults)
    : options_(std::move(options)),
      engine_(engine),
      knowledge_(knowledge),
      stores_(stores),
      rules_(std::move(rules)),
      // A turn's arm is the version the router gives its conversation (the session id is the
      // routing key, as generate's requests carry it): asked through the Engine, not by
      // generating.
      metrics_(registry,
               [&engine](const std::string& session) { return engine.version_for({}, session); }),
      handoff_policy_(options_.handoff_topics, options_.low_confidence_turns),
      handoffs_(*stores_.sessions, hub_, metrics_, options_.waiting_listed),
      faq_(knowledge_),
      answers_(stores_, *knowledge_.current(), options_.semantic_cache_entries),
      conversations_(options_.max_waiting_per_conversation),
      context_{
          .options = options_,
          .rules = rules_,
          .knowledge = knowledge_,
          .sessions = *stores_.sessions,
          .faq = faq_,
          .answers = answers_,
          .handoff_policy = handoff_policy_,
          .handoffs = handoffs_,
          .hub = hub_,
          .engine = engine_,
          .metrics = metrics_,
          .workers = workers_,
          .faults = faults,
      },
      workers_("desk", options_.worker_threads, options_.max_queued_turns) {}

Desk::~Desk() = default;

void Desk::ask(const std::string& tenant, const std::string& session, std::string text,
               std::shared_ptr<AnswerSink> sink) {
  if (session.empty()) {  // a one-shot question: nothing to keep in order
    auto turn = std::make_shared<Turn>(context_, tenant, session, std::move(text), sink);
    if (!workers_.post([turn] { turn->run(); })) sink->on_error(kBusy);
    return;
  }
  // A conversation's turns run in the order they arrived, one at a time.
  auto ending =
      std::make_shared<EndingSink>(sink, [this, session] { conversations_.leave(session); });
  auto turn = std::make_shared<Turn>(context_, tenant, session, std::move(text), ending);
  const bool entered = conversations_.enter(session, [this, turn, ending] {
    if (!workers_.post([turn] { turn->run(); })) ending->on_error(kBusy);
  });
  if (!entered) {
    sink->on_error({DeskErrorKind::kTooManyWaiting,
                    fmt::format("{} messages of this conversation already wait for an answer; "
                                "send the next one when they are answered",
                                options_.max_waiting_per_conversation)});
  }
}

void Desk::answer(const std::string& tenant, std::string question,
                  std::shared_ptr<AnswerSink> sink) {
  ask(tenant, "", std::move(question), std::move(sink));
}

std::optional<Answer> Desk::answer_from_faq(const std::string& question) {
  StageTimer timer;
  timer.start("faq");
  auto answer = faq_.find(question);
  if (!answer) return std::nullopt;
  timer.stop(*answer, metrics_);
  metrics_.answered(answer->source);
  return answer;
}

std::optional<Answer> Desk::answer_from_cache(const std::string& tenant,
                                              const std::string& question) {
  StageTimer timer;
  timer.start("cache");
  if (!options_.generate || check_message(question, options_.max_question_characters))
    return std::nullopt;
  const auto& rules = rules_.for_tenant(tenant);
  const filter::InputVerdict verdict = rules->check_input(question);
  if (verdict.decision != filter::Decision::kAllow) return std::nullopt;
  const auto knowledge = knowledge_.current();
  auto hit = answers_.find(store::answer_key(question, knowledge->version()), question, *knowledge,
                           rules, CachedAnswers::Reach::kInProcess);
  if (!hit) return std::nullopt;
  Answer answer;
  answer.text = std::move(hit->text);
  answer.source = AnswerSource::kCache;
  answer.language = kb::detect_language(question).code;
  answer.citations = std::move(hit->citations);
  timer.stop(answer, metrics_);
  metrics_.answered(answer.source);
  return answer;
}

Result<store::Conversation> Desk::start(const std::string& tenant, const std::string& user) {
  return stores_.sessions->create(tenant, user);
}

Status Desk::check_session(const std::string& tenant, const std::string& session) {
  auto id = verify_session(*stores_.sessions, tenant, session);
  if (!id) return id.error();
  return {};
}

Result<History> Desk::history(const std::string& tenant, const std::string& session,
                              std::size_t limit, std::int64_t before_seq) {
  if (Status s = check_session(tenant, session); !s) return s.error();
  auto messages = stores_.sessions->history(session, limit, before_seq);
  if (!messages) return messages.error();
  auto conversation = stores_.sessions->conversation(session);
  if (!conversation) return conversation.error();
  return History{std::move(messages).value(), std::move(conversation).value()};
}

Status Desk::rate_answer(const std::string& tenant, const std::string& session, std::int64_t seq_id,
                         bool up) {
  if (Status s = check_session(tenant, session); !s) return s;
  Status s =
      stores_.sessions->rate_answer(session, seq_id, up ? store::Thumb::kUp : store::Thumb::kDown);
  if (s) metrics_.feedback(up ? "thumb_up" : "thumb_down");
  return s;
}

Status Desk::rate_conversation(const std::string& tenant, const std::string& session, int csat) {
  if (Status s = check_session(tenant, session); !s) return s;
  Status s = stores_.sessions->rate_conversation(session, csat);
  if (s) {
    metrics_.feedback("csat");
    metrics_.csat(csat, session);
  }
  return s;
}

Result<store::Conversation> Desk::request_human(const std::string& tenant,
                                                const std::string& session, HandoffReason reason) {
  return handoffs_.request_human(tenant, session, reason);
}

Result<store::WaitingList> Desk::waiting(const std::string& tenant) {
  return waiting(tenant, options_.waiting_listed);
}

Result<store::WaitingList> Desk::waiting(const std::string& tenant, std::size_t limit) {
  return stores_.sessions->waiting_for_human(tenant, limit);
}

std::string Desk::waiting_message(const std::string& tenant) {
  return handoffs_.waiting_message(tenant);
}

Status Desk::require_agent(const std::string& session, const std::string& agent) {
  auto conversation = stores_.sessions->conversation(session);
  if (!conversation) return conversation.error();
  if (conversation->handoff != store::Handoff::kTaken || conversation->agent != agent) {
    return Error::invalid("the conversation is " +
                              std::string(store::handoff_name(conversation->handoff)) +
                              (conversation->agent.empty() ? "" : " with " + conversation->agent) +
                              ", not taken by " + agent,
                          "agent");
  }
  return {};
}

Result<store::Conversation> Desk::take(const std::string& tenant, const std::string& session,
                                       const std::string& agent) {
  return handoffs_.change(tenant, session,
                          {store::Handoff::kTaken, agent, store::Handoff::kWaiting},
                          agent + " joined the conversation");
}

Result<std::int64_t> Desk::agent_reply(const std::string& tenant, const std::string& session,
                                       const std::string& agent, const std::string& text) {
  if (Status s = check_session(tenant, session); !s) return s.error();
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    return Error::invalid("the reply is empty", "text");
  if (Status s = require_agent(session, agent); !s) return s.error();
  auto seq = stores_.sessions->append(
      session, {store::Role::kAgent, filter::mask_pii(text), encode_message_meta({"", {}, agent})});
  if (!seq) return seq;
  hub_.to_session(
      session, json::serialize(json::object{
                   {"type", "agent_message"}, {"text", text}, {"agent", agent}, {"seq_id", *seq}}));
  return seq;
}

Result<store::Conversation> Desk::close(const std::string& tenant, const std::string& session,
                                        const std::string& agent) {
  if (Status s = check_session(tenant, session); !s) return s.error();
  if (Status s = require_agent(session, agent); !s) return s.error();
  return handoffs_.change(tenant, session, {store::Handoff::kClosed, "", std::nullopt},
                          agent + " closed the conversation");
}

Result<store::Conversation> Desk::release(const std::string& tenant, const std::string& session,
                                          const std::string& agent) {
  if (Status s = check_session(tenant, session); !s) return s.error();
  if (Status s = require_agent(session, agent); !s) return s.error();
  return handoffs_.change(tenant, session, {store::Handoff::kBot, "", std::nullopt},
                          agent + " handed the conversation back to the assistant");
}

std::string Desk::knowledge_version() const {
  return knowledge_.current()->version();
}

Result<bool> Desk::reload_knowledge() {
  auto reloaded = knowledge_.reload();
  if (reloaded && *reloaded) answers_.forget_semantic();
  return reloaded;
}

}  // namespace supportd::desk
