// Server::Impl, shared by server.cpp and connection.cpp. Internal to http/.
#pragma once

#include <atomic>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "http/connection.h"

namespace supportd::http {

struct Server::Impl {
  Impl(ServerOptions o, Handler h) : options(std::move(o)), handler(std::move(h)) {}

  net::awaitable<void> accept_loop();
  // Registers `connection` and runs it on `strand`.
  template <typename Stream>
  void start_connection(const net::any_io_executor& strand,
                        std::shared_ptr<Connection<Stream>> connection);
  void register_connection(const std::shared_ptr<Link>& connection);
  void unregister_connection(Link* connection);
  template <typename F>
  void for_each_connection(F&& f);

  const ServerOptions options;
  const Handler handler;
  net::io_context io{std::max(1, options.threads)};
  std::unique_ptr<tcp::acceptor> acceptor;
  std::vector<std::thread> threads;
  std::atomic<bool> draining{false};
  std::atomic<bool> stopped{false};
  std::atomic<std::size_t> in_flight{0};
  std::atomic<std::size_t> open_connections{0};
  std::uint16_t bound_port = 0;
  std::unique_ptr<net::ssl::context> tls;  // set by start() with TLS files: connections speak TLS

  std::mutex connections_mutex;
  std::unordered_map<Link*, std::weak_ptr<Link>> connections;  // guarded
};

template <typename F>
void Server::Impl::for_each_connection(F&& f) {
  std::vector<std::shared_ptr<Link>> live;
  {
    std::lock_guard lock(connections_mutex);
    for (auto& [raw, weak] : connections) {
      if (auto c = weak.lock()) live.push_back(std::move(c));
    }
  }
  for (auto& c : live)
    f(*c);
}

}  // namespace supportd::http
