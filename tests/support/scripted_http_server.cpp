// The scripted loopback server (scripted_http_server.h): an accept loop polling a stop flag,
// and a reader that waits for the headers and the body their Content-Length announces.
#include "scripted_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

namespace supportd::testing {

ScriptedHttpServer::ScriptedHttpServer(Respond respond) : respond_(std::move(respond)) {
  listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      ::listen(listener_, 64) != 0 ||
      ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    if (listener_ >= 0) ::close(listener_);
    throw std::runtime_error("cannot listen on 127.0.0.1");
  }
  port_ = ntohs(address.sin_port);
  thread_ = std::thread([this] { serve(); });
}

ScriptedHttpServer::~ScriptedHttpServer() {
  stop_ = true;
  thread_.join();
  ::close(listener_);
}

bool ScriptedHttpServer::send_all(int socket, std::string_view text) {
  while (!text.empty()) {
    const ssize_t sent = ::send(socket, text.data(), text.size(), MSG_NOSIGNAL);
    if (sent <= 0) return false;
    text.remove_prefix(static_cast<std::size_t>(sent));
  }
  return true;
}

void ScriptedHttpServer::serve() {
  while (!stop_) {
    pollfd waiting{listener_, POLLIN, 0};
    if (::poll(&waiting, 1, 50) <= 0) continue;
    const int socket = ::accept(listener_, nullptr, nullptr);
    if (socket < 0) continue;
    answer(socket);
    ::close(socket);
  }
}

void ScriptedHttpServer::answer(int socket) {
  std::string request;
  char buffer[4096];
  std::size_t needed = std::string::npos;
  while (request.size() < needed) {
    pollfd readable{socket, POLLIN, 0};
    if (::poll(&readable, 1, 2000) <= 0) return;  // a client that sends nothing more
    const ssize_t got = ::recv(socket, buffer, sizeof(buffer), 0);
    if (got <= 0) return;
    request.append(buffer, static_cast<std::size_t>(got));
    const std::size_t end = request.find("\r\n\r\n");
    if (needed == std::string::npos && end != std::string::npos) {
      std::size_t body = 0;
      if (const std::size_t at = request.find("Content-Length: "); at != std::string::npos)
        body = std::stoul(request.substr(at + 16));
      needed = end + 4 + body;
    }
  }
  ++requests_;
  respond_(socket, request);
}

}  // namespace supportd::testing
