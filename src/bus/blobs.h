// Messages larger than NATS accepts (the server's max_payload, read from its INFO at connect):
// the sender stores the message in chunks on the JetStream stream SUPPORTD_BLOBS, in order,
// and sends a small reference naming their sequence numbers instead; the receiver reads the
// chunks back by sequence and checks the length. Nothing waits on a timeout to find out that
// a message was too big. Chunks are deleted when the request ends (release) and expire after
// an hour in any case.
// Thread-safety: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "bus/jetstream.h"
#include "core/status.h"

namespace supportd::bus {

class Blobs {
 public:
  explicit Blobs(JetStream& jetstream) : jetstream_(jetstream) {}

  // The largest message this sender sends as is: the server's max_payload less room for the
  // headers JetStream adds.
  std::int64_t inline_limit() const;

  // `data` as it should travel: itself when it fits inline_limit(); otherwise a reference to
  // its chunks, stored under `owner` (a request id). Errors when the chunks cannot be stored.
  Result<std::string> wrap(std::string_view owner, std::string data);
  // The message a wrapped one stands for (reading the chunks back when it is a reference).
  // kNotFound when a chunk is gone (expired or released), kCorrupt when lengths disagree.
  Result<std::string> unwrap(std::string wrapped);
  // Deletes the chunks `wrapped` refers to; nothing for a message sent as is. Best effort.
  void release(std::string_view wrapped);
  static bool is_reference(std::string_view wrapped);

 private:
  JetStream& jetstream_;
};

}  // namespace supportd::bus
