// What the desk uses for conversations. Every call takes the session id exactly as the client
// sent it and checks it before any store is touched: its format, its HMAC signature (constant
// time) and a Bloom filter of issued ids. Malformed, forged and never-issued ids are refused
// with a clear error and counted; they never reach Redis, PostgreSQL or SQLite, and no other
// conversation is affected.
// Thread-safety: every method may be called from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>

#include "store/bloom_filter.h"
#include "store/session_id.h"
#include "store/session_store.h"

namespace supportd::store {

struct SessionsStats {
  StoreStats store;
  std::int64_t refused_malformed = 0;  // not of the form tenant.user.nonce.signature
  std::int64_t refused_forged = 0;     // signature does not verify
  std::int64_t refused_unknown = 0;    // signed, but the Bloom filter says never issued
  std::int64_t unknown_in_store = 0;   // passed the filter, unknown to the store
  std::size_t bloom_entries = 0;       // ids added to the filter
  std::size_t bloom_bits = 0;
  bool bloom_complete = true;  // rebuilt from the whole store
};

class Sessions {
 public:
  struct Options {
    std::size_t bloom_capacity = 1'000'000;  // ids before the false-positive rate degrades
    double bloom_false_positive_rate = 0.001;
    // Several processes issuing ids for one shared store (gateways in front of the same Redis
    // and PostgreSQL): a correctly signed id this process's filter does not know is looked up
    // in the store once, then remembered. Off: such ids are refused.
    bool admit_signed_unknown = false;
    // While the filter could not be rebuilt (a backend down at start), retry this often.
    std::chrono::milliseconds rebuild_retry{5000};
  };

  // Rebuilds the Bloom filter from `store`. When the store cannot list its sessions now, this
  // still succeeds: rebuilding is retried in the background, and meanwhile correctly signed
  // ids the filter does not know are looked up in the store.
  static Result<std::unique_ptr<Sessions>> open(std::unique_ptr<SessionStore> store,
                                                SessionSigner signer, const Options& options);
  ~Sessions();

  // A new conversation of `user` at `tenant`; Conversation::session is its signed id.
  Result<Conversation> create(std::string_view tenant, std::string_view user);

  // Checks `session` without touching the store: invalid_argument (malformed) or not_found
  // (forged, or never issued). The desk compares id.tenant() with the caller's tenant.
  Result<SessionId> verify(std::string_view session);

  // The SessionStore calls (see session_store.h), after verify().
  Result<std::int64_t> append(std::string_view session, const NewMessage& message);
  Result<std::vector<Message>> history(std::string_view session, std::size_t limit,
                                       std::int64_t before_seq = 0);
  Result<Conversation> conversation(std::string_view session);
  Result<Conversation> change_handoff(std::string_view session, const HandoffChange& change);
  Status rate_answer(std::string_view session, std::int64_t seq_id, Thumb thumb);
  Status rate_conversation(std::string_view session, int csat);
  Result<Feedback> feedback(std::string_view session);
  Result<WaitingList> waiting_for_human(std::string_view tenant, std::size_t limit);
  Status flush(std::chrono::milliseconds timeout);

  SessionsStats stats();
  SessionStore& store() { return *store_; }

 private:
  Sessions(std::unique_ptr<SessionStore> store, SessionSigner signer, const Options& options);
  Status rebuild();
  void rebuild_loop();
  // Result of a store call on an id that passed verify() only because the filter is
  // incomplete: remember it if the store knows it, count it if not.
  template <typename T>
  T learn(const SessionId& id, bool unverified, T result);
  // verify(session), then `call(id)` on the store, then learn().
  template <typename Call>
  auto with_session(std::string_view session, Call&& call);

  // Constant after construction.
  const Options options_;
  const SessionSigner signer_;
  const std::unique_ptr<SessionStore> store_;

  BloomFilter bloom_;  // thread-safe itself
  std::atomic<bool> bloom_complete_{false};
  std::atomic<std::int64_t> refused_malformed_{0};
  std::atomic<std::int64_t> refused_forged_{0};
  std::atomic<std::int64_t> refused_unknown_{0};
  std::atomic<std::int64_t> unknown_in_store_{0};

  std::mutex rebuild_mutex_;
  std::condition_variable rebuild_wake_;
  bool stopping_ = false;  // guarded by rebuild_mutex_
  std::thread rebuilder_;  // runs while the filter is incomplete
};

}  // namespace supportd::store
