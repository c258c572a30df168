// The operator's admin key: what every /admin route requires (fault injection, and the other
// operator verbs that change how the server runs). It is read from a file (--admin-key-file, or
// [admin] admin-key-file in serve's config file) so that it never shows in `ps` or a shell's
// history, and sent as "Authorization: Bearer KEY". Without a configured key the /admin routes
// do not exist: they answer 404 as an unknown path does. With one, a request without the key
// or with another gets 401 and a JSON error. The comparison takes the same time whatever the
// sent key shares with the real one. /admin routes never carry CORS headers (routes.cpp).
// Thread-safety: immutable after construction; every method may be called from any thread.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"
#include "http/message.h"
#include "http/router.h"

namespace supportd::api {

// The shortest key accepted: shorter ones are guessable.
inline constexpr std::size_t kMinAdminKeyLength = 16;

class AdminKey {
 public:
  // No key: every /admin route answers 404.
  AdminKey() = default;
  // The key in `file`: its content with surrounding whitespace (a final newline) removed.
  // Errors (kInvalidArgument, naming the file): unreadable, empty, shorter than
  // kMinAdminKeyLength, or holding whitespace or control characters inside.
  static Result<AdminKey> read(const std::string& file);
  // The key itself (tests). REQUIRES: at least kMinAdminKeyLength printable characters.
  static AdminKey of(std::string key);

  bool configured() const { return !key_.empty(); }

  // Whether `request` may use an /admin route: ok; kNotFound without a configured key;
  // kUnauthenticated when the Authorization header is missing, not Bearer, or another key.
  Status check(const http::Request& request) const;

  // `handler` behind check(): its refusals answered as JSON errors (404, 401 with
  // WWW-Authenticate), the handler run otherwise.
  http::Router::Handler guard(http::Router::Handler handler) const;

 private:
  explicit AdminKey(std::string key) : key_(std::move(key)) {}
  std::string key_;
};

// True when `a` and `b` are equal, in a time that depends only on their lengths (not on where
// they first differ).
bool equal_in_constant_time(std::string_view a, std::string_view b);

// True for admin paths ("/admin" and below, "/v1/admin/..."): never labelled for other sites.
bool is_admin_path(std::string_view path);

}  // namespace supportd::api
