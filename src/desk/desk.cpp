#include "desk/desk.h"

#include <algorithm>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <boost/json.hpp>

#include "core/utf8.h"
#include "desk/message_meta.h"
#include "filter/pii_masker.h"
#include "kb/analyze/language.h"
#include "store/cache/answer_cache.h"

namespace supportd::desk {
namespace json = boost::json;

const std::shared_ptr<const filter::RuleSet>& TenantRules::for_tenant(
    const std::string& tenant) const {
  auto it = tenants.find(tenant);
  return it == tenants.end() ? fallback : it->second;
}

Desk::Desk(DeskOptions options, engine::Engine& engine, kb::LiveKnowledgeBase& knowledge,
           store::Stores& stores, TenantRules rules, obs::Registry& registry)
    : options_(std::move(options)),
      engine_(engine),
      knowledge_(knowledge),
      stores_(stores),
      rules_(std::move(rules)),
      metrics_(registry),
      handoff_(options_.handoff_topics, options_.low_confidence_turns),
      semantic_cache_(
          512,
          [&] {
            auto calibration = knowledge.current()->semantic_cache();
            return calibration ? calibration->threshold : 1.01;  // never hits without a calibration
          }(),
          options_.semantic_cache_entries),
      conversations_(options_.max_waiting_per_conversation),
      workers_("desk", options_.worker_threads, options_.max_queued_turns) {}

Desk::~Desk() = default;

Result<store::SessionId> Desk::verify(const std::string& tenant, const std::string& session) {
  auto id = stores_.sessions->verify(session);
  if (!id) return id.error();
  if (id->tenant() != tenant)
    return store::unknown_session();  // another tenant's id: not yours to see
  return id;
}

Status Desk::check_session(const std::string& tenant, const std::string& session) {
  auto id = verify(tenant, session);
  if (!id) return id.error();
  return {};
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

Result<store::Conversation> Desk::start(const std::string& tenant, const std::string& user) {
  return stores_.sessions->create(tenant, user);
}

std::shared_ptr<const std::map<std::string, std::string>> Desk::faq_index() {
  auto knowledge = knowledge_.current();
  std::lock_guard lock(faq_mutex_);
  if (faq_ && faq_version_ == knowledge->version()) return faq_;
  auto index = std::make_shared<std::map<std::string, std::string>>();
  for (const auto& entry : knowledge->entries()) {
    if (entry.kind != kb::EntryKind::kFaq || entry.answer.empty()) continue;
    for (const auto& q : entry.questions)
      index->emplace(store::normalize_question(q.text), entry.id);
  }
  faq_ = std::move(index);
  faq_version_ = knowledge->version();
  return faq_;
}

Answer Desk::timed(Answer answer, const char* stage,
                   std::chrono::steady_clock::time_point started) {
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  answer.timings.emplace_back(stage, seconds * 1e3);
  metrics_.stage(stage, seconds);
  metrics_.answered(answer.source);
  return answer;
}

std::optional<Answer> Desk::answer_from_faq(const std::string& question) {
  const auto started = std::chrono::steady_clock::now();
  auto answer = find_faq(question);
  if (!answer) return std::nullopt;
  return timed(std::move(answer).value(), "faq", started);
}

std::optional<Answer> Desk::find_faq(const std::string& question) {
  const auto index = faq_index();
  auto it = index->find(store::normalize_question(question));
  if (it == index->end()) return std::nullopt;
  const auto knowledge = knowledge_.current();
  const kb::Entry* entry = knowledge->find(it->second);
  if (entry == nullptr) return std::nullopt;
  Answer answer;
  answer.text = entry->answer;
  answer.source = AnswerSource::kFaq;
  answer.confidence = 1.0;
  answer.language = entry->locale;
  answer.citations.push_back({entry->id, entry->title,
                              entry->questions.empty() ? entry->title : entry->questions[0].text});
  return answer;
}

std::optional<Answer> Desk::answer_from_cache(const std::string& tenant,
                                              const std::string& question) {
  const auto started = std::chrono::steady_clock::now();
  if (!options_.generate || check_text(question)) return std::nullopt;
  const filter::InputVerdict verdict = rules_.for_tenant(tenant)->check_input(question);
  if (verdict.decision != filter::Decision::kAllow) return std::nullopt;
  const auto knowledge = knowledge_.current();
  const std::string key = store::answer_key(question, knowledge->version());
  std::optional<store::CachedAnswer> cached = stores_.answers_l1->get(key);
  if (!cached) return std::nullopt;
  if (stores_.answer_log) stores_.answer_log->record(key);
  Answer answer;
  answer.text = std::move(cached->text);
  answer.source = AnswerSource::kCache;
  answer.language = kb::detect_language(question).code;
  answer.citations = cached_citations(*knowledge, *cached);
  return timed(std::move(answer), "cache", started);
}

std::optional<Desk::Refusal> Desk::check_text(const std::string& text) const {
  if (!is_valid_utf8(text))
    return Refusal{400, "invalid_argument", "the message is not valid UTF-8"};
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    return Refusal{400, "invalid_argument", "the message is empty"};
  if (text.find('\0') != std::string::npos)
    return Refusal{400, "invalid_argument", "the message contains a NUL character"};
  // Characters, not bytes: 4,000 Chinese characters are as long a message as 4,000 Latin ones.
  const auto characters =
      static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
      }));
  if (characters > options_.max_question_characters) {
    return Refusal{400, "message_too_long",
                   fmt::format("the message has {} characters; at most {} are accepted", characters,
                               options_.max_question_characters)};
  }
  return std::nullopt;
}

std::vector<Citation> Desk::cached_citations(const kb::KnowledgeBase& knowledge,
                                             const store::CachedAnswer& cached) {
  std::vector<Citation> citations;
  for (const auto& id : cached.citations) {
    if (const kb::Entry* e = knowledge.find(id)) citations.push_back({e->id, e->title, ""});
  }
  return citations;
}

Result<History> Desk::history(const std::string& tenant, const std::string& session,
                              std::size_t limit, std::int64_t before_seq) {
  if (auto id = verify(tenant, session); !id) return id.error();
  auto messages = stores_.sessions->history(session, limit, before_seq);
  if (!messages) return messages.error();
  auto conversation = stores_.sessions->conversation(session);
  if (!conversation) return conversation.error();
  return History{std::move(messages).value(), std::move(conversation).value()};
}

Status Desk::rate_answer(const std::string& tenant, const std::string& session, std::int64_t seq_id,
                         bool up) {
  if (auto id = verify(tenant, session); !id) return id.error();
  Status s =
      stores_.sessions->rate_answer(session, seq_id, up ? store::Thumb::kUp : store::Thumb::kDown);
  if (s) metrics_.feedback(up ? "thumb_up" : "thumb_down");
  return s;
}

Status Desk::rate_conversation(const std::string& tenant, const std::string& session, int csat) {
  if (auto id = verify(tenant, session); !id) return id.error();
  Status s = stores_.sessions->rate_conversation(session, csat);
  if (s) {
    metrics_.feedback("csat");
    metrics_.csat(csat);
  }
  return s;
}

Result<store::Conversation> Desk::change_handoff(const std::string& tenant,
                                                 const std::string& session,
                                                 const store::HandoffChange& change,
                                                 const std::string& note) {
  if (auto id = verify(tenant, session); !id) return id.error();
  auto conversation = stores_.sessions->change_handoff(session, change);
  if (!conversation) return conversation;
  if (!note.empty()) {
    auto seq = stores_.sessions->append(session, {store::Role::kSystem, note});
    if (seq) conversation->last_seq = *seq;  // the answer shows the note it just added
  }
  hub_.to_session(
      session, json::serialize(json::object{{"type", "handoff"},
                                            {"state", store::handoff_name(conversation->handoff)},
                                            {"agent", conversation->agent}}));
  publish_waiting(tenant);
  return conversation;
}

Result<store::Conversation> Desk::request_human(const std::string& tenant,
                                                const std::string& session, HandoffReason reason) {
  auto current = stores_.sessions->conversation(session);
  if (current && (current->handoff == store::Handoff::kWaiting ||
                  current->handoff == store::Handoff::kTaken)) {
    return current;  // already with (or waiting for) a person
  }
  auto changed =
      change_handoff(tenant, session, {store::Handoff::kWaiting, "", std::nullopt},
                     std::string("waiting for a person (") + handoff_reason_name(reason) + ")");
  if (changed) metrics_.handed_off(handoff_reason_name(reason));
  return changed;
}

void Desk::publish_waiting(const std::string& tenant) {
  const std::string message = waiting_message(tenant);
  if (!message.empty()) hub_.to_agents(tenant, message);
}

std::string Desk::waiting_message(const std::string& tenant) {
  auto list = stores_.sessions->waiting_for_human(tenant, 200);
  if (!list) return {};
  json::array conversations;
  for (const auto& c : list->conversations) {
    conversations.push_back(json::object{{"session", c.session},
                                         {"user", c.user},
                                         {"handoff", store::handoff_name(c.handoff)},
                                         {"agent", c.agent},
                                         {"waiting_since_ms", c.handoff_ms},
                                         {"last_seq", c.last_seq}});
  }
  return json::serialize(json::object{{"type", "waiting"},
                                      {"conversations", std::move(conversations)},
                                      {"partial", list->partial}});
}

Result<store::WaitingList> Desk::waiting(const std::string& tenant, std::size_t limit) {
  return stores_.sessions->waiting_for_human(tenant, limit);
}

Result<store::Conversation> Desk::take(const std::string& tenant, const std::string& session,
                                       const std::string& agent) {
  return change_handoff(tenant, session, {store::Handoff::kTaken, agent, store::Handoff::kWaiting},
                        agent + " joined the conversation");
}

Result<std::int64_t> Desk::agent_reply(const std::string& tenant, const std::string& session,
                                       const std::string& agent, const std::string& text) {
  if (auto id = verify(tenant, session); !id) return id.error();
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
  if (auto id = verify(tenant, session); !id) return id.error();
  if (Status s = require_agent(session, agent); !s) return s.error();
  return change_handoff(tenant, session, {store::Handoff::kClosed, "", std::nullopt},
                        agent + " closed the conversation");
}

Result<store::Conversation> Desk::release(const std::string& tenant, const std::string& session,
                                          const std::string& agent) {
  if (auto id = verify(tenant, session); !id) return id.error();
  if (Status s = require_agent(session, agent); !s) return s.error();
  return change_handoff(tenant, session, {store::Handoff::kBot, "", std::nullopt},
                        agent + " handed the conversation back to the assistant");
}

std::string Desk::knowledge_version() const {
  return knowledge_.current()->version();
}

Result<bool> Desk::reload_knowledge() {
  auto reloaded = knowledge_.reload();
  if (reloaded && *reloaded) semantic_cache_.clear();
  return reloaded;
}

}  // namespace supportd::desk
