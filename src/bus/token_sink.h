// What an engine node's worker and the local engine's thread share about one held request
// (bus/engine_worker.h): its numbering, whether it may still publish, what becomes of its
// message when it ends; and TokenSink, the GenerationSink that numbers the local engine's
// tokens and publishes them to the request's gateway.
// Thread-safety: Flight's atomics may be read and written from any thread; next_sequence
// belongs to the engine's thread; Mailbox is guarded by its mutex.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>

#include "bus/connection.h"
#include "engine/engine.h"

namespace supportd::bus {

// What happens to a held request's message once it has ended.
enum class Disposition {
  kAck,   // done (or cancelled by its customer): it leaves the queue
  kNak,   // handed back: another attempt resumes it
  kNone,  // superseded by a newer attempt that holds it now: leave the message alone
};

// What the engine thread and the libnats threads share about one held request.
struct Flight {
  std::string key;  // request id and attempt
  std::string request_id;
  std::string events_subject;
  std::uint64_t attempt = 1;
  std::uint64_t next_sequence = 1;    // engine thread only
  std::atomic<bool> silenced{false};  // stop publishing (cancelled, superseded or given back)
  std::atomic<int> disposition{static_cast<int>(Disposition::kAck)};
};

// A held request that ended (its flight's key), posted by its sink for the worker to settle.
struct Ended {
  std::string key;
  engine::Clock::time_point when;
};

// Where sinks report that a request ended; shared so a late sink never touches a dead worker.
struct Mailbox {
  std::mutex mutex;
  std::condition_variable wake;
  std::deque<Ended> ended;  // guarded by mutex
  bool work_hint = false;   // guarded by mutex: a gateway stored a request
  bool redeclare = false;   // guarded by mutex: the link came back; declare the streams again
};

// Publishes each text piece as the next numbered event on the request's token subject, and the
// end after the last; then posts the request's end to the mailbox. Publishes nothing once the
// flight is silenced (the end is still posted).
class TokenSink final : public engine::GenerationSink {
 public:
  TokenSink(Connection& connection, std::shared_ptr<Flight> flight,
            std::shared_ptr<Mailbox> mailbox)
      : connection_(connection), flight_(std::move(flight)), mailbox_(std::move(mailbox)) {}

  void on_text(std::string_view text) override;
  void on_done(const engine::Completion& completion) override;

 private:
  Connection& connection_;
  std::shared_ptr<Flight> flight_;
  std::shared_ptr<Mailbox> mailbox_;
};

}  // namespace supportd::bus
