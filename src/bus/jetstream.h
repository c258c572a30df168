// JetStream through a Connection: declaring streams and durable pull consumers, storing
// messages with a message id (deduplicated by the server within the stream's window), reading
// and deleting a stored message by sequence, and pulling messages one at a time with the
// acknowledgements a worker needs while it holds one (in progress, ack, nak, term).
// Thread-safety: every method may be called from any thread, except that one Delivery belongs
// to one thread at a time. Deliveries must be gone before their Connection.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bus/connection.h"
#include "core/status.h"

namespace supportd::bus {

struct StreamSpec {
  std::string name;
  std::vector<std::string> subjects;
  bool work_queue = false;  // a message leaves once acknowledged (else: kept until max_age)
  // Per subject, at most this many messages (queued or held, not yet acknowledged); a new one
  // is refused past it. 0: no bound.
  std::int64_t max_per_subject = 0;
  std::chrono::seconds max_age{0};             // 0: forever
  std::chrono::seconds duplicate_window{120};  // message ids remembered this long
  bool file_storage = true;                    // survives a server restart
};

struct ConsumerSpec {
  std::string stream;
  std::string durable;  // shared by every puller: each message goes to one of them
  std::string filter_subject;
  std::chrono::milliseconds ack_wait{4000};  // redelivered when not acknowledged in this time
  int max_deliver = 0;                       // attempts before giving up; 0: no limit
};

struct Stored {
  std::uint64_t sequence = 0;  // the stream's sequence number of the message
  bool duplicate = false;      // the server had it already (same message id in the window)
};

struct ConsumerState {
  std::uint64_t pending = 0;     // stored and not yet delivered
  std::int64_t ack_pending = 0;  // delivered and not yet acknowledged
  std::int64_t redelivered = 0;  // delivered more than once, among those
};

class JetStream {
 public:
  explicit JetStream(Connection& connection) : connection_(connection) {}

  // Creates the stream, or updates it to `spec` when it exists with other settings.
  Status ensure_stream(const StreamSpec& spec);
  // Creates the durable consumer, or updates its settings when it exists.
  Status ensure_consumer(const ConsumerSpec& spec);

  // Stores `data` on `subject` and waits for the server's acknowledgement (it is then on disk
  // with file storage). `message_id` non-empty: a second store with the same id within the
  // window is acknowledged as a duplicate and not stored again. kOverloaded when the subject's
  // bound is reached; kUnavailable when the link is down or no stream takes the subject.
  Result<Stored> store(std::string_view subject, std::string_view data,
                       std::string_view message_id = {},
                       std::chrono::milliseconds timeout = std::chrono::milliseconds(0));
  // The stored message `sequence` of `stream`; kNotFound when it is gone.
  Result<std::string> read(const std::string& stream, std::uint64_t sequence);
  // Deletes a stored message; a message already gone is not an error.
  Status remove(const std::string& stream, std::uint64_t sequence);
  Result<ConsumerState> consumer_state(const std::string& stream, const std::string& durable);

  Connection& connection() { return connection_; }

 private:
  Connection& connection_;
};

// One message pulled from a consumer, held until acknowledged. Destroying it without an
// acknowledgement leaves the message to be redelivered after the consumer's ack wait.
class Delivery {
 public:
  struct Impl;
  explicit Delivery(std::unique_ptr<Impl> impl);
  ~Delivery();
  Delivery(Delivery&&) noexcept;
  Delivery& operator=(Delivery&&) noexcept;

  std::string_view data() const;
  std::string_view subject() const;
  // 1 for the first delivery, 2 for the first redelivery, and so on.
  std::uint64_t attempt() const;
  std::uint64_t stream_sequence() const;

  // "Still working on it": restarts the ack wait.
  Status in_progress();
  // Done: the message leaves a work queue. Waits for the server to confirm.
  Status ack();
  // Give it back now, for another puller (or this one) to take.
  Status nak();
  // Never deliver it again (it cannot be processed).
  Status term();

 private:
  std::unique_ptr<Impl> impl_;
};

class PullConsumer {
 public:
  // Binds to an existing durable consumer (ensure_consumer first); kUnavailable when the
  // consumer does not exist.
  static Result<std::unique_ptr<PullConsumer>> bind(JetStream& jetstream, const ConsumerSpec& spec);
  ~PullConsumer();
  PullConsumer(const PullConsumer&) = delete;
  PullConsumer& operator=(const PullConsumer&) = delete;

  // One message if the consumer has one now (stored and undelivered, or due for redelivery);
  // nullopt, after one round trip, when it has none. Errors when the link is down or the
  // consumer is gone.
  Result<std::optional<Delivery>> take();

  struct Impl;

 private:
  explicit PullConsumer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace supportd::bus
