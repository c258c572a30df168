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

net::awaitable<void> HttpClient::stream(const HttpRequestParts& parts, Clock::time_point start,
                                        Clock::time_point sent, RequestResult& r) {
  const auto deadline = sent + request_timeout_;
  auto now_s = [start] { return seconds_between(start, Clock::now()); };
  auto fail = [&](std::string kind, const boost::system::error_code& ec) {
    r.outcome = Outcome::kError;
    r.kind = interrupted_ ? "interrupted" : std::move(kind);
    r.detail = ec.message();
    r.end_s = now_s();
  };

  bhttp::request<bhttp::string_body> request{bhttp::verb::post, target_.path(parts.path), 11};
  request.set(bhttp::field::host, host_header_);
  request.set(bhttp::field::user_agent, "supportd-bench");
  request.set(bhttp::field::content_type, "application/json");
  for (const auto& [name, value] : parts.headers)
    request.set(name, value);
  request.body() = parts.body;
  request.prepare_payload();

  std::unique_ptr<Stream> stream;
  bool reused = false;
  if (!idle_.empty()) {
    stream = std::move(idle_.back());
    idle_.pop_back();
    reused = true;
  }
  struct Untrack {  // the connection leaves active_ however this coroutine ends
    std::unordered_set<Stream*>& active;
    std::unique_ptr<Stream>& stream;
    ~Untrack() {
      if (stream) active.erase(stream.get());
    }
  } untrack{active_, stream};

  beast::flat_buffer buffer;
  std::optional<bhttp::response_parser<bhttp::buffer_body>> parser;
  for (;;) {
    if (!stream) {
      stream = std::make_unique<Stream>(io_);
      active_.insert(stream.get());
      stream->expires_at(std::min(deadline, Clock::now() + connect_timeout_));
      auto [cec, endpoint] = co_await stream->async_connect(endpoints_, as_tuple(use_awaitable));
      if (cec) {
        fail(socket_error_kind(cec, true), cec);
        co_return;
      }
      boost::system::error_code ignored;
      stream->socket().set_option(tcp::no_delay(true), ignored);
    } else {
      active_.insert(stream.get());
    }
    stream->expires_at(deadline);
    auto [wec, written] = co_await bhttp::async_write(*stream, request, as_tuple(use_awaitable));
    boost::system::error_code ec = wec;
    if (!ec) {
      parser.emplace();
      parser->body_limit(boost::none);
      buffer.clear();
      auto [hec, header_bytes] =
          co_await bhttp::async_read_header(*stream, buffer, *parser, as_tuple(use_awaitable));
      if (!hec) break;
      ec = hec;
    }
    // A kept-alive connection the server closed meanwhile: retry once on a fresh one.
    if (reused && !interrupted_ && ec != beast::error::timeout) {
      active_.erase(stream.get());
      stream.reset();
      reused = false;
      continue;
    }
    fail(socket_error_kind(ec, false), ec);
    co_return;
  }

  r.header_s = now_s();
  r.status = static_cast<int>(parser->get().result_int());
  if (const auto it = parser->get().find(bhttp::field::retry_after); it != parser->get().end())
    r.retry_after_s = parse_retry_after(it->value());

  engine::upstream::SseParser events;
  StreamReader reader;
  std::string error_body;
  bool done_seen = false;
  boost::system::error_code ec;
  char chunk[16384];
  while (!parser->is_done()) {
    parser->get().body().data = chunk;
    parser->get().body().size = sizeof(chunk);
    auto [rec, n] =
        co_await bhttp::async_read_some(*stream, buffer, *parser, as_tuple(use_awaitable));
    if (rec == bhttp::error::need_buffer) rec = {};
    const std::size_t got = sizeof(chunk) - parser->get().body().size;
    if (got > 0 && r.status != 200 && error_body.size() < kErrorBodyLimit) {
      error_body.append(chunk, got);
    } else if (got > 0 && r.status == 200) {
      const auto offset = static_cast<float>(seconds_between(sent, Clock::now()));
      for (const std::string& data : events.feed(std::string_view(chunk, got))) {
        const std::size_t before = reader.token_times().size();
        reader.on_event(data, offset);
        token_events_ += static_cast<std::int64_t>(reader.token_times().size() - before);
        if (reader.done() && !done_seen) {
          done_seen = true;
          r.end_s = now_s();
          stream->expires_after(std::chrono::seconds(1));  // only the message's end is left
        }
      }
    }
    if (rec) {
      ec = rec;
      break;
    }
  }

  if (r.status == 200) {
    r.prompt_tokens = reader.prompt_tokens();
    r.completion_tokens = reader.completion_tokens();
    r.cached_tokens = reader.cached_tokens();
    r.token_s = reader.take_token_times();
    if (reader.failed()) {
      r.outcome = Outcome::kError;
      r.kind = reader.failure();
    } else if (done_seen) {
      r.outcome = Outcome::kOk;
    } else {
      fail(ec == beast::error::timeout ? "timeout" : "incomplete_stream", ec);
    }
    if (!done_seen) r.end_s = now_s();
  } else {
    r.end_s = now_s();
    r.kind = response_kind(r.status, error_body);
    r.outcome = r.status == 429 || r.status == 503 ? Outcome::kRejected : Outcome::kError;
    r.detail = error_body.substr(0, 300);
  }
  if (!ec && parser->is_done() && parser->keep_alive() && !interrupted_ && !closed_) {
    active_.erase(stream.get());
    idle_.push_back(std::move(stream));
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
