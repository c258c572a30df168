// The tiered store (tiered_session_store.h): opening it, per-session locks, and the SessionStore
// calls (the journal acknowledges; Redis and PostgreSQL are kept in step in tiered_sync.cpp and
// tiered_write_behind.cpp).
#include "store/tiered_session_store.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <functional>
#include <map>

#include "store/session_codec.h"

namespace supportd::store {

Result<std::unique_ptr<TieredSessionStore>> TieredSessionStore::open(const Options& options) {
  if (options.recent_messages == 0)
    return Error::invalid("recent_messages must be at least 1", "recent_messages");
  if (options.session_ttl.count() <= 0)
    return Error::invalid("the session TTL must be positive", "session_ttl");
  LocalDb::Options local;
  local.path = options.journal_path;
  local.sync_every_commit = options.sync_every_commit;
  local.journal = true;
  local.window = options.recent_messages;
  Result<std::unique_ptr<LocalDb>> journal = LocalDb::open(local);
  if (!journal) return journal.error();
  std::unique_ptr<TieredSessionStore> store(new TieredSessionStore(options, std::move(*journal)));
  if (Status status = store->archive_.connect(); !status) {
    if (status.error().code != ErrorCode::kUnavailable) return status.error();
    spdlog::warn("store: {}; acknowledged messages wait in {} until it is back",
                 status.error().message, options.journal_path.string());
  }
  store->writer_ = std::thread([s = store.get()] { s->write_behind_loop(); });
  return store;
}

TieredSessionStore::TieredSessionStore(const Options& options, std::unique_ptr<LocalDb> journal)
    : options_(options),
      journal_(std::move(journal)),
      redis_(options.redis),
      archive_(options.postgres),
      reader_(options.postgres) {}

TieredSessionStore::~TieredSessionStore() {
  {
    std::lock_guard lock(writer_mutex_);
    stopping_ = true;
  }
  writer_wake_.notify_all();
  if (writer_.joinable()) writer_.join();
}

std::mutex& TieredSessionStore::lock_for(std::string_view key) {
  return session_locks_[std::hash<std::string_view>()(key) % session_locks_.size()];
}

bool TieredSessionStore::validated(const std::string& key) {
  std::lock_guard lock(validated_mutex_);
  return validated_.count(key) > 0;
}

void TieredSessionStore::set_validated(const std::string& key) {
  std::lock_guard lock(validated_mutex_);
  if (validated_.size() >= 1'000'000) validated_.clear();  // they are simply checked again
  validated_.insert(key);
}

Result<Conversation> TieredSessionStore::create(const SessionId& id) {
  const std::int64_t now = unix_ms();
  std::lock_guard lock(lock_for(id.key()));
  if (Status status = journal_->create(id, now); !status) return status.error();
  set_validated(id.key());
  SessionView view;
  view.conversation.session = id.token();
  view.conversation.tenant = id.tenant();
  view.conversation.user = id.user();
  view.conversation.created_ms = now;
  (void)write_cache(id.key(), view, 0, false);
  wake_writer();
  return view.conversation;
}

Result<std::int64_t> TieredSessionStore::append(const SessionId& id, const NewMessage& message) {
  if (Status status = check_new_message(message); !status) return status.error();
  std::lock_guard lock(lock_for(id.key()));
  for (int attempt = 0;; ++attempt) {
    Result<LocalSession> local = ensure_local(id);
    if (!local) return local.error();
    const std::int64_t now = unix_ms();
    Result<std::int64_t> seq = journal_->append(id.key(), message, now);
    if (!seq) return seq.error();
    // Durable from here on. Publish to Redis, unless another process got there first.
    local->conversation.last_seq = *seq;
    Result<SessionView> view = local_view(*local);
    if (!view) {
      (void)journal_->mark_cache_stale(id.key());
    } else {
      Result<bool> written = write_cache(id.key(), *view, *seq - 1, local->cache_stale);
      if (written && !*written) {
        // Redis holds messages this process has not seen: this one is not acknowledged
        // yet, so take it back, adopt theirs and append after them.
        if (Status status = journal_->retract(id.key(), *seq); !status) return status.error();
        Result<std::optional<SessionView>> copy = read_cache(id.key());
        if (copy && *copy) {
          if (Status status = adopt(**copy); !status) return status.error();
        }
        if (attempt < 3) continue;
        return Error::make(ErrorCode::kUnavailable,
                           "this conversation is being written by another process; retry");
      }
    }
    wake_writer();
    return *seq;
  }
}

Result<std::vector<Message>> TieredSessionStore::history(const SessionId& id, std::size_t limit,
                                                         std::int64_t before_seq) {
  std::optional<SessionView> cached;
  Result<LocalSession> local;
  {
    std::lock_guard lock(lock_for(id.key()));
    local = refresh(id, &cached);
  }
  if (!local) return local.error();
  const std::int64_t last = local->conversation.last_seq;
  const SeqRange range = history_range(last, limit, before_seq);
  const std::int64_t from = range.from;
  const std::int64_t to = range.to;
  if (to < from) return std::vector<Message>();
  if (cached && !cached->recent.empty() && cached->recent.front().seq_id <= from &&
      cached->conversation.last_seq >= to) {
    const auto first = cached->recent.begin() + (from - cached->recent.front().seq_id);
    return std::vector<Message>(first, first + (to - from + 1));
  }
  // The journal's part first: the write-behind thread may trim it meanwhile, and whatever
  // it no longer holds is in PostgreSQL.
  std::vector<Message> recent;
  if (to >= local->window_from) {
    Result<std::vector<Message>> part =
        journal_->messages(id.key(), std::max(from, local->window_from), to);
    if (!part) return part.error();
    recent = std::move(*part);
  }
  const std::int64_t local_from = recent.empty() ? to + 1 : recent.front().seq_id;
  if (static_cast<std::int64_t>(recent.size()) != to - local_from + 1) {
    return Error::make(ErrorCode::kUnavailable, "the conversation changed while reading; retry");
  }
  std::vector<Message> messages;
  if (from < local_from) {
    // Older than the journal keeps: PostgreSQL has them.
    Result<std::vector<Message>> older = reader_.messages(id.key(), from, local_from - 1);
    if (!older) {
      return Error::make(older.error().code,
                         "older messages are kept in PostgreSQL: " + older.error().message);
    }
    postgres_loads_.fetch_add(1);
    if (static_cast<std::int64_t>(older->size()) != local_from - from) {
      return Error::make(ErrorCode::kUnavailable,
                         "older messages of this conversation are not archived yet; retry");
    }
    messages = std::move(*older);
  }
  messages.insert(messages.end(), std::make_move_iterator(recent.begin()),
                  std::make_move_iterator(recent.end()));
  return messages;
}

Result<Conversation> TieredSessionStore::conversation(const SessionId& id) {
  std::lock_guard lock(lock_for(id.key()));
  Result<LocalSession> local = refresh(id, nullptr);
  if (!local) return local.error();
  return local->conversation;
}

Result<Conversation> TieredSessionStore::change_handoff(const SessionId& id,
                                                        const HandoffChange& change) {
  std::lock_guard lock(lock_for(id.key()));
  Result<LocalSession> local = refresh(id, nullptr);
  if (!local) return local.error();
  Result<Conversation> changed = journal_->change_handoff(id.key(), change, unix_ms());
  if (!changed) return changed;
  publish(id.key());
  wake_writer();
  return changed;
}

Status TieredSessionStore::rate_answer(const SessionId& id, std::int64_t seq_id, Thumb thumb) {
  std::lock_guard lock(lock_for(id.key()));
  Result<LocalSession> local = refresh(id, nullptr);
  if (!local) return local.error();
  if (seq_id < 1 || seq_id > local->conversation.last_seq) {
    return Error{ErrorCode::kNotFound, "this conversation has no message " + std::to_string(seq_id),
                 "seq_id"};
  }
  bool checked = false;
  if (seq_id < local->window_from) {
    Result<std::vector<Message>> message = reader_.messages(id.key(), seq_id, seq_id);
    if (!message) return message.error();
    if (message->empty()) {
      return Error::make(ErrorCode::kUnavailable, "that message is not archived yet; retry");
    }
    if (message->front().role != Role::kAssistant) {
      return Error::invalid("message " + std::to_string(seq_id) + " is not an answer", "seq_id");
    }
    checked = true;
  }
  if (Status status = journal_->rate_answer(id.key(), seq_id, thumb, !checked, unix_ms());
      !status) {
    return status;
  }
  wake_writer();
  return {};
}

Status TieredSessionStore::rate_conversation(const SessionId& id, int csat) {
  if (Status status = check_csat(csat); !status) return status;
  std::lock_guard lock(lock_for(id.key()));
  Result<LocalSession> local = refresh(id, nullptr);
  if (!local) return local.error();
  if (Status status = journal_->set_csat(id.key(), csat, unix_ms()); !status) return status;
  publish(id.key());
  wake_writer();
  return {};
}

Result<Feedback> TieredSessionStore::feedback(const SessionId& id) {
  Result<Conversation> state = conversation(id);
  if (!state) return state.error();
  // PostgreSQL has the archived votes (also those cast through other processes); the
  // journal has this process's, the newest.
  std::map<std::int64_t, Thumb> votes;
  Result<std::vector<Feedback::Rating>> archived = reader_.ratings(id.key());
  if (archived) {
    for (const Feedback::Rating& r : *archived)
      votes[r.seq_id] = r.thumb;
  }
  Result<std::vector<Feedback::Rating>> local = journal_->ratings(id.key());
  if (!local) return local.error();
  for (const Feedback::Rating& r : *local)
    votes[r.seq_id] = r.thumb;
  Feedback feedback;
  feedback.csat = state->csat;
  for (const auto& [seq, thumb] : votes)
    feedback.answers.push_back({seq, thumb});
  return feedback;
}

Result<WaitingList> TieredSessionStore::waiting_for_human(std::string_view tenant,
                                                          std::size_t limit) {
  if (Status status = check_name(tenant, "tenant"); !status) return status.error();
  limit = std::min(limit, kMaxWaitingListed);
  WaitingList list;
  std::map<std::string, Conversation> merged;
  Result<std::vector<Conversation>> archived = reader_.waiting(tenant, limit * 2 + 16);
  if (archived) {
    for (Conversation& c : *archived)
      merged[session_key(c.session)] = std::move(c);
  } else {
    list.partial = true;
  }
  Result<std::vector<Conversation>> local = journal_->waiting(tenant, limit);
  if (!local) return local.error();
  for (Conversation& c : *local)
    merged[session_key(c.session)] = std::move(c);
  // The journal's state wins over an older archived one (not yet written behind).
  for (auto it = merged.begin(); it != merged.end();) {
    Result<std::optional<LocalSession>> mine = journal_->find(it->first);
    if (mine && *mine && (*mine)->conversation.handoff != Handoff::kWaiting) {
      it = merged.erase(it);
    } else {
      ++it;
    }
  }
  for (auto& [key, c] : merged)
    list.conversations.push_back(std::move(c));
  std::sort(list.conversations.begin(), list.conversations.end(),
            [](const Conversation& a, const Conversation& b) {
              return a.handoff_ms != b.handoff_ms ? a.handoff_ms < b.handoff_ms
                                                  : a.session < b.session;
            });
  if (list.conversations.size() > limit) list.conversations.resize(limit);
  return list;
}

Status TieredSessionStore::for_each_session(const std::function<void(const std::string&)>& visit) {
  if (Status status = journal_->for_each_session(visit); !status) return status;
  return reader_.for_each_session(visit);
}

StoreStats TieredSessionStore::stats() {
  StoreStats stats;
  stats.backend = "tiered";
  stats.redis_up = redis_.available();
  stats.postgres_up = archive_.available() && reader_.available();
  if (Result<PendingCounts> counts = journal_->pending_counts(); counts) {
    stats.pending_messages = counts->messages;
    stats.pending_sessions = counts->sessions;
    stats.stale_caches = counts->stale_caches;
  }
  stats.cache_hits = cache_hits_.load();
  stats.cache_misses = cache_misses_.load();
  stats.cache_repairs = cache_repairs_.load();
  stats.postgres_loads = postgres_loads_.load();
  stats.archived_messages = archived_messages_.load();
  stats.moved_messages = moved_messages_.load();
  stats.redis_errors = redis_.errors();
  stats.postgres_errors = archive_.errors() + reader_.errors();
  return stats;
}

}  // namespace supportd::store
