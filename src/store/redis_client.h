// A small pool of Redis connections (hiredis) that never blocks a caller for long: connects
// and commands have timeouts, a failed connection is dropped and reopened on demand, and a
// circuit breaker refuses calls at once while Redis is down (one probe per backoff).
// Thread-safety: every method may be called from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "store/circuit_breaker.h"

struct redisContext;

namespace supportd::store {

struct RedisReply {
  enum class Type { kNil, kInteger, kString, kStatus, kArray };
  Type type = Type::kNil;
  std::int64_t integer = 0;
  std::string string;  // kString and kStatus
  std::vector<RedisReply> elements;
};

class RedisClient {
 public:
  struct Options {
    std::string host = "127.0.0.1";
    int port = 6379;
    std::chrono::milliseconds connect_timeout{250};
    std::chrono::milliseconds command_timeout{250};
    std::size_t connections = 4;  // at most this many open at once
    std::chrono::milliseconds min_backoff{100};
    std::chrono::milliseconds max_backoff{2000};
  };

  // "host:port" or "redis://host:port"; invalid_argument names what is wrong.
  static Result<Options> parse_address(std::string_view address);

  // Does not connect: the first command does.
  explicit RedisClient(Options options);
  ~RedisClient();
  RedisClient(const RedisClient&) = delete;
  RedisClient& operator=(const RedisClient&) = delete;

  // Runs one command. unavailable: Redis is unreachable, timed out, or known down (then
  // returned at once). An error reply from Redis is an internal error with its message.
  // Inside a traced request, the command is a CLIENT span (store/db_span.h) named by the
  // command ("GET"), failed when the command fails.
  Result<RedisReply> command(const std::vector<std::string_view>& args);
  Result<RedisReply> command(std::initializer_list<std::string_view> args) {
    return command(std::vector<std::string_view>(args));
  }

  // False while Redis is known to be down.
  bool available() const { return !breaker_.is_open(); }
  // Connection failures and timeouts since construction.
  std::int64_t errors() const { return breaker_.failures(); }
  const Options& options() const { return options_; }

 private:
  Result<RedisReply> run(const std::vector<std::string_view>& args);  // command(), untraced
  Result<redisContext*> acquire();
  void release(redisContext* context, bool broken);

  const Options options_;
  CircuitBreaker breaker_;

  std::mutex mutex_;
  std::condition_variable idle_available_;
  std::vector<redisContext*> idle_;  // guarded by mutex_
  std::size_t open_ = 0;             // guarded by mutex_: idle plus in use
};

}  // namespace supportd::store
