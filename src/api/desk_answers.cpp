// Desk answers on the wire (see desk_answers.h): one JSON body, server-sent events, or WebSocket
// messages; a turn's error as the same status and code in each.
#include "api/desk_answers.h"

#include <boost/json.hpp>

#include "api/errors.h"
#include "desk/desk.h"
#include "desk/message_meta.h"

namespace supportd::api {
namespace json = boost::json;
namespace {

json::array citations_array(const std::vector<desk::Citation>& citations) {
  json::array out;
  for (const auto& c : citations)
    out.push_back(json::object{{"id", c.id}, {"title", c.title}, {"snippet", c.snippet}});
  return out;
}

json::object answer_object(const desk::Answer& a) {
  json::object timings;
  for (const auto& [stage, ms] : a.timings)
    timings[stage] = ms;
  json::object o{{"seq_id", a.seq_id},
                 {"text", a.text},
                 {"source", desk::answer_source_name(a.source)},
                 {"citations", citations_array(a.citations)},
                 {"confidence", a.confidence},
                 {"language", a.language},
                 {"handoff", a.handoff},
                 {"timings", std::move(timings)}};
  if (!a.notice.empty()) o["notice"] = a.notice;
  if (a.source == desk::AnswerSource::kModel) o["history_messages"] = a.history_messages;
  return o;
}

// Formats events; `emit` sends one serialized event.
class EventSink : public desk::AnswerSink {
 public:
  explicit EventSink(std::function<void(std::string)> emit) : emit_(std::move(emit)) {}
  void on_citations(const std::vector<desk::Citation>& c) override {
    emit_(json::serialize(json::object{{"type", "citations"}, {"citations", citations_array(c)}}));
  }
  void on_token(std::string_view text) override {
    emit_(json::serialize(json::object{{"type", "token"}, {"text", text}}));
  }
  void on_notice(std::string_view text, std::string_view kind) override {
    emit_(json::serialize(json::object{{"type", "notice"}, {"text", text}, {"kind", kind}}));
  }
  void on_done(const desk::Answer& a) override {
    emit_(json::serialize(json::object{
        {"type", "done"}, {"message_seq_id", a.message_seq_id}, {"answer", answer_object(a)}}));
  }
  void on_error(const desk::DeskError& error) override {
    emit_(json::serialize(json::object{{"type", "error"},
                                       {"status", http_status(error)},
                                       {"code", error_code(error.kind)},
                                       {"message", error.message}}));
  }

 protected:
  std::function<void(std::string)> emit_;
};

class JsonSink final : public desk::AnswerSink {
 public:
  JsonSink(std::shared_ptr<http::ReplyStream> reply, bool wrap)
      : reply_(std::move(reply)), wrap_(wrap) {}
  void on_citations(const std::vector<desk::Citation>&) override {}
  void on_token(std::string_view) override {}
  void on_notice(std::string_view, std::string_view) override {}
  void on_done(const desk::Answer& a) override {
    json::value body = wrap_ ? json::value(json::object{{"message_seq_id", a.message_seq_id},
                                                        {"answer", answer_object(a)}})
                             : json::value(answer_object(a));
    reply_->respond(http::Response::json(200, json::serialize(body)));
  }
  void on_error(const desk::DeskError& error) override { reply_->respond(error_response(error)); }

 private:
  std::shared_ptr<http::ReplyStream> reply_;
  bool wrap_;
};

// SSE: opens with the first event; an error before that becomes an HTTP error.
class StreamSink final : public EventSink {
 public:
  explicit StreamSink(std::shared_ptr<http::ReplyStream> reply)
      : EventSink([this](std::string event) { write(std::move(event)); }),
        reply_(std::move(reply)) {}
  void on_done(const desk::Answer& a) override {
    EventSink::on_done(a);
    reply_->write("data: [DONE]\n\n");
    reply_->close();
  }
  void on_error(const desk::DeskError& error) override {
    if (!opened_) {
      reply_->respond(error_response(error));
      return;
    }
    EventSink::on_error(error);
    reply_->write("data: [DONE]\n\n");
    reply_->close();
  }

 private:
  void write(std::string event) {
    if (!opened_) {
      opened_ = true;
      reply_->open(200, "text/event-stream");
    }
    reply_->write("data: " + event + "\n\n");
  }
  std::shared_ptr<http::ReplyStream> reply_;
  bool opened_ = false;
};

}  // namespace

std::string answer_json(const desk::Answer& answer) {
  return json::serialize(answer_object(answer));
}

std::string citations_json(const std::vector<desk::Citation>& citations) {
  return json::serialize(citations_array(citations));
}

std::string history_json(const desk::History& history) {
  json::array messages;
  for (const auto& m : history.messages) {
    json::object o{{"seq_id", m.seq_id},
                   {"role", store::role_name(m.role)},
                   {"text", m.text},
                   {"created_ms", m.created_ms}};
    const desk::MessageMeta meta = desk::decode_message_meta(m.meta);
    if (!meta.source.empty()) o["source"] = meta.source;
    if (!meta.citations.empty()) o["citations"] = citations_array(meta.citations);
    if (!meta.agent.empty()) o["agent"] = meta.agent;
    messages.push_back(std::move(o));
  }
  return json::serialize(
      json::object{{"messages", std::move(messages)},
                   {"handoff", store::handoff_name(history.conversation.handoff)},
                   {"agent", history.conversation.agent}});
}

std::shared_ptr<desk::AnswerSink> make_answer_json_sink(std::shared_ptr<http::ReplyStream> reply,
                                                        bool wrap) {
  return std::make_shared<JsonSink>(std::move(reply), wrap);
}

std::shared_ptr<desk::AnswerSink> make_answer_event_sink(std::shared_ptr<http::ReplyStream> reply) {
  return std::make_shared<StreamSink>(std::move(reply));
}

std::shared_ptr<desk::AnswerSink> make_answer_message_sink(std::function<void(std::string)> send) {
  return std::make_shared<EventSink>(std::move(send));
}

}  // namespace supportd::api
