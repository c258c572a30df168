// Tracing of a customer's WebSocket (/v1/ws). The handshake is an HTTP request with its own
// trace (api/request_tracing.h). Each message the customer then sends is a trace of its own:
// a socket lives for minutes and carries many turns, and one trace per message keeps each
// turn's trace short and whole, as a REST turn's is. The message's SERVER span,
// `WS message /v1/ws`, links to the handshake's span (the way back to the caller's trace), and
// the message is sampled as the handshake was. While the message is handled its trace is the
// thread's current one, so the desk turn it starts hangs its stage spans from it; the answer's
// push to the socket is a `push /v1/ws` span under it, from the first event to `done`; the
// message's span ends when the answer has been pushed. A refused message (not JSON, an unknown
// type, a turn refused) sets error.type like a 4xx, and an error status only when the fault is
// the server's (busy, store down: a 5xx over HTTP); either way the trace is kept as failed.
// Thread-safety: SocketTracing is constant after construction; a TracedMessage may be ended
// and destroyed from any thread (its answer's events come from the turn's threads).
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "desk/answer.h"
#include "obs/trace/request_trace.h"

namespace supportd::obs::trace {
class Tracer;
}

namespace supportd::api {

class TracedMessage;

// What a socket keeps of its handshake to trace its messages.
class SocketTracing {
 public:
  // Made while the handshake's request is the thread's current one; `tracer` null, or no
  // current request: the socket's messages are not traced. `route`: "/v1/ws".
  SocketTracing(obs::trace::Tracer* tracer, std::string route);

  // A message of `bytes` from `tenant` arrived: its trace, started now; null when untraced.
  std::shared_ptr<TracedMessage> begin(std::size_t bytes, const std::string& tenant) const;

 private:
  obs::trace::Tracer* tracer_ = nullptr;
  std::optional<obs::trace::SpanContext> handshake_;
  std::string route_;
};

// One message's trace, from its arrival to its answer's last push.
class TracedMessage : public std::enable_shared_from_this<TracedMessage> {
 public:
  TracedMessage(std::shared_ptr<obs::trace::RequestTrace> request, obs::trace::SpanRecord root,
                std::string route);
  // Ends the message's span if nothing did (the turn or the socket went away first).
  ~TracedMessage();
  TracedMessage(const TracedMessage&) = delete;
  TracedMessage& operator=(const TracedMessage&) = delete;

  // The message's trace: make it current (obs::trace::Scope) while handling the message.
  obs::trace::RequestTrace* trace() const { return trace_.get(); }
  // `sink` wrapped: the events pushed are the `push` span; done or an error ends the message.
  std::shared_ptr<desk::AnswerSink> watch(std::shared_ptr<desk::AnswerSink> sink);
  // Ends the message's span (once; later calls do nothing). `error_type` empty: answered;
  // otherwise why not, with `server_fault` when the server is to blame (error status).
  void end(std::string_view error_type = {}, bool server_fault = false);
  // An event of the answer is being pushed (watch()'s sink calls it): the first starts the
  // push span and sets the message's latency (time to its first push); the rest are counted.
  void pushed();

 private:
  const std::shared_ptr<obs::trace::RequestTrace> trace_;
  const std::string route_;
  std::mutex mutex_;
  obs::trace::SpanRecord root_;  // guarded by mutex_
  obs::trace::SpanRecord push_;  // guarded by mutex_; started by the first push
  std::int64_t pushes_ = 0;      // guarded by mutex_
  bool ended_ = false;           // guarded by mutex_
};

}  // namespace supportd::api
