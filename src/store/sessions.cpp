// Sessions (sessions.h): every call's id checked (format, HMAC, Bloom filter) before the store,
// the filter rebuilt from the store at start (and in the background when the store is down).
#include "store/sessions.h"

#include <spdlog/spdlog.h>

namespace supportd::store {

Sessions::Sessions(std::unique_ptr<SessionStore> store, SessionSigner signer,
                   const Options& options)
    : options_(options),
      signer_(std::move(signer)),
      store_(std::move(store)),
      bloom_(options.bloom_capacity, options.bloom_false_positive_rate) {}

Result<std::unique_ptr<Sessions>> Sessions::open(std::unique_ptr<SessionStore> store,
                                                 SessionSigner signer, const Options& options) {
  if (options.bloom_capacity == 0 || !(options.bloom_false_positive_rate > 0) ||
      !(options.bloom_false_positive_rate < 1)) {
    return Error::invalid("the Bloom filter needs a capacity and a rate between 0 and 1", "bloom");
  }
  std::unique_ptr<Sessions> sessions(new Sessions(std::move(store), std::move(signer), options));
  Status rebuilt = sessions->rebuild();
  if (!rebuilt) {
    if (rebuilt.error().code != ErrorCode::kUnavailable) return rebuilt.error();
    spdlog::warn(
        "sessions: cannot list every session now ({}); signed ids are checked against "
        "the store until the Bloom filter is rebuilt",
        rebuilt.error().message);
    sessions->rebuilder_ = std::thread([s = sessions.get()] { s->rebuild_loop(); });
  }
  return sessions;
}

Sessions::~Sessions() {
  {
    std::lock_guard lock(rebuild_mutex_);
    stopping_ = true;
  }
  rebuild_wake_.notify_all();
  if (rebuilder_.joinable()) rebuilder_.join();
}

Status Sessions::rebuild() {
  std::size_t count = 0;
  Status status = store_->for_each_session([&](const std::string& token) {
    bloom_.add(session_key(token));
    ++count;
  });
  if (!status) return status;
  bloom_complete_.store(true);
  if (count > bloom_.capacity()) {
    spdlog::warn(
        "sessions: {} sessions exceed the Bloom filter's capacity of {}; its false "
        "positive rate is above the configured one",
        count, bloom_.capacity());
  }
  return {};
}

void Sessions::rebuild_loop() {
  std::unique_lock lock(rebuild_mutex_);
  while (!stopping_) {
    rebuild_wake_.wait_for(lock, options_.rebuild_retry, [&] { return stopping_; });
    if (stopping_) return;
    lock.unlock();
    const bool done = rebuild().ok();
    lock.lock();
    if (done) {
      spdlog::info("sessions: Bloom filter rebuilt from the whole store");
      return;
    }
  }
}

Result<Conversation> Sessions::create(std::string_view tenant, std::string_view user) {
  Result<SessionId> id = signer_.issue(tenant, user);
  if (!id) return id.error();
  Result<Conversation> created = store_->create(*id);
  if (created) bloom_.add(id->key());
  return created;
}

Result<SessionId> Sessions::verify(std::string_view session) {
  Result<SessionId> id = signer_.verify(session);
  if (!id) {
    if (id.error().code == ErrorCode::kInvalidArgument) {
      refused_malformed_.fetch_add(1, std::memory_order_relaxed);
    } else {
      refused_forged_.fetch_add(1, std::memory_order_relaxed);
    }
    return id;
  }
  if (bloom_.maybe_contains(id->key()) || !bloom_complete_.load() ||
      options_.admit_signed_unknown) {
    return id;
  }
  refused_unknown_.fetch_add(1, std::memory_order_relaxed);
  return unknown_session();
}

template <typename T>
T Sessions::learn(const SessionId& id, bool unverified, T result) {
  if (result.ok()) {
    if (unverified) bloom_.add(id.key());
  } else if (is_unknown_session(result.error())) {
    unknown_in_store_.fetch_add(1, std::memory_order_relaxed);
  }
  return result;
}

template <typename Call>
auto Sessions::with_session(std::string_view session, Call&& call) {
  using R = decltype(call(std::declval<const SessionId&>()));
  Result<SessionId> id = verify(session);
  if (!id) return R(id.error());
  const bool unverified = !bloom_.maybe_contains(id->key());
  return learn(*id, unverified, call(*id));
}

Result<std::int64_t> Sessions::append(std::string_view session, const NewMessage& message) {
  return with_session(session, [&](const SessionId& id) { return store_->append(id, message); });
}

Result<std::vector<Message>> Sessions::history(std::string_view session, std::size_t limit,
                                               std::int64_t before_seq) {
  return with_session(session,
                      [&](const SessionId& id) { return store_->history(id, limit, before_seq); });
}

Result<Conversation> Sessions::conversation(std::string_view session) {
  return with_session(session, [&](const SessionId& id) { return store_->conversation(id); });
}

Result<Conversation> Sessions::change_handoff(std::string_view session,
                                              const HandoffChange& change) {
  return with_session(session,
                      [&](const SessionId& id) { return store_->change_handoff(id, change); });
}

Status Sessions::rate_answer(std::string_view session, std::int64_t seq_id, Thumb thumb) {
  return with_session(session,
                      [&](const SessionId& id) { return store_->rate_answer(id, seq_id, thumb); });
}

Status Sessions::rate_conversation(std::string_view session, int csat) {
  return with_session(session,
                      [&](const SessionId& id) { return store_->rate_conversation(id, csat); });
}

Result<Feedback> Sessions::feedback(std::string_view session) {
  return with_session(session, [&](const SessionId& id) { return store_->feedback(id); });
}

Result<WaitingList> Sessions::waiting_for_human(std::string_view tenant, std::size_t limit) {
  return store_->waiting_for_human(tenant, limit);
}

Status Sessions::flush(std::chrono::milliseconds timeout) {
  return store_->flush(timeout);
}

SessionsStats Sessions::stats() {
  SessionsStats stats;
  stats.store = store_->stats();
  stats.refused_malformed = refused_malformed_.load(std::memory_order_relaxed);
  stats.refused_forged = refused_forged_.load(std::memory_order_relaxed);
  stats.refused_unknown = refused_unknown_.load(std::memory_order_relaxed);
  stats.unknown_in_store = unknown_in_store_.load(std::memory_order_relaxed);
  stats.bloom_entries = bloom_.added();
  stats.bloom_bits = bloom_.bits();
  stats.bloom_complete = bloom_complete_.load();
  return stats;
}

}  // namespace supportd::store
