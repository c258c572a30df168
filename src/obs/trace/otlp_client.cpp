// POSTs to an OTLP/HTTP collector with Boost.Beast (see otlp_client.h): a private io_context
// run by the calling thread until the exchange ends or its deadline passes.
#include "obs/trace/otlp_client.h"

#include <charconv>
#include <optional>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace supportd::obs::trace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
using tcp = net::ip::tcp;
using net::as_tuple;
using net::use_awaitable;

struct OtlpClient::Impl {
  HttpUrl url;
  Headers headers;
  net::io_context io{1};
  tcp::resolver resolver{io};
  std::optional<beast::tcp_stream> stream;  // kept alive between calls
  beast::flat_buffer buffer;

  net::awaitable<Result<Reply>> exchange(std::string_view body,
                                         std::chrono::steady_clock::time_point deadline);
  Result<Reply> run(std::string_view body, std::chrono::steady_clock::time_point deadline);
  void drop() {
    if (stream) {
      boost::system::error_code ignored;
      stream->socket().close(ignored);
      stream.reset();
    }
    buffer.clear();
  }
};

namespace {

Error unavailable(std::string_view what, const boost::system::error_code& ec) {
  return Error::make(ErrorCode::kUnavailable, std::string(what) + ": " + ec.message());
}

int retry_after_seconds(std::string_view value) {
  int seconds = -1;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  return ec == std::errc() && end == value.data() + value.size() && seconds >= 0 ? seconds : -1;
}

}  // namespace

net::awaitable<Result<OtlpClient::Reply>> OtlpClient::Impl::exchange(
    std::string_view body, std::chrono::steady_clock::time_point deadline) {
  if (!stream) {
    auto [rec, endpoints] =
        co_await resolver.async_resolve(url.host, url.port, as_tuple(use_awaitable));
    if (rec) co_return unavailable("cannot resolve " + url.host, rec);
    stream.emplace(io);
    stream->expires_at(deadline);
    auto [cec, connected] = co_await stream->async_connect(endpoints, as_tuple(use_awaitable));
    if (cec) co_return unavailable("cannot connect to " + url.host + ":" + url.port, cec);
  }
  // The body is sent from the caller's memory (a batch of up to hundreds of KiB): no copy.
  bhttp::request<bhttp::span_body<const char>> request{bhttp::verb::post, url.path, 11};
  request.set(bhttp::field::host, url.host + ":" + url.port);
  request.set(bhttp::field::content_type, "application/x-protobuf");
  request.set(bhttp::field::user_agent, "supportd-otlp");
  for (const auto& [name, value] : headers)
    request.set(name, value);
  request.body() = beast::span<const char>(body.data(), body.size());
  request.keep_alive(true);
  request.prepare_payload();
  stream->expires_at(deadline);
  auto [wec, written] = co_await bhttp::async_write(*stream, request, as_tuple(use_awaitable));
  if (wec) co_return unavailable("cannot send to " + url.host, wec);
  bhttp::response_parser<bhttp::string_body> parser;
  parser.body_limit(1 << 20);
  auto [ec, read] = co_await bhttp::async_read(*stream, buffer, parser, as_tuple(use_awaitable));
  if (ec) co_return unavailable("no answer from " + url.host, ec);
  const auto& response = parser.get();
  Reply reply;
  reply.status = static_cast<int>(response.result_int());
  if (auto it = response.find(bhttp::field::retry_after); it != response.end())
    reply.retry_after_s = retry_after_seconds(it->value());
  reply.body = response.body();
  if (!response.keep_alive()) drop();
  co_return reply;
}

Result<OtlpClient::Reply> OtlpClient::Impl::run(std::string_view body,
                                                std::chrono::steady_clock::time_point deadline) {
  std::optional<Result<Reply>> result;
  io.restart();
  net::co_spawn(io, exchange(body, deadline),
                [&result](std::exception_ptr error, Result<Reply> reply) {
                  if (error) {
                    result = Error::make(ErrorCode::kInternal, "OTLP exchange failed");
                  } else {
                    result = std::move(reply);
                  }
                });
  io.run_until(deadline);
  if (!result) {  // the deadline passed (a resolver waiting on DNS): cancel, let it unwind
    resolver.cancel();
    if (stream) {
      boost::system::error_code ignored;
      stream->socket().close(ignored);
    }
    io.restart();
    io.run();
    drop();
    return Error::make(ErrorCode::kUnavailable, "no answer from " + url.host + " in time");
  }
  if (!result->ok()) drop();
  return std::move(*result);
}

OtlpClient::OtlpClient(HttpUrl url, Headers headers) : impl_(std::make_unique<Impl>()) {
  impl_->url = std::move(url);
  if (impl_->url.path.empty()) impl_->url.path = "/";
  impl_->headers = std::move(headers);
}

OtlpClient::~OtlpClient() {
  impl_->drop();
}

Result<OtlpClient::Reply> OtlpClient::post(std::string_view body,
                                           std::chrono::steady_clock::time_point deadline) {
  const bool reused = impl_->stream.has_value();
  auto reply = impl_->run(body, deadline);
  // A kept-alive connection the collector closed meanwhile fails at once: try a fresh one.
  if (!reply && reused && std::chrono::steady_clock::now() < deadline) {
    reply = impl_->run(body, deadline);
  }
  return reply;
}

}  // namespace supportd::obs::trace
