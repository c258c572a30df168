// libnats behind Connection, and the turning of its status codes into supportd errors. Included
// by src/bus/*.cpp only: nothing outside bus/ sees nats.h.
#pragma once

#include <nats/nats.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

#include "bus/connection.h"
#include "core/status.h"

namespace supportd::bus {

struct Connection::Native {
  natsConnection* connection = nullptr;
  jsCtx* jetstream = nullptr;
  std::atomic<bool> up{false};
  std::atomic<std::int64_t> down_since_ms{0};  // steady clock, while !up
  std::atomic<std::int64_t> reconnects{0};
  std::atomic<bool> closing{false};  // the owner closes the link: its loss is not news
  std::mutex handler_mutex;
  std::function<void()> on_reconnected;  // guarded by handler_mutex
  // libnats runs its connection callbacks on its own thread, after natsConnection_Close has
  // returned; the closed callback is the last of them. The owner waits for it before freeing
  // this block, which every callback is given as its closure.
  std::condition_variable closed_cv;  // with handler_mutex
  bool closed = false;                // guarded by handler_mutex
};

// An error for a failed libnats call: kUnavailable for a lost or closed link, no responders and
// timeouts as kDeadline, kTooLarge for an oversized message, kInternal otherwise. `what` says
// what was being done; the message adds libnats' own text and the JetStream code when given.
Error nats_error(natsStatus status, std::string_view what,
                 jsErrCode js_code = static_cast<jsErrCode>(0));

// Milliseconds on the steady clock (for the atomics above).
inline std::int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace supportd::bus
