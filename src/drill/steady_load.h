// The drill's own load: a steady, closed-loop stream of small completions against the server
// (each worker sends its next request when the previous one is answered), bounded in requests
// and in time, every answer recorded with its class, times and status. Half the workers send
// the class the drill's fault targets ("low"), half the class it protects ("normal").
// Thread-safety: start() and stop() from the owner's thread; samples() and counts from any.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/http_url.h"

namespace supportd::drill {

using Clock = std::chrono::steady_clock;

struct LoadOptions {
  HttpUrl url;
  std::string api_key;  // sent as a bearer token when not empty
  int workers = 4;
  int max_tokens = 16;  // per completion (ignore_eos: always this many)
  std::vector<std::string> classes = {"normal", "low"};  // worker i sends classes[i % size]
  std::int64_t max_requests = 200000;                    // in all; the load stops there
  std::chrono::seconds max_duration{1800};               // and after this long
  std::chrono::milliseconds request_timeout{60000};
};

struct LoadSample {
  std::string priority;
  Clock::time_point sent;
  Clock::time_point ended;
  int status = 0;  // 0: no answer (connection failed or timed out)
  double seconds() const { return std::chrono::duration<double>(ended - sent).count(); }
};

class SteadyLoad {
 public:
  explicit SteadyLoad(LoadOptions options) : options_(std::move(options)) {}
  ~SteadyLoad();  // stops
  SteadyLoad(const SteadyLoad&) = delete;
  SteadyLoad& operator=(const SteadyLoad&) = delete;

  void start();
  // Stops sending and waits for the requests in flight (each bounded by request_timeout).
  void stop();

  // Answers recorded so far, in the order they ended.
  std::vector<LoadSample> samples() const;
  std::int64_t sent() const { return sent_.load(); }

 private:
  void work(int worker);

  const LoadOptions options_;
  Clock::time_point started_;
  std::atomic<bool> stopping_{false};
  std::atomic<std::int64_t> sent_{0};
  std::vector<std::thread> threads_;
  mutable std::mutex mutex_;
  std::vector<LoadSample> samples_;  // guarded by mutex_
};

// The `percentile` (0..100) of the latencies of `samples` of class `priority` answered 200 that
// were sent in [from, to); nullopt with fewer than `at_least` of them.
std::optional<double> percentile_seconds(const std::vector<LoadSample>& samples,
                                         const std::string& priority, Clock::time_point from,
                                         Clock::time_point to, double percentile,
                                         std::size_t at_least);

}  // namespace supportd::drill
