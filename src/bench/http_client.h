// The load tester's HTTP side for one target: keep-alive connections reused between requests,
// one streamed completion per call (server-sent events read as they arrive, every token
// timestamped), and small GETs on a side connection of their own. Beast on the caller's
// io_context; runner.cpp decides what to send and when.
// Thread-safety: none; every call on the io_context's one thread.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/tcp_stream.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "bench/request_builder.h"
#include "bench/run_record.h"
#include "bench/target.h"
#include "core/status.h"

namespace supportd::bench {

struct Fetched {
  int status = 0;
  std::string body;
};

class HttpClient {
 public:
  using Clock = std::chrono::steady_clock;

  // `url` names the target in error messages; `side_key` (if any) authorizes the GETs.
  HttpClient(boost::asio::io_context& io, Target target, std::string url, std::string side_key,
             double connect_timeout_s, double request_timeout_s);

  // kUnavailable naming the host when it does not resolve. Before any other call.
  boost::asio::awaitable<Status> resolve();

  // Sends one request at `sent` and reads its streamed answer into `result`: status, header
  // and end times (seconds since `start`), Retry-After, token times and usage, outcome and
  // kind. Socket failures are outcomes (kind "connect_refused", "timeout", ... or
  // "interrupted" after interrupt()), never exceptions. A kept-alive connection the server
  // closed meanwhile is retried once on a fresh one.
  boost::asio::awaitable<void> stream(const HttpRequestParts& parts, Clock::time_point start,
                                      Clock::time_point sent, RequestResult& result);

  // GET `path` on the side connection (opened on first use, reused after); kUnavailable
  // naming the URL when the server cannot be reached or does not answer within `timeout`.
  boost::asio::awaitable<Result<Fetched>> get(const std::string& path, Clock::duration timeout);

  // Closes the connections of requests in flight; their results read "interrupted".
  void interrupt();
  // The run is over: nothing is reused or retried any more; idle and side connections close.
  void close();

  // Token events seen so far over every stream (for the progress line's rate).
  std::int64_t token_events() const { return token_events_; }

 private:
  using Stream = boost::beast::tcp_stream;
  struct Exchange;  // one stream() call's connection, buffer and response (http_client.cpp)

  // stream()'s steps. send: a connection (an idle one, else a new one), the request written
  // and the response's header read; a kept-alive connection the server closed meanwhile is
  // retried once on a fresh one; false, with `result` failed, when no header came.
  boost::asio::awaitable<bool> send(Exchange& exchange, RequestResult& result);
  // receive: the body as it arrives, a 200's events into token times (and the end time at
  // [DONE]), another status's first bytes kept for its kind.
  boost::asio::awaitable<void> receive(Exchange& exchange, RequestResult& result);
  // finish: the outcome from what was read; the connection back to idle_ when reusable.
  void finish(Exchange& exchange, RequestResult& result);

  boost::asio::io_context& io_;
  const Target target_;
  const std::string url_;
  const std::string side_key_;
  const Clock::duration connect_timeout_, request_timeout_;
  std::string host_header_;
  boost::asio::ip::tcp::resolver::results_type endpoints_;
  std::vector<std::unique_ptr<Stream>> idle_;  // keep-alive connections ready for reuse
  std::unordered_set<Stream*> active_;         // connections of requests in flight
  std::unique_ptr<Stream> side_;               // the GETs' connection
  std::int64_t token_events_ = 0;
  bool interrupted_ = false;
  bool closed_ = false;
};

}  // namespace supportd::bench
