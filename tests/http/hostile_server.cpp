// The in-process server of hostile_server.h: its echo, streaming and WebSocket routes and the
// producer threads that write to them, recording what each did.
#include "hostile_server.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "http/reply_stream.h"
#include "http_client.h"

namespace supportd::testing {
namespace {

std::size_t number(const std::optional<std::string>& text, std::size_t fallback) {
  return text ? std::stoul(*text) : fallback;
}

// Pushes its messages from its own thread, as the desk's hub pushes from other threads.
class PushingHandler final : public http::WebSocketHandler {
 public:
  PushingHandler(std::shared_ptr<Production> production, std::size_t pieces,
                 std::size_t piece_bytes, bool close_on_message,
                 std::function<void(std::function<void()>)> spawn)
      : production_(std::move(production)),
        pieces_(pieces),
        piece_bytes_(piece_bytes),
        close_on_message_(close_on_message),
        spawn_(std::move(spawn)) {}

  void on_open(std::shared_ptr<http::WebSocketPeer> peer) override {
    peer_ = peer;
    spawn_([peer, production = production_, pieces = pieces_, bytes = piece_bytes_] {
      for (std::size_t i = 0; i < pieces && !peer->closed(); ++i) {
        production->bytes_offered += bytes;
        peer->send(std::string(bytes, 'x'));
      }
      production->cancelled = peer->closed();
      production->finished = true;
    });
  }
  void on_message(std::string_view) override {
    if (close_on_message_) peer_->close("refused");
  }
  void on_close() override {
    peer_.reset();
    production_->socket_closed = true;
  }

 private:
  std::shared_ptr<Production> production_;
  std::size_t pieces_;
  std::size_t piece_bytes_;
  bool close_on_message_;
  std::shared_ptr<http::WebSocketPeer> peer_;  // on the connection's strand only
  std::function<void(std::function<void()>)> spawn_;
};

}  // namespace

HostileServer::HostileServer(const std::function<void(http::ServerOptions&)>& configure) {
  http::ServerOptions options;
  options.port = 0;
  options.threads = 2;
  if (configure) configure(options);
  server_ = std::make_unique<http::Server>(options, [this](http::Request& r) { return handle(r); });
  EXPECT_TRUE(server_->start().ok());
}

HostileServer::~HostileServer() {
  stopping_ = true;
  server_->stop();
  std::lock_guard lock(mutex_);
  for (auto& producer : producers_)
    producer.join();
}

std::shared_ptr<Production> HostileServer::production(std::size_t index) {
  std::shared_ptr<Production> found;
  eventually([&] {
    std::lock_guard lock(mutex_);
    if (productions_.size() > index) found = productions_[index];
    return found != nullptr;
  });
  return found;
}

bool HostileServer::eventually(const std::function<bool()>& condition,
                               std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

http::Response HostileServer::handle(http::Request& request) {
  if (request.path == "/stream") return stream(request);
  if (request.path == "/ws") return socket(request);
  if (request.path.rfind("/echo/", 0) == 0) {
    return http::Response::json(200, "{\"path\":\"" + request.path + "\",\"body_bytes\":" +
                                         std::to_string(request.body.size()) + "}");
  }
  return http::error_response(404, "no route", "invalid_request_error", "not_found");
}

http::Response HostileServer::stream(const http::Request& request) {
  const std::size_t pieces = number(request.query_param("pieces"), 4);
  const std::size_t piece_bytes = number(request.query_param("piece_bytes"), 100);
  const bool paced = request.query_param("paced") == "1";
  auto reply = std::make_shared<http::ReplyStream>();
  auto production = std::make_shared<Production>();
  reply->on_cancel([production] { production->cancelled = true; });
  std::lock_guard lock(mutex_);
  productions_.push_back(production);
  producers_.emplace_back([this, reply, production, pieces, piece_bytes, paced] {
    reply->open(200, "text/event-stream");
    for (std::size_t i = 0; i < pieces && !production->cancelled && !stopping_; ++i) {
      std::string event =
          "data: " + std::to_string(i) + " " + std::string(piece_bytes, 'x') + "\n\n";
      production->bytes_offered += event.size();
      reply->write(std::move(event));
      // Paced: the next piece only once the connection took this one (has_data is thread-safe).
      while (paced && reply->has_data() && !production->cancelled && !stopping_)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    reply->close();
    production->finished = true;
  });
  return http::Response::deferred(reply);
}

http::Response HostileServer::socket(const http::Request& request) {
  auto production = std::make_shared<Production>();
  {
    std::lock_guard lock(mutex_);
    productions_.push_back(production);
  }
  return http::Response::upgrade(std::make_shared<PushingHandler>(
      production, number(request.query_param("pieces"), 4),
      number(request.query_param("piece_bytes"), 100),
      request.query_param("close_on_message") == "1", [this](std::function<void()> work) {
        std::lock_guard lock(mutex_);
        producers_.emplace_back(std::move(work));
      }));
}

int health(std::uint16_t port) {
  return http_request(port, "GET", "/echo/health").status;
}

void expect_json_error(const HttpResult& response, int status, const std::string& code) {
  EXPECT_EQ(response.status, status) << response.body;
  boost::system::error_code ec;
  const boost::json::value body = boost::json::parse(response.body, ec);
  ASSERT_FALSE(ec) << "the error's body is not JSON: " << response.body;
  const auto* error = body.is_object() ? body.as_object().if_contains("error") : nullptr;
  ASSERT_TRUE(error && error->is_object()) << response.body;
  EXPECT_FALSE(error->at("message").as_string().empty());
  EXPECT_EQ(error->at("code"), boost::json::value(code)) << response.body;
}

std::string head(const std::string& method, const std::string& path, const std::string& fields) {
  return method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + fields + "\r\n";
}

}  // namespace supportd::testing
