// TieredSessionStore: keeping the journal, Redis and PostgreSQL in step.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "store/session_codec.h"
#include "store/tiered_session_store.h"

namespace supportd::store {
namespace {

// Writes the value unless Redis holds a copy with more messages or a newer state.
// KEYS[1] = key; ARGV = highest last_seq Redis may hold, value, ttl ms, state_version.
// Returns 1 written, 0 conflict.
// Element 6 of the value is last_seq and element 10 state_version (session_codec.h).
constexpr std::string_view kCompareAndSet = R"lua(
local current = redis.call('GET', KEYS[1])
if current then
  local ok, view = pcall(cmsgpack.unpack, current)
  if ok and type(view) == 'table' then
    local seq = tonumber(view[6])
    local version = tonumber(view[10])
    if (seq and seq > tonumber(ARGV[1])) or (version and version > tonumber(ARGV[4])) then
      return 0
    end
  end
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
)lua";

std::string redis_key(std::string_view key) {
  return "session:" + std::string(key);
}

bool newer(const SessionView& a, const LocalSession& b) {
  return a.conversation.last_seq > b.conversation.last_seq || a.state_version > b.state_version;
}

}  // namespace

Status TieredSessionStore::adopt(const SessionView& remote) {
  Result<std::int64_t> moved = journal_->adopt(remote, unix_ms());
  if (!moved) return moved.error();
  if (*moved > 0) {
    moved_messages_.fetch_add(*moved);
    spdlog::warn(
        "store: session {} was written by another process meanwhile; {} local "
        "messages moved after its newest one",
        session_key(remote.conversation.session), *moved);
  }
  return {};
}

Result<std::optional<SessionView>> TieredSessionStore::read_cache(const std::string& key) {
  const std::string ttl = std::to_string(options_.session_ttl.count());
  Result<RedisReply> reply = redis_.command({"GETEX", redis_key(key), "PX", ttl});
  if (!reply) return reply.error();
  if (reply->type != RedisReply::Type::kString) return std::optional<SessionView>();
  Result<SessionView> view = decode_session(reply->string);
  if (!view || session_key(view->conversation.session) != key) {
    spdlog::warn("store: dropping an unreadable Redis copy of session {}", key);
    (void)redis_.command({"DEL", redis_key(key)});
    return std::optional<SessionView>();
  }
  return std::optional<SessionView>(std::move(*view));
}

Result<bool> TieredSessionStore::write_cache(const std::string& key, const SessionView& view,
                                             std::int64_t allowed_seq, bool was_stale) {
  static const std::string script(kCompareAndSet);
  const std::string value = encode_session(view);
  const std::string seq = std::to_string(allowed_seq);
  const std::string ttl = std::to_string(options_.session_ttl.count());
  const std::string version = std::to_string(view.state_version);
  Result<RedisReply> reply =
      redis_.command({"EVAL", script, "1", redis_key(key), seq, value, ttl, version});
  if (!reply) {
    if (!was_stale) (void)journal_->mark_cache_stale(key);
    return reply.error();
  }
  if (reply->type == RedisReply::Type::kInteger && reply->integer == 0) return false;
  if (was_stale) {
    (void)journal_->mark_cache_current(key, view.conversation.last_seq, view.state_version);
  }
  return true;
}

Result<SessionView> TieredSessionStore::local_view(const LocalSession& local) {
  SessionView view;
  view.conversation = local.conversation;
  view.state_version = local.state_version;
  const std::int64_t last = local.conversation.last_seq;
  const std::int64_t from =
      std::max(local.window_from, last - static_cast<std::int64_t>(options_.recent_messages) + 1);
  if (from <= last) {
    Result<std::vector<Message>> recent =
        journal_->messages(session_key(view.conversation.session), from, last);
    if (!recent) return recent.error();
    view.recent = std::move(*recent);
  }
  return view;
}

Result<LocalSession> TieredSessionStore::ensure_local(const SessionId& id) {
  const std::string& key = id.key();
  Result<std::optional<LocalSession>> local = journal_->find(key);
  if (!local) return local.error();
  if (*local && validated(key)) return **local;

  // First use in this process: is there a newer copy in Redis or PostgreSQL?
  std::optional<SessionView> best;
  bool redis_answered = false;
  bool postgres_answered = false;
  Result<std::optional<SessionView>> cached = read_cache(key);
  if (cached) {
    redis_answered = true;
    best = std::move(*cached);
  }
  Result<std::optional<SessionView>> archived = reader_.load(key, 0);
  if (archived) {
    postgres_answered = true;
    if (*archived) {
      postgres_loads_.fetch_add(1);
      const SessionView& a = **archived;
      const std::int64_t known = std::max(best ? best->conversation.last_seq : 0,
                                          *local ? (*local)->conversation.last_seq : 0);
      if (!best || a.conversation.last_seq > best->conversation.last_seq) {
        if (a.conversation.last_seq > known) {
          // The cached copies are older than the database: reload the newest messages from it.
          Result<std::optional<SessionView>> full = reader_.load(key, options_.recent_messages);
          if (!full) return full.error();
          if (*full) best = std::move(**full);
        } else if (!best) {
          best = a;  // the state only; the messages are already known locally
        }
      } else if (a.state_version > best->state_version) {
        best->conversation.handoff = a.conversation.handoff;
        best->conversation.agent = a.conversation.agent;
        best->conversation.handoff_ms = a.conversation.handoff_ms;
        best->conversation.csat = a.conversation.csat;
        best->state_version = a.state_version;
      }
    }
  }
  if (best && session_key(best->conversation.session) != key) best.reset();

  if (*local) {
    if (best && newer(*best, **local)) {
      if (Status status = adopt(*best); !status) return status.error();
      local = journal_->find(key);
      if (!local) return local.error();
      if (!*local) return Error::make(ErrorCode::kInternal, "session vanished from the journal");
    }
    if (postgres_answered) set_validated(key);
    return **local;
  }
  if (!best) {
    if (redis_answered && postgres_answered) return unknown_session();
    return Error::make(ErrorCode::kUnavailable,
                       "this conversation is not available now: Redis and PostgreSQL cannot be "
                       "reached");
  }
  if (best->conversation.last_seq > 0 && best->recent.empty()) {
    // The state came without messages (PostgreSQL only answered the state).
    Result<std::optional<SessionView>> full = reader_.load(key, options_.recent_messages);
    if (!full) return full.error();
    if (*full) best = std::move(**full);
  }
  if (Status status = adopt(*best); !status) return status.error();
  if (postgres_answered) set_validated(key);
  local = journal_->find(key);
  if (!local) return local.error();
  if (!*local) return Error::make(ErrorCode::kInternal, "session vanished from the journal");
  return **local;
}

Result<LocalSession> TieredSessionStore::refresh(const SessionId& id,
                                                 std::optional<SessionView>* cached) {
  Result<LocalSession> local = ensure_local(id);
  if (!local) return local;
  Result<std::optional<SessionView>> copy = read_cache(id.key());
  if (!copy) return local;  // Redis down: the journal is the truth here
  if (*copy && newer(**copy, *local)) {
    // Another process wrote this session after us.
    if (Status status = adopt(**copy); !status) return status.error();
    Result<std::optional<LocalSession>> again = journal_->find(id.key());
    if (!again) return again.error();
    if (*again) local = **again;
  }
  const bool current = *copy && (*copy)->conversation.last_seq == local->conversation.last_seq &&
                       (*copy)->state_version == local->state_version;
  if (current) {
    cache_hits_.fetch_add(1);
    if (cached) *cached = std::move(*copy);
    return local;
  }
  if (*copy) {
    cache_repairs_.fetch_add(1);  // older than the journal: rewrite it
  } else {
    cache_misses_.fetch_add(1);
  }
  Result<SessionView> view = local_view(*local);
  if (view) (void)write_cache(id.key(), *view, view->conversation.last_seq, local->cache_stale);
  return local;
}

bool TieredSessionStore::publish(const std::string& key) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    Result<std::optional<LocalSession>> local = journal_->find(key);
    if (!local || !*local) return false;
    Result<SessionView> view = local_view(**local);
    if (!view) return false;
    Result<bool> written =
        write_cache(key, *view, view->conversation.last_seq, (*local)->cache_stale);
    if (!written) return false;
    if (*written) return true;
    // Redis holds a newer copy: take it, then write the merge.
    Result<std::optional<SessionView>> copy = read_cache(key);
    if (!copy || !*copy) return false;
    if (!adopt(**copy)) return false;
  }
  return false;
}

}  // namespace supportd::store
