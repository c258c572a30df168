// Server: the acceptor and I/O threads, the set of open connections, and graceful stopping
// (stop accepting, wait for requests in flight, then close what is left).
#include "http/server.h"

#include <spdlog/spdlog.h>

#include "http/server_impl.h"
#include "http/tls_context.h"

namespace supportd::http {

Server::Server(ServerOptions options, Handler handler)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(handler))) {}

Server::~Server() {
  stop();
}

Status Server::start() {
  const auto& o = impl_->options;
  boost::system::error_code ec;
  const auto address = net::ip::make_address(o.host, ec);
  if (ec) return Error::invalid("invalid listen address '" + o.host + "'", "host");
  if (o.tls.enabled()) {
    auto context = make_tls_context(o.tls);
    if (!context) return context.error();
    impl_->tls = std::move(context).value();
  }
  const tcp::endpoint endpoint(address, o.port);
  auto acceptor = std::make_unique<tcp::acceptor>(impl_->io);
  acceptor->open(endpoint.protocol(), ec);
  if (!ec) acceptor->set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor->bind(endpoint, ec);
  if (!ec) acceptor->listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    return Error::make(ErrorCode::kIo, "cannot listen on " + o.host + ":" + std::to_string(o.port) +
                                           ": " + ec.message());
  }
  impl_->bound_port = acceptor->local_endpoint().port();
  impl_->acceptor = std::move(acceptor);
  net::co_spawn(impl_->io, impl_->accept_loop(), net::detached);
  for (int i = 0; i < std::max(1, o.threads); ++i) {
    impl_->threads.emplace_back([this] {
      for (;;) {
        try {
          impl_->io.run();
          return;
        } catch (const std::exception& e) {
          spdlog::error("http: unexpected exception in an I/O thread: {}", e.what());
        }
      }
    });
  }
  return {};
}

std::uint16_t Server::port() const {
  return impl_->bound_port;
}

net::awaitable<void> Server::Impl::accept_loop() {
  for (;;) {
    auto strand = net::make_strand(io);
    auto [ec, socket] = co_await acceptor->async_accept(strand, net::as_tuple(net::use_awaitable));
    if (ec) {
      if (ec == net::error::operation_aborted || !acceptor->is_open() || draining) co_return;
      // Out of file descriptors and the like: keep serving the connections we have.
      spdlog::warn("http: accept failed: {}", ec.message());
      net::steady_timer pause(io, std::chrono::milliseconds(50));
      co_await pause.async_wait(net::as_tuple(net::use_awaitable));
      continue;
    }
    socket.set_option(tcp::no_delay(true), ec);
    if (tls) {
      start_connection(strand, std::make_shared<Connection<TlsStream>>(
                                   *this, TlsStream(std::move(socket), *tls)));
    } else {
      start_connection(
          strand, std::make_shared<Connection<PlainStream>>(*this, PlainStream(std::move(socket))));
    }
  }
}

template <typename Stream>
void Server::Impl::start_connection(const net::any_io_executor& strand,
                                    std::shared_ptr<Connection<Stream>> connection) {
  register_connection(connection);
  net::co_spawn(strand, Connection<Stream>::run(std::move(connection)), net::detached);
}

void Server::Impl::register_connection(const std::shared_ptr<Link>& connection) {
  std::lock_guard lock(connections_mutex);
  connections.emplace(connection.get(), connection);
  ++open_connections;
}

void Server::Impl::unregister_connection(Link* connection) {
  std::lock_guard lock(connections_mutex);
  if (connections.erase(connection) > 0) --open_connections;
}

void Server::stop_accepting() {
  if (impl_->draining.exchange(true)) return;
  if (impl_->acceptor) {
    net::post(impl_->io, [impl = impl_.get()] {
      boost::system::error_code ec;
      impl->acceptor->close(ec);
    });
  }
  impl_->for_each_connection([](Link& c) { c.close_if_idle(); });
}

bool Server::wait_idle(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (impl_->in_flight.load() > 0) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

void Server::stop() {
  if (!impl_ || impl_->stopped.exchange(true)) return;
  stop_accepting();
  impl_->for_each_connection([](Link& c) { c.close(); });
  // Let the closed connections unwind, then stop the loop.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (impl_->open_connections.load() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  impl_->io.stop();
  for (auto& t : impl_->threads) {
    if (t.joinable()) t.join();
  }
  // The close stop_accepting() posted may not have run before the loop stopped (with no
  // connection to unwind it stops at once): the listening socket is closed here too, now that
  // no thread runs the loop, so the port refuses at once instead of taking connections that
  // nobody serves until the server is destroyed.
  if (impl_->acceptor) {
    boost::system::error_code ignored;
    impl_->acceptor->close(ignored);
  }
}

std::size_t Server::connections() const {
  return impl_->open_connections.load();
}
std::size_t Server::requests_in_flight() const {
  return impl_->in_flight.load();
}

}  // namespace supportd::http
