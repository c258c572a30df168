// The desk's WebSockets (see desk_socket.h): a customer's socket turns messages into turns and
// receives pushes for its session; an agent's socket only listens to its tenant's pushes.
// Each customer message is a trace of its own (api/socket_tracing.h); a push from the hub is a
// `push {route}` span of the request that caused it (an agent's message, a handoff).
#include "api/desk_socket.h"

#include <boost/json.hpp>

#include "api/access.h"
#include "api/desk_answers.h"
#include "api/desk_requests.h"
#include "api/errors.h"
#include "api/socket_tracing.h"
#include "desk/desk.h"
#include "http/websocket.h"
#include "obs/trace/current.h"

namespace supportd::api {
namespace json = boost::json;
namespace {

std::string error_message(std::string_view code, std::string_view message) {
  return json::serialize(json::object{{"type", "error"}, {"code", code}, {"message", message}});
}

// What both sockets share: the desk, the caller's tenant, the peer, and pushes from the hub.
class DeskSocket : public http::WebSocketHandler, public desk::Listener {
 public:
  DeskSocket(desk::Desk& desk, std::string tenant, const char* route)
      : desk_(desk), tenant_(std::move(tenant)), route_(route) {}
  void on_close() override {}
  void deliver(const std::string& json) override {
    obs::trace::ScopedSpan span(std::string("push ") + route_);
    span.set("http.route", route_);
    span.set("supportd.websocket.message.size", static_cast<std::int64_t>(json.size()));
    if (peer_) peer_->send(json);
  }

 protected:
  desk::Desk& desk_;
  const std::string tenant_;
  const char* const route_;  // "/v1/ws", "/v1/agent/ws"
  std::shared_ptr<http::WebSocketPeer> peer_;
};

// A customer's socket: messages in become turns; answers, agent messages and handoff changes
// go out.
class CustomerSocket final : public DeskSocket,
                             public std::enable_shared_from_this<CustomerSocket> {
 public:
  CustomerSocket(desk::Desk& desk, std::string tenant, std::string session, SocketTracing tracing)
      : DeskSocket(desk, std::move(tenant), "/v1/ws"),
        session_(std::move(session)),
        tracing_(std::move(tracing)) {}

  void on_open(std::shared_ptr<http::WebSocketPeer> peer) override {
    peer_ = std::move(peer);
    desk_.hub().watch_session(session_, shared_from_this());
  }

  void on_message(std::string_view text) override {
    SocketMessage message = decode_socket_message(text);
    if (message.kind == SocketMessage::Kind::kPing) {  // a heartbeat: not traced
      peer_->send(R"({"type":"pong"})");
      return;
    }
    const std::shared_ptr<TracedMessage> traced = tracing_.begin(text.size(), tenant_);
    const obs::trace::Scope scope(traced ? traced->trace() : nullptr, {});
    if (message.kind == SocketMessage::Kind::kRefused) {
      refuse(traced, message.text);
      return;
    }
    std::weak_ptr<http::WebSocketPeer> weak = peer_;
    auto sink = make_answer_message_sink([weak](std::string event) {
      if (auto peer = weak.lock()) peer->send(std::move(event));
    });
    desk_.ask(tenant_, session_, std::move(message.text),
              traced ? traced->watch(std::move(sink)) : std::move(sink));
  }

 private:
  // Answers a message the socket cannot take with an invalid_message error.
  void refuse(const std::shared_ptr<TracedMessage>& traced, std::string_view why) {
    peer_->send(error_message("invalid_message", why));
    if (traced) traced->end("invalid_message");
  }

  const std::string session_;
  const SocketTracing tracing_;
};

// An agent's socket: the waiting list whenever it changes, and customers' messages in taken
// conversations.
class AgentSocket final : public DeskSocket, public std::enable_shared_from_this<AgentSocket> {
 public:
  AgentSocket(desk::Desk& desk, std::string tenant)
      : DeskSocket(desk, std::move(tenant), "/v1/agent/ws") {}

  void on_open(std::shared_ptr<http::WebSocketPeer> peer) override {
    peer_ = std::move(peer);
    desk_.hub().watch_tenant_agents(tenant_, shared_from_this());
    const std::string waiting = desk_.waiting_message(tenant_);
    if (!waiting.empty()) peer_->send(waiting);
  }
  void on_message(std::string_view text) override {
    if (decode_socket_message(text).kind == SocketMessage::Kind::kPing) {
      peer_->send(R"({"type":"pong"})");
    } else {
      peer_->send(error_message("invalid_message",
                                "agents act through the HTTP API; this socket only listens"));
    }
  }
};

}  // namespace

http::Response customer_socket(Services& services, http::Request& request) {
  if (services.desk == nullptr)
    return error_response(Error::make(ErrorCode::kNotFound, "the desk is not enabled"));
  auto tenant = tenant_of(services.access, request);
  if (!tenant) return error_response(tenant.error());
  const auto session = request.query_param("session");
  if (!session || session->empty())
    return error_response(Error::invalid("the session query parameter is required", "session"));
  if (Status s = services.desk->check_session(*tenant, *session); !s)
    return error_response(s.error());
  if (!request.websocket_upgrade) {
    return http::error_response(426, "connect with a WebSocket", "invalid_request_error",
                                "upgrade_required");
  }
  return http::Response::upgrade(std::make_shared<CustomerSocket>(
      *services.desk, *tenant, *session, SocketTracing(services.tracer, "/v1/ws")));
}

http::Response agent_socket(Services& services, http::Request& request) {
  if (services.desk == nullptr)
    return error_response(Error::make(ErrorCode::kNotFound, "the desk is not enabled"));
  auto tenant = agent_tenant_of(services.access, request);
  if (!tenant) return error_response(tenant.error());
  if (!request.websocket_upgrade) {
    return http::error_response(426, "connect with a WebSocket", "invalid_request_error",
                                "upgrade_required");
  }
  return http::Response::upgrade(std::make_shared<AgentSocket>(*services.desk, *tenant));
}

}  // namespace supportd::api
