// One customer turn through the desk's pipeline, stage by stage (the order is the list in
// Turn::run). Runs on a desk worker; generation continues on the engine's thread, and the
// postprocessing of a generated answer comes back to a worker.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <boost/json.hpp>

#include "desk/desk.h"
#include "desk/message_meta.h"
#include "filter/output_filter.h"
#include "filter/pii_masker.h"
#include "kb/analyze/language.h"
#include "store/cache/answer_cache.h"

namespace supportd::desk {
namespace json = boost::json;

namespace {

using Clock = std::chrono::steady_clock;

bool chinese(const std::string& language) {
  return language == "zh";
}

std::string say_handoff(const std::string& language) {
  return chinese(language)
             ? "好的，正在为您转接人工客服，请稍候。客服人员加入后会在这里回复您。"
             : "Of course. I'm connecting you with a colleague; they will reply here as soon as "
               "they join.";
}

std::string say_waiting(const std::string& language) {
  return chinese(language) ? "您的消息已转给人工客服，请稍候。"
                           : "A colleague will be with you shortly; they can see your message.";
}

std::string say_fallback(const std::string& language, const std::vector<Citation>& citations,
                         bool human) {
  std::string text;
  if (chinese(language)) {
    text = citations.empty() ? "抱歉，我没有找到确切的答案。"
                             : "抱歉，我不确定有确切的答案。以下文章可能有帮助：";
    for (std::size_t i = 0; i < citations.size(); ++i)
      text += fmt::format("\n{}. {}", i + 1, citations[i].title);
    text += human ? "\n我已为您转接人工客服。" : "\n如需帮助，您可以随时说“转人工”。";
  } else {
    text = citations.empty() ? "Sorry, I could not find an answer to that."
                             : "I'm not sure I have the exact answer. These articles may help:";
    for (std::size_t i = 0; i < citations.size(); ++i)
      text += fmt::format("\n{}. {}", i + 1, citations[i].title);
    text += human ? "\nI've asked a colleague to join the conversation."
                  : "\nYou can also ask for a person at any time.";
  }
  return text;
}

}  // namespace

// The turn's state, shared by the worker that runs the stages, the engine thread that
// generates, and the worker that finishes.
class Desk::Turn : public std::enable_shared_from_this<Desk::Turn> {
 public:
  Turn(Desk& desk, std::string tenant, std::string session, std::string text,
       std::shared_ptr<AnswerSink> sink)
      : desk_(desk),
        tenant_(std::move(tenant)),
        session_(std::move(session)),
        text_(std::move(text)),
        sink_(std::move(sink)) {}

  void run();

 private:
  class Relay;

  // Runs `body` as the stage `name`, recording its time; false stops the pipeline. A stage that
  // answers has its time recorded by reply(), so the answer carries it.
  template <typename Body>
  bool stage(const char* name, Body&& body) {
    stage_name_ = name;
    stage_started_ = Clock::now();
    const bool go_on = body();
    end_stage();
    return go_on;
  }
  // Records the running stage's time (once).
  void end_stage() {
    if (stage_name_ == nullptr) return;
    const double seconds = std::chrono::duration<double>(Clock::now() - stage_started_).count();
    answer_.timings.emplace_back(stage_name_, seconds * 1e3);
    desk_.metrics_.stage(stage_name_, seconds);
    stage_name_ = nullptr;
  }
  bool validate();
  bool screen();
  bool record_question();
  bool check_handoff();
  bool answer_faq();
  bool answer_from_cache();
  bool retrieve();
  bool fall_back();
  void generate();
  void finish_generation(const engine::Completion& completion);
  // Stores the answer (with a session), sends it, counts it.
  void reply(AnswerSource source, std::string text, bool stream_text = true);
  // With a session, appends the answer (text, source, citations) and sets answer_.seq_id.
  void store_answer();
  void fail(int status, std::string_view code, std::string_view message) {
    sink_->on_error(status, code, message);
  }

  Desk& desk_;
  const std::string tenant_;
  const std::string session_;  // empty: a one-shot question
  std::string text_;
  std::shared_ptr<AnswerSink> sink_;
  Answer answer_;
  std::string key_;            // answer-cache key
  std::vector<float> vector_;  // the question's embedding, when there is one
  kb::SearchResult search_;
  std::shared_ptr<const kb::KnowledgeBase> knowledge_;
  std::unique_ptr<filter::OutputFilter> output_;
  engine::Engine::RequestId generation_ = 0;
  Clock::time_point generation_started_;
  const char* stage_name_ = nullptr;  // the stage running now, if any
  Clock::time_point stage_started_;
};

void Desk::Turn::run() {
  knowledge_ = desk_.knowledge_.current();
  // The pipeline, in order. Each stage either hands the turn on or has answered it.
  if (!stage("validate", [&] { return validate(); })) return;
  if (!stage("safety", [&] { return screen(); })) return;
  if (!stage("store", [&] { return record_question(); })) return;
  if (!stage("handoff", [&] { return check_handoff(); })) return;
  if (!stage("faq", [&] { return answer_faq(); })) return;
  if (!stage("cache", [&] { return answer_from_cache(); })) return;
  if (!stage("retrieval", [&] { return retrieve(); })) return;
  if (!desk_.options_.generate || !desk_.engine_.ready()) {
    stage("fallback", [&] { return fall_back(); });
    return;
  }
  generate();  // "prompt" and "generate"; the answer completes on the engine's thread
}

bool Desk::Turn::validate() {
  if (!session_.empty()) {
    if (auto id = desk_.verify(tenant_, session_); !id) {
      const bool malformed = id.error().code == ErrorCode::kInvalidArgument;
      fail(malformed ? 400 : 404, malformed ? "invalid_session" : "unknown_session",
           id.error().message);
      return false;
    }
  }
  if (auto refusal = desk_.check_text(text_)) {
    fail(refusal->status, refusal->code, refusal->message);
    return false;
  }
  answer_.language = kb::detect_language(text_).code;
  return true;
}

bool Desk::Turn::screen() {
  const auto& rules = desk_.rules_.for_tenant(tenant_);
  filter::InputVerdict verdict = rules->check_input(text_);
  if (verdict.decision == filter::Decision::kRefuse) {
    const std::string category =
        verdict.refused_by ? verdict.refused_by->rule->category : "refused";
    desk_.metrics_.refused_input(category);
    answer_.notice = "refused: " + category;
    if (!session_.empty()) {
      auto seq = desk_.stores_.sessions->append(
          session_, {store::Role::kUser, "(message withheld: " + category + ")"});
      if (seq) answer_.message_seq_id = *seq;
    }
    reply(AnswerSource::kRefused, rules->notice());
    return false;
  }
  if (verdict.decision == filter::Decision::kMask) answer_.notice = "masked";
  text_ = std::move(verdict.text);
  return true;
}

bool Desk::Turn::record_question() {
  if (session_.empty()) return true;
  auto seq =
      desk_.stores_.sessions->append(session_, {store::Role::kUser, filter::mask_pii(text_)});
  if (!seq) {
    const Error& error = seq.error();
    if (error.code == ErrorCode::kInvalidArgument || error.code == ErrorCode::kTooLarge) {
      fail(400, error_code_name(error.code), error.message);  // the message itself is wrong
    } else {
      fail(503, "store_unavailable", "your message could not be stored: " + error.message);
    }
    return false;
  }
  answer_.message_seq_id = *seq;
  auto conversation = desk_.stores_.sessions->conversation(session_);
  if (!conversation) return true;
  answer_.handoff = store::handoff_name(conversation->handoff);
  if (conversation->handoff == store::Handoff::kTaken) {
    // A person has the conversation: the message is theirs to answer.
    desk_.hub_.to_agents(tenant_, json::serialize(json::object{{"type", "customer_message"},
                                                               {"session", session_},
                                                               {"text", text_},
                                                               {"seq_id", *seq}}));
    reply(AnswerSource::kAgent, "", false);
    return false;
  }
  if (conversation->handoff == store::Handoff::kWaiting) {
    desk_.publish_waiting(tenant_);
    reply(AnswerSource::kHandoff, say_waiting(answer_.language));
    return false;
  }
  return true;
}

bool Desk::Turn::check_handoff() {
  if (session_.empty()) return true;
  const auto reason = desk_.handoff_.on_question(text_);
  if (!reason) return true;
  auto changed = desk_.request_human(tenant_, session_, *reason);
  if (!changed) return true;  // keep answering; the handoff can be asked for again
  answer_.handoff = store::handoff_name(changed->handoff);
  reply(AnswerSource::kHandoff, say_handoff(answer_.language));
  return false;
}

bool Desk::Turn::answer_faq() {
  auto faq = desk_.find_faq(text_);
  if (!faq) return true;
  answer_.citations = faq->citations;
  answer_.confidence = 1.0;
  desk_.handoff_.note_confidence(session_, true);
  reply(AnswerSource::kFaq, faq->text);
  return false;
}

bool Desk::Turn::answer_from_cache() {
  if (!desk_.options_.generate) return true;  // only generated answers are cached
  key_ = store::answer_key(text_, knowledge_->version());
  std::optional<store::CachedAnswer> cached = desk_.stores_.answers_l1->get(key_);
  if (!cached && desk_.stores_.answers_l2) {
    auto l2 = desk_.stores_.answers_l2->get(key_);
    if (l2 && *l2) {
      cached = **l2;
      desk_.stores_.answers_l1->put(key_, *cached);
    }
  }
  if (!cached) {
    if (auto vector = knowledge_->embed(text_)) {
      vector_ = std::move(vector).value();
      if (auto hit = desk_.semantic_cache_.lookup(vector_, knowledge_->version())) {
        cached = store::CachedAnswer{hit->answer, {}, 0};
      }
    }
  }
  if (!cached) return true;
  if (desk_.stores_.answer_log) desk_.stores_.answer_log->record(key_);
  answer_.citations = cached_citations(*knowledge_, *cached);
  reply(AnswerSource::kCache, cached->text);
  return false;
}

bool Desk::Turn::retrieve() {
  kb::SearchOptions options;
  options.k = 5;
  if (!vector_.empty()) options.vector = vector_;
  auto result = knowledge_->search(text_, options);
  if (!result) return true;  // nothing to go on: fall back or generate without articles
  search_ = std::move(result).value();
  if (!search_.language.empty()) answer_.language = search_.language;
  answer_.confidence = search_.confidence;
  if (search_.confident && !search_.hits.empty() && !search_.hits[0].answer.empty()) {
    answer_.citations = {citation_of(search_.hits[0])};
    desk_.handoff_.note_confidence(session_, true);
    reply(AnswerSource::kKnowledge, search_.hits[0].answer);
    return false;
  }
  return true;
}

bool Desk::Turn::fall_back() {
  for (const auto& hit : search_.hits) {
    if (answer_.citations.size() >= 3) break;
    answer_.citations.push_back(citation_of(hit));
  }
  bool human = false;
  if (desk_.handoff_.note_confidence(session_, false)) {
    auto changed = desk_.request_human(tenant_, session_, HandoffReason::kLowConfidence);
    if (changed) {
      human = true;
      answer_.handoff = store::handoff_name(changed->handoff);
    }
  }
  reply(AnswerSource::kFallback, say_fallback(answer_.language, answer_.citations, human));
  return false;
}

void Desk::Turn::store_answer() {
  if (session_.empty() || answer_.text.empty()) return;
  // The source and citations go with the text, so that the history shows them as they were.
  const std::string meta =
      encode_message_meta({answer_source_name(answer_.source), answer_.citations, ""});
  auto seq = desk_.stores_.sessions->append(
      session_, {store::Role::kAssistant, filter::mask_pii(answer_.text), meta});
  if (seq) answer_.seq_id = *seq;
}

void Desk::Turn::reply(AnswerSource source, std::string text, bool stream_text) {
  end_stage();
  answer_.source = source;
  answer_.text = std::move(text);
  if (!answer_.citations.empty()) sink_->on_citations(answer_.citations);
  if (stream_text && !answer_.text.empty()) sink_->on_token(answer_.text);
  store_answer();
  desk_.metrics_.answered(source);
  sink_->on_done(answer_);
}

// Carries generated text from the engine through the output filter to the customer.
class Desk::Turn::Relay final : public engine::GenerationSink {
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
    if (!t.desk_.workers_.post([turn, completion] { turn->finish_generation(completion); })) {
      turn->finish_generation(completion);
    }
  }

 private:
  void stop() {
    Turn& t = *turn_;
    const std::string notice = t.desk_.rules_.for_tenant(t.tenant_)->notice();
    t.sink_->on_notice(notice, "filtered");
    t.answer_.notice =
        "filtered: " + (t.output_->stopped_by() ? t.output_->stopped_by()->rule->category : "");
    t.answer_.text += t.answer_.text.empty() ? notice : "\n" + notice;
    t.desk_.engine_.cancel(t.generation_);
  }

  std::shared_ptr<Turn> turn_;
};

void Desk::Turn::generate() {
  std::vector<store::Message> history;
  Prompt prompt;
  stage("prompt", [&] {
    if (!session_.empty()) {
      auto h = desk_.stores_.sessions->history(session_, 20, answer_.message_seq_id);
      if (h) history = std::move(h).value();
    }
    prompt = build_prompt(desk_.options_.prompt, search_.hits, history, text_);
    return true;
  });
  answer_.citations = prompt.citations;
  if (!answer_.citations.empty()) sink_->on_citations(answer_.citations);
  output_ = std::make_unique<filter::OutputFilter>(desk_.rules_.for_tenant(tenant_));
  const auto submit = [&](Prompt& p) {
    engine::GenerationRequest request;
    request.chat = true;
    request.messages = std::move(p.messages);
    request.max_tokens = desk_.options_.max_answer_tokens;
    request.sampling.temperature = 0.3f;
    request.tenant = tenant_;
    request.id = session_.empty() ? "answer" : session_;
    generation_started_ = Clock::now();
    return desk_.engine_.submit(std::move(request), std::make_shared<Relay>(shared_from_this()));
  };
  auto submitted = submit(prompt);
  // A prompt over the model's context is asked again with the conversation so far halved
  // (newest messages kept), down to none (the articles, and so the citations, stay) before
  // the knowledge base answers alone. Each try drops at least the oldest message given.
  PromptOptions options = desk_.options_.prompt;
  while (!submitted && submitted.error().code == ErrorCode::kTooLarge && prompt.history_chars > 0) {
    options.history_chars = prompt.history_chars / 2;
    prompt = build_prompt(options, search_.hits, history, text_);
    spdlog::debug("desk: {}; asking again with {} of the conversation's messages",
                  submitted.error().message, prompt.history_messages);
    submitted = submit(prompt);
  }
  answer_.history_messages = prompt.history_messages;
  if (!submitted) {
    spdlog::warn("desk: generation refused ({}); answering from the knowledge base",
                 submitted.error().message);
    answer_.citations.clear();
    stage("fallback", [&] { return fall_back(); });
    return;
  }
  generation_ = *submitted;
}

void Desk::Turn::finish_generation(const engine::Completion& completion) {
  const double seconds = std::chrono::duration<double>(Clock::now() - generation_started_).count();
  answer_.timings.emplace_back("generate", seconds * 1e3);
  desk_.metrics_.stage("generate", seconds);
  const bool complete = completion.reason == engine::FinishReason::kStop ||
                        completion.reason == engine::FinishReason::kLength;
  if (!complete && answer_.text.empty()) {
    answer_.citations.clear();
    fall_back();
    return;
  }
  const auto started = Clock::now();
  answer_.source = AnswerSource::kModel;
  store_answer();
  if (complete && answer_.notice.rfind("filtered", 0) != 0 && !key_.empty()) {
    store::CachedAnswer cached{answer_.text, {}, store::unix_ms()};
    for (const auto& c : answer_.citations)
      cached.citations.push_back(c.id);
    desk_.stores_.answers_l1->put(key_, cached);
    if (desk_.stores_.answers_l2) desk_.stores_.answers_l2->put(key_, cached);
    if (!vector_.empty())
      desk_.semantic_cache_.insert(vector_, knowledge_->version(), text_, answer_.text);
  }
  const double post = std::chrono::duration<double>(Clock::now() - started).count();
  answer_.timings.emplace_back("postprocess", post * 1e3);
  desk_.metrics_.stage("postprocess", post);
  desk_.metrics_.answered(AnswerSource::kModel);
  sink_->on_done(answer_);
}

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
  void on_error(int http_status, std::string_view code, std::string_view message) override {
    inner_->on_error(http_status, code, message);
    ended_();
  }

 private:
  const std::shared_ptr<AnswerSink> inner_;
  const std::function<void()> ended_;
};

}  // namespace

void Desk::ask(const std::string& tenant, const std::string& session, std::string text,
               std::shared_ptr<AnswerSink> sink) {
  if (session.empty()) {  // a one-shot question: nothing to keep in order
    auto turn = std::make_shared<Turn>(*this, tenant, session, std::move(text), sink);
    if (!workers_.post([turn] { turn->run(); }))
      sink->on_error(503, "overloaded", "the desk is busy; try again in a moment");
    return;
  }
  // A conversation's turns run in the order they arrived, one at a time.
  auto ending =
      std::make_shared<EndingSink>(sink, [this, session] { conversations_.leave(session); });
  auto turn = std::make_shared<Turn>(*this, tenant, session, std::move(text), ending);
  const bool entered = conversations_.enter(session, [this, turn, ending] {
    if (!workers_.post([turn] { turn->run(); }))
      ending->on_error(503, "overloaded", "the desk is busy; try again in a moment");
  });
  if (!entered) {
    sink->on_error(429, "too_many_messages",
                   fmt::format("{} messages of this conversation already wait for an answer; "
                               "send the next one when they are answered",
                               options_.max_waiting_per_conversation));
  }
}

void Desk::answer(const std::string& tenant, std::string question,
                  std::shared_ptr<AnswerSink> sink) {
  ask(tenant, "", std::move(question), std::move(sink));
}

}  // namespace supportd::desk
