// One bounded HTTP request on a blocking socket; the answer parsed by Beast's parser (which
// handles Content-Length, chunked bodies and reading to the close), no Asio.
#include "drill/http_call.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <memory>

#include <fmt/format.h>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

namespace supportd::drill {
namespace {

namespace http = boost::beast::http;
using Clock = std::chrono::steady_clock;

class Socket {
 public:
  explicit Socket(int fd) : fd_(fd) {}
  ~Socket() {
    if (fd_ >= 0) ::close(fd_);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

// Milliseconds left until `deadline`, at least 0.
int left_ms(Clock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::max<long long>(0, left));
}

// Waits until `fd` is ready for `events`; false at the deadline or on an error.
bool wait_for(int fd, short events, Clock::time_point deadline) {
  pollfd entry{fd, events, 0};
  for (;;) {
    const int ready = ::poll(&entry, 1, left_ms(deadline));
    if (ready > 0) return true;
    if (ready == 0 || errno != EINTR) return false;
  }
}

// A non-blocking socket connected to `url` before the deadline; -1 when it could not be.
int connect_to(const HttpUrl& url, Clock::time_point deadline) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(url.host.c_str(), url.port.c_str(), &hints, &found) != 0) return -1;
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> owned(found, &::freeaddrinfo);
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) return fd;
    if (errno == EINPROGRESS && wait_for(fd, POLLOUT, deadline)) {
      int error = 0;
      socklen_t size = sizeof error;
      if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) == 0 && error == 0) return fd;
    }
    ::close(fd);
  }
  return -1;
}

}  // namespace

Result<HttpReply> http_call(const HttpUrl& url, std::string_view method, std::string_view path,
                            std::string_view body, const HeaderList& headers,
                            std::chrono::milliseconds timeout) {
  const std::string where = fmt::format("http://{}:{}{}{}", url.host, url.port, url.path, path);
  const auto deadline = Clock::now() + timeout;
  const auto unavailable = [&](std::string_view why) {
    return Error::make(ErrorCode::kUnavailable, fmt::format("{} {}: {}", method, where, why));
  };
  Socket socket(connect_to(url, deadline));
  if (socket.fd() < 0) return unavailable("cannot connect");

  std::string request = fmt::format("{} {}{} HTTP/1.1\r\nHost: {}:{}\r\nConnection: close\r\n",
                                    method, url.path, path, url.host, url.port);
  for (const auto& [name, value] : headers)
    request += name + ": " + value + "\r\n";
  if (!body.empty()) request += "Content-Type: application/json\r\n";
  request += fmt::format("Content-Length: {}\r\n\r\n", body.size());
  request += body;
  for (std::size_t sent = 0; sent < request.size();) {
    const ssize_t n =
        ::send(socket.fd(), request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (!wait_for(socket.fd(), POLLOUT, deadline)) return unavailable("timed out sending");
    } else {
      return unavailable("connection lost while sending");
    }
  }

  http::response_parser<http::string_body> parser;
  parser.body_limit(64u << 20);
  parser.eager(true);
  std::string pending;  // received, not yet taken by the parser
  char buffer[16384];
  boost::beast::error_code error;
  while (!parser.is_done()) {
    if (!wait_for(socket.fd(), POLLIN, deadline)) return unavailable("timed out waiting");
    const ssize_t n = ::recv(socket.fd(), buffer, sizeof buffer, 0);
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      return unavailable("connection lost while reading");
    }
    if (n == 0) {
      parser.put_eof(error);  // a body read to the close ends here
      if (error || !parser.is_done()) return unavailable("the answer ended early");
      break;
    }
    pending.append(buffer, static_cast<std::size_t>(n));
    while (!pending.empty() && !parser.is_done()) {
      const std::size_t took =
          parser.put(boost::asio::const_buffer(pending.data(), pending.size()), error);
      if (error == http::error::need_more) {
        error = {};
        pending.erase(0, took);
        break;  // a piece not whole yet: wait for more bytes
      }
      if (error) return Error::make(ErrorCode::kCorrupt, where + ": not an HTTP answer");
      pending.erase(0, took);
    }
  }
  HttpReply reply;
  reply.status = static_cast<int>(parser.get().result_int());
  reply.body = std::move(parser.get().body());
  return reply;
}

}  // namespace supportd::drill
