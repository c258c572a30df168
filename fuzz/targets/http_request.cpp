// Fuzz target: the HTTP request path as a client reaches it. Each input is sent, as it is, to
// supportd's own server (http/server.h) on a loopback port; the client then half-closes and
// reads until the server closes. The server frames the bytes (request_framing.h and Beast's
// parser, under small limits: headers, chunked bodies, pipelined requests), makes Requests
// (message.h), checks the cross-origin policy (cross_origin.h) and routes them (router.h) to
// handlers that decode what the product's handlers decode (desk bodies, query parameters,
// OpenAI requests); an upgrade to a WebSocket hands the rest of the input to Beast's framing
// and the desk socket's message decoding. Whatever the bytes, the server must answer with
// HTTP/1.1 responses (or nothing) and close within the limits, never crash or hang.
#include <boost/json.hpp>

#include <memory>
#include <string>

#include "api/desk_requests.h"
#include "api/openai_request.h"
#include "fuzz_check.h"
#include "http/cross_origin.h"
#include "http/reply_stream.h"
#include "http/router.h"
#include "http/server.h"
#include "loopback_client.h"

using namespace supportd;

namespace {

template <typename T>
http::Response answer(const Result<T>& result) {
  if (!result) return http::error_response(400, result.error().message, "invalid_request_error");
  return http::Response::json(200, R"({"ok":true})");
}

http::Router make_router(const http::CrossOrigin& cors) {
  http::Router router;
  router.add("GET", "/health", [](http::Request&) { return http::Response::text(200, "ok"); });
  router.add("POST", "/v1/sessions", cors.open([](http::Request& request) {
    return answer(api::decode_start_body(request.body));
  }));
  router.add("POST", "/v1/sessions/{session}/messages", cors.open([](http::Request& request) {
    return answer(api::decode_message_body(request.body));
  }));
  router.add("GET", "/v1/sessions/{session}/messages", cors.open([](http::Request& request) {
    const auto limit = api::integer_param(request, "limit", 50, 1, 1000);
    if (!limit) return answer(limit);
    return answer(api::integer_param(request, "before", 0, 0, INT64_MAX));
  }));
  router.add("OPTIONS", "/v1/sessions/{session}/messages",
             [&cors](http::Request& request) { return cors.preflight(request, "GET, POST"); });
  router.add("POST", "/v1/agent/conversations/{session}/{action}",
             cors.same_site([](http::Request& request) {
               return answer(api::decode_agent_body(request.body, request.param("action"),
                                                    request.header("x-agent")));
             }));
  router.add("POST", "/v1/chat/completions", [](http::Request& request) {
    return answer(api::parse_completion_call(request.body, true));
  });
  // A streamed answer: the body echoed back in server-sent events.
  router.add("POST", "/v1/answer", [](http::Request& request) {
    auto reply = std::make_shared<http::ReplyStream>();
    reply->open(200, "text/event-stream");
    reply->write("data: " + std::to_string(request.body.size()) + "\n\n");
    reply->close();
    return http::Response::deferred(reply);
  });
  router.add("GET", "/v1/ws", [](http::Request& request) {
    if (!request.websocket_upgrade) return http::error_response(426, "upgrade", "invalid");
    return http::Response::upgrade(std::make_shared<fuzz::SocketEcho>());
  });
  return router;
}

struct Fixture {
  http::CrossOrigin cors =
      http::CrossOrigin::parse("https://shop.example.com, https://*.example.org").value();
  http::Router router = make_router(cors);
  std::unique_ptr<http::Server> server;

  Fixture() {
    http::ServerOptions options;
    options.port = 0;
    options.body_limit = 4096;
    options.header_limit = 2048;
    options.read_timeout = std::chrono::milliseconds(2000);
    options.idle_timeout = std::chrono::milliseconds(2000);
    options.write_timeout = std::chrono::milliseconds(2000);
    options.linger_timeout = std::chrono::milliseconds(200);
    options.linger_limit = 64 * 1024;
    options.websocket_message_limit = 1024;
    options.label_errors = [this](const http::Request& request, http::Response& response) {
      cors.label_error(request, response);
    };
    server = fuzz::start_server(
        options, [this](http::Request& request) { return router.dispatch(request); });
  }
};

// Sends `bytes`, half-closes, and returns everything the server sent until it closed.
std::string exchange(std::uint16_t port, std::string_view bytes) {
  const int fd = fuzz::connect_loopback(port);
  fuzz::send_all(fd, bytes);
  ::shutdown(fd, SHUT_WR);
  std::string received = fuzz::receive_until_closed(fd);
  ::close(fd);
  return received;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Fixture fixture;
  const std::string received = exchange(fixture.server->port(), fuzz::text_of(data, size));
  if (!received.empty())
    fuzz::require(received.rfind("HTTP/1.1 ", 0) == 0, "the server answers in HTTP/1.1");
  return 0;
}
