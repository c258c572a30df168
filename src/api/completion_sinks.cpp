// OpenAI answers from engine output (see completion_sinks.h): streamed chunks, or one body at
// the end, and the HTTP status of a generation that ended in an error.
#include "api/completion_sinks.h"

#include <algorithm>
#include <string>

#include <boost/json.hpp>

#include "api/errors.h"

namespace supportd::api {
namespace json = boost::json;
namespace {

json::object usage_json(const engine::Usage& u) {
  return {{"prompt_tokens", u.prompt_tokens},
          {"completion_tokens", u.completion_tokens},
          {"total_tokens", u.prompt_tokens + u.completion_tokens},
          {"prompt_tokens_details", json::object{{"cached_tokens", u.cached_tokens}}}};
}

json::object timings_json(const engine::Timings& t) {
  return {
      {"queued_ms", t.queued_ms}, {"first_token_ms", t.first_token_ms}, {"total_ms", t.total_ms}};
}

// finish_reason as OpenAI spells it; null when the request did not end normally.
json::value finish_json(engine::FinishReason reason) {
  switch (reason) {
    case engine::FinishReason::kStop: return "stop";
    case engine::FinishReason::kLength: return "length";
    default: return nullptr;
  }
}

// An end with an error of a kind other than internal is a refusal that came as the end, not as
// submit's answer (a cluster's engine refusing a request its gateway had queued: the deadline
// it cannot meet, a full queue): it gets the status and code a refusal at submit gets.
bool refused_at_the_end(const engine::Completion& c) {
  return c.reason == engine::FinishReason::kError && c.error.code != ErrorCode::kInternal;
}

// The error an abnormal end reports, with its HTTP status for non-streamed answers.
std::pair<int, std::string> end_error(const engine::Completion& c) {
  if (refused_at_the_end(c)) {
    http::Response refusal = error_response(c.error);
    return {refusal.status, std::move(refusal.body)};
  }
  switch (c.reason) {
    case engine::FinishReason::kCancelled:
      return {503, http::error_body("the request was cancelled (the server is shutting down)",
                                    "server_error", "cancelled")};
    case engine::FinishReason::kDeadline:
      return {503,
              http::error_body(c.error.message.empty()
                                   ? "the request could not start before its deadline (timeout)"
                                   : c.error.message,
                               "server_error", "deadline_exceeded")};
    default:
      return {500, http::error_body(c.error.message.empty() ? "generation failed" : c.error.message,
                                    "server_error", "internal")};
  }
}

// The same as a whole response; a 503 says when to try again.
http::Response end_response(const engine::Completion& c) {
  if (refused_at_the_end(c)) return error_response(c.error);
  auto [status, body] = end_error(c);
  http::Response response = http::Response::json(status, std::move(body));
  if (status == 503) {
    response.headers.emplace_back("Retry-After",
                                  std::to_string(std::max(c.error.retry_after_s, 1)));
  }
  return response;
}

bool ended_normally(engine::FinishReason r) {
  return r == engine::FinishReason::kStop || r == engine::FinishReason::kLength;
}

class StreamingSink final : public engine::GenerationSink {
 public:
  StreamingSink(std::shared_ptr<http::ReplyStream> reply, CompletionFormat format)
      : reply_(std::move(reply)), format_(std::move(format)) {}

  void on_version(std::string_view version) override { format_.model = version; }

  void on_text(std::string_view text) override {
    open();
    send(chunk(format_.chat ? json::value(json::object{{"content", text}}) : json::value(text),
               nullptr));
  }

  void on_done(const engine::Completion& c) override {
    if (!opened_ && !ended_normally(c.reason)) {
      // Nothing was streamed yet: answer with a proper HTTP error instead of a stream.
      reply_->respond(end_response(c));
      return;
    }
    open();
    if (ended_normally(c.reason)) {
      json::object last = chunk(format_.chat ? json::value(json::object{}) : json::value(""),
                                finish_json(c.reason));
      last["usage"] = usage_json(c.usage);
      last["timings"] = timings_json(c.timings);
      send(std::move(last));
      if (format_.include_usage) {
        json::object usage = header();
        usage["choices"] = json::array{};
        usage["usage"] = usage_json(c.usage);
        send(std::move(usage));
      }
    } else {
      reply_->write("data: " + end_error(c).second + "\n\n");
    }
    reply_->write("data: [DONE]\n\n");
    reply_->close();
  }

 private:
  json::object header() const {
    return {{"id", format_.id},
            {"object", format_.chat ? "chat.completion.chunk" : "text_completion"},
            {"created", format_.created},
            {"model", format_.model}};
  }

  json::object chunk(json::value delta_or_text, json::value finish) const {
    json::object choice{{"index", 0}, {"logprobs", nullptr}, {"finish_reason", std::move(finish)}};
    if (format_.chat) {
      choice["delta"] = std::move(delta_or_text);
    } else {
      choice["text"] = std::move(delta_or_text);
    }
    json::object o = header();
    o["choices"] = json::array{std::move(choice)};
    return o;
  }

  void send(const json::object& o) { reply_->write("data: " + json::serialize(o) + "\n\n"); }

  // The stream starts with the first token (or the end), so that a request refused while
  // waiting still gets an HTTP status that says so.
  void open() {
    if (opened_) return;
    opened_ = true;
    reply_->open(200, "text/event-stream");
    if (format_.chat) send(chunk(json::object{{"role", "assistant"}, {"content", ""}}, nullptr));
  }

  std::shared_ptr<http::ReplyStream> reply_;
  CompletionFormat format_;
  bool opened_ = false;
};

class CollectingSink final : public engine::GenerationSink {
 public:
  CollectingSink(std::shared_ptr<http::ReplyStream> reply, CompletionFormat format)
      : reply_(std::move(reply)), format_(std::move(format)) {}

  void on_version(std::string_view version) override { format_.model = version; }

  void on_text(std::string_view text) override { text_ += text; }

  void on_done(const engine::Completion& c) override {
    if (!ended_normally(c.reason)) {
      reply_->respond(end_response(c));
      return;
    }
    json::object choice{
        {"index", 0}, {"logprobs", nullptr}, {"finish_reason", finish_json(c.reason)}};
    if (format_.chat) {
      choice["message"] = json::object{{"role", "assistant"}, {"content", text_}};
    } else {
      choice["text"] = text_;
    }
    json::object o{{"id", format_.id},
                   {"object", format_.chat ? "chat.completion" : "text_completion"},
                   {"created", format_.created},
                   {"model", format_.model},
                   {"choices", json::array{std::move(choice)}},
                   {"usage", usage_json(c.usage)},
                   {"timings", timings_json(c.timings)}};
    reply_->respond(http::Response::json(200, json::serialize(o)));
  }

 private:
  std::shared_ptr<http::ReplyStream> reply_;
  CompletionFormat format_;
  std::string text_;
};

}  // namespace

std::shared_ptr<engine::GenerationSink> make_streaming_sink(
    std::shared_ptr<http::ReplyStream> reply, CompletionFormat format) {
  return std::make_shared<StreamingSink>(std::move(reply), std::move(format));
}

std::shared_ptr<engine::GenerationSink> make_collecting_sink(
    std::shared_ptr<http::ReplyStream> reply, CompletionFormat format) {
  return std::make_shared<CollectingSink>(std::move(reply), std::move(format));
}

}  // namespace supportd::api
