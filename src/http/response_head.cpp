// A response head written by hand (see response_head.h).
#include "http/response_head.h"

#include <spdlog/spdlog.h>
#include <boost/beast/http/status.hpp>

namespace supportd::http {
namespace {

constexpr std::string_view kServerName = "supportd";

// RFC 9110 5.6.2: tchar.
bool token_character(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  switch (c) {
    case '!':
    case '#':
    case '$':
    case '%':
    case '&':
    case '\'':
    case '*':
    case '+':
    case '-':
    case '.':
    case '^':
    case '_':
    case '`':
    case '|':
    case '~': return true;
    default: return false;
  }
}

std::string_view trim(std::string_view value) {
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
    value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t'))
    value.remove_suffix(1);
  return value;
}

void append_field(std::string& out, std::string_view name, std::string_view value) {
  out.append(name);
  out.append(": ");
  out.append(value);
  out.append("\r\n");
}

void append_fields(std::string& out, const Headers* fields) {
  if (fields == nullptr) return;
  for (const auto& [name, value] : *fields) {
    if (!sendable_field(name, value)) {
      spdlog::error(
          "http: response field {:?} left out: not a token, or a value with CR, LF or NUL", name);
      continue;
    }
    append_field(out, name, trim(value));
  }
}

bool without_body(int status) {
  return status < 200 || status == 204 || status == 304;
}

}  // namespace

bool sendable_field(std::string_view name, std::string_view value) {
  if (name.empty()) return false;
  for (char c : name)
    if (!token_character(c)) return false;
  // One pass (find_first_of with a set would search the set once per character).
  for (char c : value)
    if (c == '\r' || c == '\n' || c == '\0') return false;
  return true;
}

std::string format_response_head(const ResponseHead& head) {
  const auto status = static_cast<boost::beast::http::status>(head.status);
  const boost::beast::string_view reason = boost::beast::http::obsolete_reason(status);
  std::string out;
  out.reserve(160 + head.content_type.size() + (head.fields ? 64 * head.fields->size() : 0) +
              (head.more ? 64 * head.more->size() : 0) + (head.watch ? 128 : 0));
  out.append("HTTP/1.1 ");
  out.append(std::to_string(head.status));
  out.push_back(' ');
  out.append(reason.data(), reason.size());
  out.append("\r\n");
  append_field(out, "Server", kServerName);
  if (!head.content_type.empty()) append_field(out, "Content-Type", head.content_type);
  if (!head.content_length) {
    append_field(out, "Cache-Control", "no-cache");
    append_field(out, "X-Accel-Buffering", "no");
  }
  append_fields(out, head.fields);
  append_fields(out, head.more);
  if (head.watch != nullptr) head.watch->write_fields(out);
  if (head.content_length) {
    if (!without_body(head.status))
      append_field(out, "Content-Length", std::to_string(*head.content_length));
  } else {
    append_field(out, "Transfer-Encoding", "chunked");
  }
  if (!head.keep_alive) append_field(out, "Connection", "close");
  out.append("\r\n");
  return out;
}

}  // namespace supportd::http
