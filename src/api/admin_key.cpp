// The admin key (see admin_key.h): read from its file, checked against a request's bearer
// token in constant time, and the guard the /admin routes sit behind.
#include "api/admin_key.h"

#include <algorithm>
#include <cctype>

#include "api/errors.h"
#include "core/read_file.h"

namespace supportd::api {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && is_space(text.front()))
    text.remove_prefix(1);
  while (!text.empty() && is_space(text.back()))
    text.remove_suffix(1);
  return text;
}

}  // namespace

bool equal_in_constant_time(std::string_view a, std::string_view b) {
  // Every byte of the longer one is visited whatever the contents; a length difference
  // counts as a difference.
  const std::size_t length = std::max(a.size(), b.size());
  unsigned difference = a.size() == b.size() ? 0u : 1u;
  for (std::size_t i = 0; i < length; ++i) {
    const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    difference |= static_cast<unsigned>(x ^ y);
  }
  return difference == 0;
}

bool is_admin_path(std::string_view path) {
  return path == "/admin" || path.starts_with("/admin/") || path.starts_with("/v1/admin/");
}

Result<AdminKey> AdminKey::read(const std::string& file) {
  auto content = read_text_file(file);
  if (!content) return Error::invalid(content.error().message);
  const std::string_view key = trimmed(*content);
  if (key.empty()) return Error::invalid(file + ": the admin key file is empty");
  for (char c : key) {
    if (std::iscntrl(static_cast<unsigned char>(c)) != 0 || is_space(c))
      return Error::invalid(file + ": the admin key must be one line of printable characters");
  }
  if (key.size() < kMinAdminKeyLength) {
    return Error::invalid(file + ": the admin key has " + std::to_string(key.size()) +
                          " characters; at least " + std::to_string(kMinAdminKeyLength) +
                          " are needed (e.g. openssl rand -hex 32)");
  }
  return AdminKey(std::string(key));
}

AdminKey AdminKey::of(std::string key) {
  return AdminKey(std::move(key));
}

Status AdminKey::check(const http::Request& request) const {
  if (key_.empty()) return Error::make(ErrorCode::kNotFound, "no such endpoint: " + request.path);
  const std::string_view header = request.header("authorization");
  constexpr std::string_view kBearer = "Bearer ";
  if (header.size() < kBearer.size() ||
      http::lower_case(header.substr(0, kBearer.size())) != "bearer ") {
    return Error::make(ErrorCode::kUnauthenticated,
                       "this admin route needs the admin key: Authorization: Bearer KEY");
  }
  if (!equal_in_constant_time(trimmed(header.substr(kBearer.size())), key_))
    return Error::make(ErrorCode::kUnauthenticated, "wrong admin key");
  return {};
}

http::Router::Handler AdminKey::guard(http::Router::Handler handler) const {
  return [this, handler = std::move(handler)](http::Request& request) {
    if (Status allowed = check(request); !allowed) {
      // Without a key, the same 404 as an unknown path: the route does not exist.
      http::Response refusal = allowed.error().code == ErrorCode::kNotFound
                                   ? http::error_response(404, allowed.error().message,
                                                          "invalid_request_error", "not_found")
                                   : error_response(allowed.error());
      refusal.headers.emplace_back("Cache-Control", "no-store");
      return refusal;
    }
    http::Response response = handler(request);
    response.headers.emplace_back("Cache-Control", "no-store");
    return response;
  };
}

}  // namespace supportd::api
