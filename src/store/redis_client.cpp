// The Redis client (redis_client.h): hiredis connections with timeouts in a small pool, replies
// converted to RedisReply, a broken connection dropped, the breaker consulted on every call.
#include "store/redis_client.h"

#include <hiredis.h>
#include <sys/time.h>

#include <charconv>

#include "store/db_span.h"

namespace supportd::store {
namespace {

timeval to_timeval(std::chrono::milliseconds ms) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
  return tv;
}

RedisReply convert(const redisReply* reply) {
  RedisReply out;
  switch (reply->type) {
    case REDIS_REPLY_INTEGER:
      out.type = RedisReply::Type::kInteger;
      out.integer = reply->integer;
      break;
    case REDIS_REPLY_STRING:
      out.type = RedisReply::Type::kString;
      out.string.assign(reply->str, reply->len);
      break;
    case REDIS_REPLY_STATUS:
      out.type = RedisReply::Type::kStatus;
      out.string.assign(reply->str, reply->len);
      break;
    case REDIS_REPLY_ARRAY:
      out.type = RedisReply::Type::kArray;
      for (std::size_t i = 0; i < reply->elements; ++i)
        out.elements.push_back(convert(reply->element[i]));
      break;
    default: out.type = RedisReply::Type::kNil;
  }
  return out;
}

}  // namespace

Result<RedisClient::Options> RedisClient::parse_address(std::string_view address) {
  Options options;
  if (address.rfind("redis://", 0) == 0) address.remove_prefix(8);
  if (!address.empty() && address.back() == '/') address.remove_suffix(1);
  const std::size_t colon = address.rfind(':');
  if (colon == std::string_view::npos || colon == 0) {
    return Error::invalid("the Redis address must be host:port", "redis");
  }
  options.host = std::string(address.substr(0, colon));
  const std::string_view port = address.substr(colon + 1);
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), options.port);
  if (ec != std::errc() || end != port.data() + port.size() || options.port <= 0 ||
      options.port > 65535) {
    return Error::invalid("the Redis port must be a number from 1 to 65535", "redis");
  }
  return options;
}

RedisClient::RedisClient(Options options)
    : options_(std::move(options)), breaker_(options_.min_backoff, options_.max_backoff) {}

RedisClient::~RedisClient() {
  std::lock_guard lock(mutex_);
  for (redisContext* context : idle_)
    redisFree(context);
}

Result<redisContext*> RedisClient::acquire() {
  {
    std::unique_lock lock(mutex_);
    const bool ready = idle_available_.wait_for(lock, options_.command_timeout, [&] {
      return !idle_.empty() || open_ < options_.connections;
    });
    if (!ready) return Error::make(ErrorCode::kOverloaded, "every Redis connection is busy");
    if (!idle_.empty()) {
      redisContext* context = idle_.back();
      idle_.pop_back();
      return context;
    }
    ++open_;
  }
  const std::string unreachable =
      "Redis at " + options_.host + ":" + std::to_string(options_.port) + " is unreachable";
  redisContext* context = redisConnectWithTimeout(options_.host.c_str(), options_.port,
                                                  to_timeval(options_.connect_timeout));
  if (context == nullptr || context->err != 0 ||
      redisSetTimeout(context, to_timeval(options_.command_timeout)) != REDIS_OK) {
    const std::string why = context ? std::string(": ") + context->errstr : std::string();
    if (context) redisFree(context);
    {
      std::lock_guard lock(mutex_);
      --open_;
    }
    idle_available_.notify_one();
    return Error::make(ErrorCode::kUnavailable, unreachable + why);
  }
  redisEnableKeepAlive(context);
  return context;
}

void RedisClient::release(redisContext* context, bool broken) {
  std::vector<redisContext*> dropped;
  {
    std::lock_guard lock(mutex_);
    if (broken) {
      // The server went away: the idle connections are as dead as this one.
      dropped.swap(idle_);
      dropped.push_back(context);
      open_ -= dropped.size();
    } else {
      idle_.push_back(context);
    }
  }
  for (redisContext* c : dropped)
    redisFree(c);
  idle_available_.notify_all();
}

Result<RedisReply> RedisClient::command(const std::vector<std::string_view>& args) {
  // The command's name is its operation; a Redis call has no summary beyond it. Database 0.
  DbSpan span(DbSystem::kRedis, args.empty() ? std::string_view("COMMAND") : args.front());
  span.target("0", options_.host, options_.port);
  return span.outcome(run(args));
}

Result<RedisReply> RedisClient::run(const std::vector<std::string_view>& args) {
  if (!breaker_.allow()) {
    return Error::make(ErrorCode::kUnavailable, "Redis is down (retrying in the background)");
  }
  Result<redisContext*> context = acquire();
  if (!context) {
    if (context.error().code == ErrorCode::kUnavailable) breaker_.failure();
    return context.error();
  }
  std::vector<const char*> argv;
  std::vector<std::size_t> lengths;
  argv.reserve(args.size());
  lengths.reserve(args.size());
  for (std::string_view arg : args) {
    argv.push_back(arg.data());
    lengths.push_back(arg.size());
  }
  auto* reply = static_cast<redisReply*>(
      redisCommandArgv(*context, static_cast<int>(argv.size()), argv.data(), lengths.data()));
  if (reply == nullptr) {
    const std::string why = (*context)->errstr;
    release(*context, /*broken=*/true);
    breaker_.failure();
    return Error::make(ErrorCode::kUnavailable, "Redis command failed: " + why);
  }
  breaker_.success();
  if (reply->type == REDIS_REPLY_ERROR) {
    Error error =
        Error::make(ErrorCode::kInternal, "Redis: " + std::string(reply->str, reply->len));
    freeReplyObject(reply);
    release(*context, false);
    return error;
  }
  RedisReply out = convert(reply);
  freeReplyObject(reply);
  release(*context, false);
  return out;
}

}  // namespace supportd::store
