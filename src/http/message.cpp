// Request and Response helpers: header and parameter lookups (query parameters
// percent-decoded), and the JSON, text, deferred and upgrade responses.
#include "http/message.h"

#include <cctype>

#include <boost/json.hpp>

#include "core/utf8.h"
#include "http/reply_stream.h"

namespace supportd::http {

std::string_view Request::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (key == name) return value;
  }
  return {};
}

std::string_view Request::param(std::string_view name) const {
  for (const auto& [key, value] : params) {
    if (key == name) return value;
  }
  return {};
}

std::optional<std::string> Request::query_param(std::string_view name) const {
  std::string_view rest = query;
  while (!rest.empty()) {
    const std::size_t amp = rest.find('&');
    const std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    const std::size_t eq = pair.find('=');
    if (percent_decode(pair.substr(0, eq), true) != name) continue;
    return eq == std::string_view::npos ? std::string() : percent_decode(pair.substr(eq + 1), true);
  }
  return std::nullopt;
}

Response Response::json(int status, std::string body) {
  Response r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

Response Response::text(int status, std::string body, std::string content_type) {
  Response r;
  r.status = status;
  r.body = std::move(body);
  r.content_type = std::move(content_type);
  return r;
}

Response Response::deferred(std::shared_ptr<ReplyStream> stream) {
  Response r;
  r.stream = std::move(stream);
  return r;
}

Response Response::upgrade(std::shared_ptr<WebSocketHandler> handler) {
  Response r;
  r.status = 101;
  r.websocket = std::move(handler);
  return r;
}

std::string error_body(std::string_view message, std::string_view type, std::string_view code,
                       std::string_view param) {
  // Messages may quote what the client sent (a path, an origin): never as bytes that would make
  // the body invalid JSON.
  const std::string text = is_valid_utf8(message) ? std::string(message) : sanitize_utf8(message);
  boost::json::object error{{"message", text}, {"type", type}};
  error["code"] = code.empty() ? boost::json::value(nullptr) : boost::json::value(code);
  error["param"] = param.empty() ? boost::json::value(nullptr) : boost::json::value(param);
  return boost::json::serialize(boost::json::object{{"error", std::move(error)}});
}

Response error_response(int status, std::string_view message, std::string_view type,
                        std::string_view code, std::string_view param) {
  return Response::json(status, error_body(message, type, code, param));
}

std::string lower_case(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string percent_decode(std::string_view text, bool plus_as_space) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex(text[i + 1]) >= 0 && hex(text[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex(text[i + 1]) * 16 + hex(text[i + 2])));
      i += 2;
    } else if (text[i] == '+' && plus_as_space) {
      out.push_back(' ');
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

}  // namespace supportd::http
