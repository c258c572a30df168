// The benchmark run (runner.h): the Runner class drives closed-loop users or open-loop arrivals on
// one Asio thread, bounds the run (requests, duration, max time, SIGINT), polls the server's
// queue, samples the client's state and draws the progress line.
#include "bench/runner.h"

#include <fmt/format.h>
#include <boost/asio.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <unordered_set>

#include "bench/http_client.h"
#include "bench/progress_line.h"
#include "bench/request_builder.h"
#include "bench/run_environment.h"
#include "bench/server_stats.h"
#include "bench/stream_reader.h"
#include "bench/target.h"

namespace supportd::bench {

namespace net = boost::asio;
using net::as_tuple;
using net::use_awaitable;
using Clock = HttpClient::Clock;

namespace {

constexpr auto kPollInterval = std::chrono::seconds(1);
constexpr auto kPollTimeout = std::chrono::seconds(2);
constexpr auto kTickInterval = std::chrono::milliseconds(250);

Clock::duration span(double seconds) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

double seconds_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

}  // namespace

class Runner {
 public:
  Runner(const BenchOptions& options, Target target, int file_limit)
      : options_(options),
        target_(std::move(target)),
        client_(io_, target_, options.url, side_key(options), options.connect_timeout_s,
                options.request_timeout_s),
        workload_(options.workload),
        progress_(options.progress),
        max_outstanding_(std::min(options.max_outstanding, std::max(1, file_limit - 64))) {}

  Result<RunRecord> run() {
    net::co_spawn(io_, main(), [this](std::exception_ptr e) {
      if (!e) return;
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& x) {
        failure_ =
            Error::make(ErrorCode::kInternal, std::string("bench client failed: ") + x.what());
      }
    });
    const double cpu_before = thread_cpu_seconds();
    io_.run();
    record_.client_cpu_s = thread_cpu_seconds() - cpu_before;
    record_.client_peak_rss_mib = peak_rss_mib();
    progress_.finish();
    if (failure_) return *failure_;
    return std::move(record_);
  }

 private:
  double now_s() const { return seconds_between(start_, Clock::now()); }

  // Whether another request may start; turns sending off once a bound is reached.
  bool may_send() {
    if (!sending_) return false;
    const bool count_reached = options_.requests > 0 && measured_issued_ >= options_.requests;
    const bool time_reached = options_.duration_s > 0 && record_.measure_start_s >= 0 &&
                              now_s() - record_.measure_start_s >= options_.duration_s;
    if (count_reached || time_reached) stop_sending();
    return sending_;
  }

  // Ends the run now: no more requests, and those in flight are abandoned (kind "interrupted").
  void cut(const char* reason) {
    if (record_.interrupted) return;
    record_.interrupted = true;
    record_.cut_reason = reason;
    stop_sending();
    client_.interrupt();
  }

  void stop_sending() {
    if (!sending_) return;
    sending_ = false;
    for (net::steady_timer* timer : sleepers_)
      timer->cancel();
    wake_.cancel();
  }

  // Waits until `when`; false when sending stopped meanwhile (the wait is cut short then).
  net::awaitable<bool> sleep_until(Clock::time_point when) {
    if (!sending_) co_return false;
    net::steady_timer timer(io_, when);
    sleepers_.insert(&timer);
    auto [ec] = co_await timer.async_wait(as_tuple(use_awaitable));
    sleepers_.erase(&timer);
    co_return !ec && sending_;
  }

  // A user or the arrival loop ended (with an exception: the run fails, keeping its record).
  void sender_done(std::exception_ptr e) {
    if (e) {
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& x) {
        failure_ =
            Error::make(ErrorCode::kInternal, std::string("bench client failed: ") + x.what());
      }
      cut("error");
    }
    if (--senders_ == 0) stop_sending();
    wake_.cancel();
  }

  net::awaitable<void> main();
  net::awaitable<void> user(int number);
  net::awaitable<void> arrivals();
  std::optional<RequestResult> begin(const RequestSpec& spec, double scheduled_s);
  net::awaitable<void> issue(RequestSpec spec, RequestResult result);
  net::awaitable<void> poll_server();
  net::awaitable<void> tick();
  void finish(RequestResult result);
  std::string progress_text() const;

  // The key that authorizes the server polls: the run's, else the first tenant's.
  static std::string side_key(const BenchOptions& options) {
    if (options.api_key.empty() && !options.workload.tenants.empty())
      return options.workload.tenants.front().key;
    return options.api_key;
  }

  // Constant after construction.
  const BenchOptions& options_;
  const Target target_;

  // Everything below is touched only on the I/O thread (the one in run()).
  net::io_context io_{1};
  HttpClient client_;
  Workload workload_;
  RunRecord record_;
  ProgressLine progress_;
  int max_outstanding_;
  std::optional<Error> failure_;
  Clock::time_point start_ = Clock::now();
  std::unordered_set<net::steady_timer*> sleepers_;
  net::steady_timer wake_{io_};  // main() waits on it for the end
  net::steady_timer tick_timer_{io_};
  net::steady_timer poll_timer_{io_};
  int senders_ = 0;  // user or arrival coroutines still running
  int outstanding_ = 0;
  std::int64_t issued_ = 0, measured_issued_ = 0;
  std::int64_t ok_ = 0, rejected_ = 0, errors_ = 0, warmups_done_ = 0;
  std::int64_t tokens_at_last_sample_ = 0;
  double token_rate_ = 0;
  bool sending_ = true;
  bool finishing_ = false;
};

net::awaitable<void> Runner::main() {
  if (Status resolved = co_await client_.resolve(); !resolved) {
    failure_ = resolved.error();
    co_return;
  }
  if (options_.model.empty()) {
    const auto timeout = span(options_.connect_timeout_s);
    auto listing = co_await client_.get(target_.path("/v1/models"), timeout);
    if (!listing) {
      failure_ = listing.error();
      co_return;
    }
    if (listing->status != 200) {
      failure_ = Error::make(
          ErrorCode::kUnavailable,
          fmt::format("GET {}/v1/models answered HTTP {}; is --url right? (or pass --model)",
                      options_.url, listing->status));
      co_return;
    }
    auto id = first_model_id(listing->body);
    if (!id) {
      failure_ = Error::make(
          ErrorCode::kUnavailable,
          fmt::format("GET {}/v1/models: {}; pass --model", options_.url, id.error().message));
      co_return;
    }
    record_.model = *id;
  } else {
    record_.model = options_.model;
  }

  start_ = Clock::now();
  record_.started_at = utc_timestamp();
  net::signal_set signals(io_, SIGINT, SIGTERM);
  signals.async_wait([this](const boost::system::error_code& ec, int) {
    if (!ec) cut("signal");
  });
  net::co_spawn(io_, tick(), net::detached);
  net::co_spawn(io_, poll_server(), net::detached);
  if (options_.mode == LoadMode::kClosed) {
    senders_ = options_.concurrency;
    for (int u = 0; u < options_.concurrency; ++u)
      net::co_spawn(io_, user(u), [this](std::exception_ptr e) { sender_done(e); });
  } else {
    senders_ = 1;
    net::co_spawn(io_, arrivals(), [this](std::exception_ptr e) { sender_done(e); });
  }
  while (senders_ > 0 || outstanding_ > 0) {
    wake_.expires_at(Clock::time_point::max());
    co_await wake_.async_wait(as_tuple(use_awaitable));
  }
  record_.end_s = now_s();
  finishing_ = true;
  signals.cancel();
  tick_timer_.cancel();
  poll_timer_.cancel();
  client_.close();
}

net::awaitable<void> Runner::user(int number) {
  if (options_.ramp_up_s > 0 && number > 0) {
    const double delay = options_.ramp_up_s * number / options_.concurrency;
    co_await sleep_until(start_ + span(delay));
  }
  std::mt19937_64 random(options_.workload.seed ^ (0xd1b54a32d192ed03ULL * (number + 1)));
  while (may_send()) {
    const RequestSpec spec = workload_.next();
    if (auto result = begin(spec, -1)) co_await issue(spec, std::move(*result));
    const double think = options_.think_time.sample(random);
    if (think > 0 && !co_await sleep_until(Clock::now() + span(think))) {
      break;
    }
  }
}

net::awaitable<void> Runner::arrivals() {
  ArrivalSchedule schedule = options_.mode == LoadMode::kPoisson
                                 ? ArrivalSchedule::poisson(options_.rate, options_.workload.seed)
                                 : ArrivalSchedule::trace(options_.trace, options_.trace_speed);
  while (may_send()) {
    const std::optional<Arrival> arrival = schedule.next();
    if (!arrival) break;
    if (options_.duration_s > 0 && record_.measure_start_s >= 0 &&
        arrival->time_s > record_.measure_start_s + options_.duration_s) {
      break;
    }
    const auto when = start_ + span(arrival->time_s);
    if (Clock::now() < when && !co_await sleep_until(when)) break;
    if (!may_send()) break;
    const RequestSpec spec = workload_.next(arrival->values);
    if (auto result = begin(spec, arrival->time_s))
      net::co_spawn(io_, issue(spec, std::move(*result)), net::detached);
  }
}

// Bookkeeping at the moment a request starts, before any I/O; nothing when the client's own
// limit refuses it (then it is already recorded as an error).
std::optional<RequestResult> Runner::begin(const RequestSpec& spec, double scheduled_s) {
  RequestResult r;
  r.index = spec.index;
  r.priority = static_cast<int>(spec.priority);
  r.tenant = spec.tenant;
  r.repeated = spec.repeated;
  r.question_words = spec.question_words;
  r.max_tokens = spec.max_tokens;
  r.send_s = now_s();
  r.scheduled_s = scheduled_s < 0 ? r.send_s : scheduled_s;
  r.warmup = r.send_s < options_.warmup_s || issued_ < options_.warmup_requests;
  ++issued_;
  if (!r.warmup) {
    if (record_.measure_start_s < 0) record_.measure_start_s = r.send_s;
    ++measured_issued_;
  }
  if (scheduled_s >= 0)
    record_.max_lag_ms = std::max(record_.max_lag_ms, (r.send_s - scheduled_s) * 1000);
  if (outstanding_ >= max_outstanding_) {
    r.kind = "client_limit";
    r.detail = fmt::format("{} requests were already in flight (--max-outstanding)", outstanding_);
    r.end_s = r.send_s;
    finish(std::move(r));
    return std::nullopt;
  }
  ++outstanding_;
  record_.peak_outstanding = std::max(record_.peak_outstanding, outstanding_);
  return r;
}

net::awaitable<void> Runner::issue(RequestSpec spec, RequestResult result) {
  const Clock::time_point sent = start_ + span(result.send_s);
  try {
    const HttpRequestParts parts = build_request(options_, record_.model, workload_, spec);
    co_await client_.stream(parts, start_, sent, result);
  } catch (const std::exception& e) {
    result.outcome = Outcome::kError;
    result.kind = "client_exception";
    result.detail = e.what();
    result.end_s = now_s();
  }
  --outstanding_;
  finish(std::move(result));
}

net::awaitable<void> Runner::poll_server() {
  if (!options_.poll_server) co_return;
  // Which server is this? supportd answers /v1/stats; llama-server and vLLM expose /metrics.
  bool supportd = false;
  if (auto stats = co_await client_.get(target_.path("/v1/stats"), kPollTimeout);
      stats && stats->status == 200 && parse_supportd_stats(stats->body)) {
    supportd = true;
    record_.server_kind = "supportd";
  } else if (auto metrics = co_await client_.get(target_.path("/metrics"), kPollTimeout);
             metrics && metrics->status == 200) {
    if (auto parsed = parse_prometheus_queue(metrics->body))
      record_.server_kind = parsed->server_kind;
  }
  if (record_.server_kind.empty()) co_return;
  const std::string path = target_.path(supportd ? "/v1/stats" : "/metrics");
  while (!finishing_) {
    const double at = now_s();
    auto answer = co_await client_.get(path, kPollTimeout);
    if (answer && answer->status == 200) {
      std::optional<ServerSample> sample;
      if (supportd) {
        sample = parse_supportd_stats(answer->body);
      } else if (auto parsed = parse_prometheus_queue(answer->body)) {
        sample = parsed->sample;
      }
      if (sample) {
        sample->time_s = at;
        record_.server.push_back(*sample);
      }
    }
    if (finishing_) break;
    poll_timer_.expires_at(start_ + span(at) + kPollInterval);
    co_await poll_timer_.async_wait(as_tuple(use_awaitable));
  }
}

net::awaitable<void> Runner::tick() {
  double next_sample = 0;
  while (!finishing_) {
    const double t = now_s();
    if (t >= next_sample) {
      record_.client.push_back({t, outstanding_});
      if (next_sample > 0)
        token_rate_ = static_cast<double>(client_.token_events() - tokens_at_last_sample_);
      tokens_at_last_sample_ = client_.token_events();
      next_sample += 1;
    }
    may_send();  // ends the sending phase when the duration is over
    if (options_.max_time_s > 0 && t >= options_.max_time_s) cut("max_time");
    progress_.draw(progress_text());
    tick_timer_.expires_after(kTickInterval);
    co_await tick_timer_.async_wait(as_tuple(use_awaitable));
  }
}

void Runner::finish(RequestResult result) {
  if (result.warmup) {
    ++warmups_done_;
  } else if (result.outcome == Outcome::kOk) {
    ++ok_;
  } else if (result.outcome == Outcome::kRejected) {
    ++rejected_;
  } else {
    ++errors_;
  }
  record_.results.push_back(std::move(result));
  wake_.cancel();
}

std::string Runner::progress_text() const {
  std::string load;
  switch (options_.mode) {
    case LoadMode::kClosed: load = fmt::format("{} users", options_.concurrency); break;
    case LoadMode::kPoisson: load = fmt::format("{:g} req/s", options_.rate); break;
    case LoadMode::kTrace: load = "trace"; break;
  }
  const char* phase = !sending_                     ? "draining"
                      : record_.measure_start_s < 0 ? "warm-up"
                                                    : "measuring";
  const std::string sent = options_.requests > 0
                               ? fmt::format("{}/{}", measured_issued_, options_.requests)
                               : std::to_string(measured_issued_);
  return fmt::format(
      "bench [{}] {:.1f}s {}  sent {}  in flight {}  ok {}  rejected {}  errors {}"
      "  {:.0f} tok/s",
      load, now_s(), phase, sent, outstanding_, ok_, rejected_, errors_, token_rate_);
}

Result<RunRecord> run_benchmark(const BenchOptions& options) {
  auto target = parse_target(options.url);
  if (!target) return target.error();
  const int file_limit = raise_file_limit();
  if (options.mode == LoadMode::kClosed && options.concurrency + 64 > file_limit) {
    return Error::invalid(fmt::format("--concurrency {} needs about {} file descriptors, but the "
                                      "limit is {} (raise it with ulimit -n)",
                                      options.concurrency, options.concurrency + 64, file_limit),
                          "concurrency");
  }
  Runner runner(options, std::move(*target), file_limit);
  return runner.run();
}

}  // namespace supportd::bench
