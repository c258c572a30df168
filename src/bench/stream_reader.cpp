// Reading a streamed completion's SSE payloads into token times, usage and failures, and the
// other answers the load tester interprets (stream_reader.h).
#include "bench/stream_reader.h"

#include <boost/json.hpp>

#include <charconv>

namespace supportd::bench {

namespace json = boost::json;

namespace {

int integer(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr) return -1;
  if (v->is_int64()) return static_cast<int>(v->as_int64());
  if (v->is_uint64()) return static_cast<int>(v->as_uint64());
  return -1;
}

std::string error_code(const json::value& error) {
  if (error.is_string()) return std::string(error.as_string());
  const json::object* e = error.if_object();
  if (e == nullptr) return {};
  for (std::string_view key : {"code", "type"}) {
    if (const json::value* v = e->if_contains(key)) {
      if (v->is_string() && !v->as_string().empty()) return std::string(v->as_string());
      if (v->is_int64()) return std::to_string(v->as_int64());
    }
  }
  return {};
}

}  // namespace

void StreamReader::on_event(std::string_view data, float offset_s) {
  if (done_) return;
  if (data == "[DONE]") {
    done_ = true;
    return;
  }
  boost::system::error_code ec;
  const json::value event = json::parse(data, ec);
  if (ec || !event.is_object()) {
    if (!failed_) {
      failed_ = true;
      failure_ = "bad_chunk";
    }
    return;
  }
  const json::object& o = event.as_object();
  if (const json::value* model = o.if_contains("model");
      model_.empty() && model && model->is_string()) {
    model_ = std::string(model->as_string());
  }
  if (const json::value* error = o.if_contains("error")) {
    if (!failed_) {
      failed_ = true;
      const std::string code = error_code(*error);
      failure_ = code.empty() ? "stream_error" : "stream_error:" + code;
    }
    return;
  }
  if (const json::value* usage = o.if_contains("usage"); usage && usage->is_object()) {
    const json::object& u = usage->as_object();
    prompt_tokens_ = integer(u, "prompt_tokens");
    completion_tokens_ = integer(u, "completion_tokens");
    if (const json::value* details = u.if_contains("prompt_tokens_details");
        details && details->is_object()) {
      cached_tokens_ = integer(details->as_object(), "cached_tokens");
    }
  }
  if (const json::value* timings = o.if_contains("timings"); timings && timings->is_object()) {
    const json::value* queued = timings->as_object().if_contains("queued_ms");
    if (queued && queued->is_number() && queued->to_number<double>() >= 0)
      queued_ms_ = queued->to_number<double>();
  }
  const json::value* choices = o.if_contains("choices");
  if (choices == nullptr || !choices->is_array() || choices->as_array().empty()) return;
  const json::object* choice = choices->as_array()[0].if_object();
  if (choice == nullptr) return;
  const json::value* text = nullptr;
  if (const json::value* delta = choice->if_contains("delta"); delta && delta->is_object()) {
    text = delta->as_object().if_contains("content");
  } else {
    text = choice->if_contains("text");
  }
  if (text && text->is_string() && !text->as_string().empty()) tokens_.push_back(offset_s);
}

std::string response_kind(int status, std::string_view body) {
  std::string kind = std::to_string(status);
  boost::system::error_code ec;
  const json::value parsed = json::parse(body, ec);
  if (!ec && parsed.is_object()) {
    if (const json::value* error = parsed.as_object().if_contains("error")) {
      const std::string code = error_code(*error);
      if (!code.empty()) kind += ":" + code;
    }
  }
  return kind;
}

double parse_retry_after(std::string_view value) {
  while (!value.empty() && value.front() == ' ')
    value.remove_prefix(1);
  while (!value.empty() && value.back() == ' ')
    value.remove_suffix(1);
  double seconds = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size() || seconds < 0)
    return -1;
  return seconds;
}

Result<std::string> first_model_id(std::string_view body) {
  boost::system::error_code ec;
  const json::value listing = json::parse(body, ec);
  if (!ec && listing.is_object()) {
    if (const json::value* data = listing.as_object().if_contains("data");
        data && data->is_array()) {
      for (const json::value& model : data->as_array()) {
        const json::object* m = model.if_object();
        const json::value* id = m ? m->if_contains("id") : nullptr;
        if (id && id->is_string() && !id->as_string().empty()) return std::string(id->as_string());
      }
    }
  }
  return Error::make(ErrorCode::kCorrupt, "the server's /v1/models lists no model id");
}

}  // namespace supportd::bench
