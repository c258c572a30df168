// A customer's WebSocket messages as traces of their own (see socket_tracing.h).
#include "api/socket_tracing.h"

#include "api/errors.h"
#include "obs/trace/current.h"
#include "obs/trace/tracer.h"

namespace supportd::api {
namespace {

namespace trace = obs::trace;

// The answer's events on their way to the socket: each counted as a push; done or an error
// ends the message's span after it was pushed.
class PushingSink final : public desk::AnswerSink {
 public:
  PushingSink(std::shared_ptr<desk::AnswerSink> inner, std::shared_ptr<TracedMessage> message)
      : inner_(std::move(inner)), message_(std::move(message)) {}
  void on_citations(const std::vector<desk::Citation>& citations) override {
    message_->pushed();
    inner_->on_citations(citations);
  }
  void on_token(std::string_view text) override {
    message_->pushed();
    inner_->on_token(text);
  }
  void on_notice(std::string_view text, std::string_view kind) override {
    message_->pushed();
    inner_->on_notice(text, kind);
  }
  void on_done(const desk::Answer& answer) override {
    message_->pushed();
    inner_->on_done(answer);
    message_->end();
  }
  void on_error(const desk::DeskError& error) override {
    message_->pushed();
    inner_->on_error(error);
    message_->end(error_code(error.kind), http_status(error) >= 500);
  }

 private:
  const std::shared_ptr<desk::AnswerSink> inner_;
  const std::shared_ptr<TracedMessage> message_;
};

}  // namespace

SocketTracing::SocketTracing(trace::Tracer* tracer, std::string route) : route_(std::move(route)) {
  const trace::Current& current = trace::current();
  if (tracer == nullptr || current.trace == nullptr) return;
  tracer_ = tracer;
  const trace::RequestTrace& handshake = *current.trace;
  handshake_ = trace::SpanContext{handshake.trace_id(),
                                  handshake.root_id(),
                                  handshake.sampled() ? trace::kSampledFlag : std::uint8_t{0},
                                  {}};
}

std::shared_ptr<TracedMessage> SocketTracing::begin(std::size_t bytes,
                                                    const std::string& tenant) const {
  if (tracer_ == nullptr) return nullptr;
  auto request = tracer_->start_following(*handshake_);
  const std::string name = "WS message " + route_;
  request->set_route(name);
  request->set_tenant(tenant);
  trace::SpanRecord root = request->begin_root(name, trace::SpanKind::kServer);
  root.link = trace::SpanLink{handshake_->trace_id, handshake_->span_id};
  root.set("http.route", route_);
  root.set("network.protocol.name", "websocket");
  root.set("supportd.websocket.message.size", static_cast<std::int64_t>(bytes));
  if (!tenant.empty()) root.set("supportd.tenant", tenant);
  return std::make_shared<TracedMessage>(std::move(request), std::move(root), route_);
}

TracedMessage::TracedMessage(std::shared_ptr<trace::RequestTrace> request, trace::SpanRecord root,
                             std::string route)
    : trace_(std::move(request)), route_(std::move(route)), root_(std::move(root)) {}

TracedMessage::~TracedMessage() {
  bool ended = false;
  {
    std::lock_guard lock(mutex_);
    ended = ended_;
  }
  if (!ended) end("no_answer", true);  // the desk promises done or an error: not here
}

std::shared_ptr<desk::AnswerSink> TracedMessage::watch(std::shared_ptr<desk::AnswerSink> sink) {
  return std::make_shared<PushingSink>(std::move(sink), shared_from_this());
}

void TracedMessage::pushed() {
  std::lock_guard lock(mutex_);
  if (ended_) return;
  if (pushes_++ > 0) return;
  push_ = trace_->begin_span("push " + route_, root_.span_id);
  trace_->set_latency_ms(static_cast<double>(push_.start_ns - root_.start_ns) / 1e6);
}

void TracedMessage::end(std::string_view error_type, bool server_fault) {
  std::lock_guard lock(mutex_);
  if (ended_) return;
  ended_ = true;
  const std::int64_t now = trace_->now_ns();
  if (pushes_ > 0) {
    push_.end_ns = now;
    push_.set("supportd.websocket.messages", pushes_);
    trace_->add(std::move(push_));
  }
  root_.end_ns = now;
  if (!error_type.empty()) {
    // As a SERVER span's 4xx and 5xx (api/request_tracing.cpp): error.type for both, the error
    // status for the server's faults only, and kept as failed either way.
    if (server_fault) {
      root_.fail(error_type, "");
    } else {
      root_.set("error.type", error_type);
    }
    trace_->mark_failed();
  }
  trace_->add(std::move(root_));
  // The last event may be pushed from the engine's thread, which must not finish a trace.
  trace_->end_part_elsewhere();
}

}  // namespace supportd::api
