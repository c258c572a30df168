// A connection to NATS that outlives server restarts: it reconnects by itself, forever, every
// `reconnect_wait`; while the link is down publishes are buffered by libnats (and lost if the
// buffer fills), requests fail at once, and connected() says false so callers can refuse work
// (a gateway answers 503 with Retry-After). Subscriptions come back with the link.
// Thread-safety: every method may be called from any thread; handlers run on libnats threads.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "core/status.h"

namespace supportd::bus {

struct ConnectionOptions {
  std::string url;   // nats://host:port (several, comma-separated, for a NATS cluster)
  std::string name;  // how the server's monitoring (connz) names this client
  // open() waits this long for the first connection, then fails naming the URL.
  std::chrono::milliseconds connect_timeout{5000};
  std::chrono::milliseconds reconnect_wait{250};  // between attempts after a loss
  // Default wait for JetStream API calls and requests.
  std::chrono::milliseconds request_timeout{2000};
};

// One message a subscription received. The views are valid during the handler only.
struct Message {
  std::string_view subject;
  std::string_view data;
  std::string_view reply;  // where the sender waits for an answer; empty when it does not
};

// An active subscription. Destroying it unsubscribes and waits until its handler has returned
// for the last time, so whatever the handler uses may be freed right after.
class Subscription {
 public:
  struct Impl;
  explicit Subscription(std::unique_ptr<Impl> impl);
  ~Subscription();
  Subscription(const Subscription&) = delete;
  Subscription& operator=(const Subscription&) = delete;

 private:
  std::unique_ptr<Impl> impl_;
};

class Connection {
 public:
  // Connects to `options.url`. Fails with kUnavailable when no server answers within
  // connect_timeout, kInvalidArgument for a URL libnats cannot parse.
  static Result<std::unique_ptr<Connection>> open(const ConnectionOptions& options);
  // Closes the link. REQUIRES: every Subscription made from it was destroyed.
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  bool connected() const;
  // How long the link has been down; zero while connected.
  std::chrono::milliseconds down_for() const;
  // Times the link came back after a loss.
  std::int64_t reconnects() const;
  // Called on a libnats thread each time the link comes back after a loss (the server may have
  // restarted with an empty store: whoever owns streams re-declares them). Set it once, early.
  void set_reconnected_handler(std::function<void()> handler);
  // The largest message the server accepts, in bytes (its INFO max_payload).
  std::int64_t max_payload() const;
  const ConnectionOptions& options() const { return options_; }

  // Core NATS publish: at most once, in order per subject from this connection. Buffered while
  // the link is down. kTooLarge above max_payload(); kUnavailable when the connection is closed.
  Status publish(std::string_view subject, std::string_view data);
  // Subscribes `handler` to `subject` (wildcards allowed). Messages of one subscription are
  // handled one at a time, in order.
  Result<std::unique_ptr<Subscription>> subscribe(std::string_view subject,
                                                  std::function<void(const Message&)> handler);
  // Sends `data` and waits up to `timeout` for one answer. kUnavailable when nobody listens on
  // `subject` or the link is down; kDeadline when no answer came in time.
  Result<std::string> request(std::string_view subject, std::string_view data,
                              std::chrono::milliseconds timeout);
  // Waits until the server has everything published so far (a round trip).
  Status flush(std::chrono::milliseconds timeout);

  // libnats handles, for bus/*.cpp only (bus/native.h defines it).
  struct Native;
  Native& native() { return *native_; }

 private:
  explicit Connection(ConnectionOptions options);

  const ConnectionOptions options_;
  std::unique_ptr<Native> native_;
};

}  // namespace supportd::bus
