// The load tester's HTTP client (http_client.h): one streamed completion per stream() call, in
// steps (send: connect or reuse, write, read the header; receive: the body's events as they
// arrive; finish: the outcome and the connection back to the idle pool), and the side GETs.
#include "bench/http_client.h"

#include <fmt/format.h>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <optional>
#include <tuple>

#include "bench/stream_reader.h"
#include "engine/upstream/sse_parser.h"

namespace supportd::bench {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
using tcp = net::ip::tcp;
using net::as_tuple;
using net::use_awaitable;

namespace {

constexpr std::size_t kErrorBodyLimit = 64 * 1024;
constexpr std::size_t kGetBodyLimit = 16 * 1024 * 1024;

std::string socket_error_kind(const boost::system::error_code& ec, bool connecting) {
  if (ec == beast::error::timeout) return connecting ? "connect_timeout" : "timeout";
  if (ec == net::error::connection_refused) return "connect_refused";
  if (connecting) return "connect_error";
  if (ec == net::error::connection_reset || ec == net::error::broken_pipe)
    return "connection_reset";
  if (ec == bhttp::error::end_of_stream || ec == net::error::eof) return "connection_closed";
  return "connection_error";
}

HttpClient::Clock::duration span(double seconds) {
  return std::chrono::duration_cast<HttpClient::Clock::duration>(
      std::chrono::duration<double>(seconds));
}

double seconds_between(HttpClient::Clock::time_point from, HttpClient::Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

}  // namespace

HttpClient::HttpClient(net::io_context& io, Target target, std::string url, std::string side_key,
                       double connect_timeout_s, double request_timeout_s)
    : io_(io),
      target_(std::move(target)),
      url_(std::move(url)),
      side_key_(std::move(side_key)),
      connect_timeout_(span(connect_timeout_s)),
      request_timeout_(span(request_timeout_s)) {
  const bool ipv6 = target_.host.find(':') != std::string::npos;
  host_header_ = (ipv6 ? "[" + target_.host + "]" : target_.host) + ":" + target_.port;
}

net::awaitable<Status> HttpClient::resolve() {
  tcp::resolver resolver(io_);
  auto [ec, results] =
      co_await resolver.async_resolve(target_.host, target_.port, as_tuple(use_awaitable));
  if (ec) {
    co_return Error::make(ErrorCode::kUnavailable,
                          fmt::format("cannot resolve {}: {}", target_.host, ec.message()));
  }
  endpoints_ = results;
  co_return Status::ok_status();
}

void HttpClient::interrupt() {
  interrupted_ = true;
  boost::system::error_code ignored;
  for (Stream* stream : active_)
    stream->socket().close(ignored);
}

void HttpClient::close() {
  closed_ = true;
  boost::system::error_code ignored;
  if (side_) side_->socket().close(ignored);  // a GET awaiting on it ends and releases it
  idle_.clear();
}

// One stream() call: the request, its connection (tracked in active_ while it is used, so
// interrupt() can close it), and what the response brought so far.
struct HttpClient::Exchange {
  using Parser = bhttp::response_parser<bhttp::buffer_body>;

  Exchange(HttpClient& client, bhttp::request<bhttp::string_body> request, Clock::time_point start,
           Clock::time_point sent)
      : client(client),
        request(std::move(request)),
        start(start),
        sent(sent),
        deadline(sent + client.request_timeout_) {}
  ~Exchange() {  // the connection leaves active_ however the coroutine ends
    if (stream) client.active_.erase(stream.get());
  }

  double now_s() const { return seconds_between(start, Clock::now()); }
  // Marks `result` failed with `kind` ("interrupted" after interrupt()), ending now.
  void fail(RequestResult& result, std::string kind, const boost::system::error_code& ec) const {
    result.outcome = Outcome::kError;
    result.kind = client.interrupted_ ? "interrupted" : std::move(kind);
    result.detail = ec.message();
    result.end_s = now_s();
  }

  HttpClient& client;
  bhttp::request<bhttp::string_body> request;
  const Clock::time_point start, sent, deadline;
  std::unique_ptr<Stream> stream;
  beast::flat_buffer buffer;
  std::optional<Parser> parser;
  StreamReader reader;
  std::string error_body;  // a non-200 answer's first bytes
  bool done_seen = false;  // [DONE] arrived
  boost::system::error_code read_error;
};

net::awaitable<void> HttpClient::stream(const HttpRequestParts& parts, Clock::time_point start,
                                        Clock::time_point sent, RequestResult& result) {
  bhttp::request<bhttp::string_body> request{bhttp::verb::post, target_.path(parts.path), 11};
  request.set(bhttp::field::host, host_header_);
  request.set(bhttp::field::user_agent, "supportd-bench");
  request.set(bhttp::field::content_type, "application/json");
  for (const auto& [name, value] : parts.headers)
    request.set(name, value);
  request.body() = parts.body;
  request.prepare_payload();

  Exchange exchange(*this, std::move(request), start, sent);
  if (!co_await send(exchange, result)) co_return;
  co_await receive(exchange, result);
  finish(exchange, result);
}

net::awaitable<bool> HttpClient::send(Exchange& x, RequestResult& result) {
  bool reused = false;
  if (!idle_.empty()) {
    x.stream = std::move(idle_.back());
    idle_.pop_back();
    reused = true;
  }
  for (;;) {
    if (!x.stream) {
      x.stream = std::make_unique<Stream>(io_);
      active_.insert(x.stream.get());
      x.stream->expires_at(std::min(x.deadline, Clock::now() + connect_timeout_));
      auto [cec, endpoint] = co_await x.stream->async_connect(endpoints_, as_tuple(use_awaitable));
      if (cec) {
        x.fail(result, socket_error_kind(cec, true), cec);
        co_return false;
      }
      boost::system::error_code ignored;
      x.stream->socket().set_option(tcp::no_delay(true), ignored);
    } else {
      active_.insert(x.stream.get());
    }
    x.stream->expires_at(x.deadline);
    auto [wec, written] =
        co_await bhttp::async_write(*x.stream, x.request, as_tuple(use_awaitable));
    boost::system::error_code ec = wec;
    if (!ec) {
      x.parser.emplace();
      x.parser->body_limit(boost::none);
      x.buffer.clear();
      auto [hec, header_bytes] = co_await bhttp::async_read_header(*x.stream, x.buffer, *x.parser,
                                                                   as_tuple(use_awaitable));
      if (!hec) break;
      ec = hec;
    }
    // A kept-alive connection the server closed meanwhile: retry once on a fresh one.
    if (reused && !interrupted_ && ec != beast::error::timeout) {
      active_.erase(x.stream.get());
      x.stream.reset();
      reused = false;
      continue;
    }
    x.fail(result, socket_error_kind(ec, false), ec);
    co_return false;
  }
  result.header_s = x.now_s();
  result.status = static_cast<int>(x.parser->get().result_int());
  const auto& header = x.parser->get();
  if (const auto it = header.find(bhttp::field::retry_after); it != header.end())
    result.retry_after_s = parse_retry_after(it->value());
  co_return true;
}

net::awaitable<void> HttpClient::receive(Exchange& x, RequestResult& result) {
  engine::upstream::SseParser events;
  char chunk[16384];
  while (!x.parser->is_done()) {
    x.parser->get().body().data = chunk;
    x.parser->get().body().size = sizeof(chunk);
    auto [rec, n] =
        co_await bhttp::async_read_some(*x.stream, x.buffer, *x.parser, as_tuple(use_awaitable));
    if (rec == bhttp::error::need_buffer) rec = {};
    const std::size_t got = sizeof(chunk) - x.parser->get().body().size;
    if (got > 0 && result.status != 200 && x.error_body.size() < kErrorBodyLimit) {
      x.error_body.append(chunk, got);
    } else if (got > 0 && result.status == 200) {
      const auto offset = static_cast<float>(seconds_between(x.sent, Clock::now()));
      for (const std::string& data : events.feed(std::string_view(chunk, got))) {
        const std::size_t before = x.reader.token_times().size();
        x.reader.on_event(data, offset);
        token_events_ += static_cast<std::int64_t>(x.reader.token_times().size() - before);
        if (x.reader.done() && !x.done_seen) {
          x.done_seen = true;
          result.end_s = x.now_s();
          x.stream->expires_after(std::chrono::seconds(1));  // only the message's end is left
        }
      }
      if (events.overflowed()) {  // an event past any sane size: the stream is given up
        x.read_error = bhttp::error::body_limit;
        break;
      }
    }
    if (rec) {
      x.read_error = rec;
      break;
    }
  }
}

void HttpClient::finish(Exchange& x, RequestResult& result) {
  if (result.status == 200) {
    result.prompt_tokens = x.reader.prompt_tokens();
    result.completion_tokens = x.reader.completion_tokens();
    result.cached_tokens = x.reader.cached_tokens();
    result.queued_ms = x.reader.queued_ms();
    result.served_by = x.reader.model();
    result.token_s = x.reader.take_token_times();
    if (x.reader.failed()) {
      result.outcome = Outcome::kError;
      result.kind = x.reader.failure();
    } else if (x.done_seen) {
      result.outcome = Outcome::kOk;
    } else {
      x.fail(result, x.read_error == beast::error::timeout ? "timeout" : "incomplete_stream",
             x.read_error);
    }
    if (!x.done_seen) result.end_s = x.now_s();
  } else {
    result.end_s = x.now_s();
    result.kind = response_kind(result.status, x.error_body);
    result.outcome =
        result.status == 429 || result.status == 503 ? Outcome::kRejected : Outcome::kError;
    result.detail = x.error_body.substr(0, 300);
  }
  if (!x.read_error && x.parser->is_done() && x.parser->keep_alive() && !interrupted_ && !closed_) {
    active_.erase(x.stream.get());
    idle_.push_back(std::move(x.stream));
  }
}

net::awaitable<Result<Fetched>> HttpClient::get(const std::string& path, Clock::duration timeout) {
  const std::string where = url_ + " (" + path + ")";
  for (int attempt = 0;; ++attempt) {
    const bool reused = side_ != nullptr;
    if (!side_) {
      side_ = std::make_unique<Stream>(io_);
      side_->expires_after(timeout);
      auto [cec, endpoint] = co_await side_->async_connect(endpoints_, as_tuple(use_awaitable));
      if (cec) {
        side_.reset();
        co_return Error::make(ErrorCode::kUnavailable,
                              fmt::format("cannot connect to {}: {}", where, cec.message()));
      }
    }
    side_->expires_after(timeout);
    bhttp::request<bhttp::empty_body> request{bhttp::verb::get, path, 11};
    request.set(bhttp::field::host, host_header_);
    request.set(bhttp::field::user_agent, "supportd-bench");
    if (!side_key_.empty()) request.set(bhttp::field::authorization, "Bearer " + side_key_);
    auto [wec, written] = co_await bhttp::async_write(*side_, request, as_tuple(use_awaitable));
    beast::flat_buffer buffer;
    bhttp::response_parser<bhttp::string_body> parser;
    parser.body_limit(kGetBodyLimit);
    boost::system::error_code ec = wec;
    if (!ec)
      std::tie(ec, std::ignore) =
          co_await bhttp::async_read(*side_, buffer, parser, as_tuple(use_awaitable));
    if (ec) {
      side_.reset();
      if (reused && attempt == 0 && !closed_) continue;
      co_return Error::make(ErrorCode::kUnavailable,
                            fmt::format("{} did not answer: {}", where, ec.message()));
    }
    Fetched fetched{static_cast<int>(parser.get().result_int()), std::move(parser.get().body())};
    if (!parser.keep_alive() || closed_) side_.reset();
    co_return fetched;
  }
}

}  // namespace supportd::bench
