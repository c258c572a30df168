// The drill's steady load (see steady_load.h): closed-loop workers, each on its own thread,
// sending one small completion at a time.
#include "drill/steady_load.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "drill/http_call.h"

namespace supportd::drill {

SteadyLoad::~SteadyLoad() {
  stop();
}

void SteadyLoad::start() {
  started_ = Clock::now();
  for (int w = 0; w < options_.workers; ++w)
    threads_.emplace_back([this, w] { work(w); });
}

void SteadyLoad::stop() {
  stopping_ = true;
  for (auto& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
  threads_.clear();
}

std::vector<LoadSample> SteadyLoad::samples() const {
  std::lock_guard lock(mutex_);
  return samples_;
}

void SteadyLoad::work(int worker) {
  const std::string& priority =
      options_.classes[static_cast<std::size_t>(worker) % options_.classes.size()];
  HeaderList headers;
  if (!options_.api_key.empty())
    headers.emplace_back("Authorization", "Bearer " + options_.api_key);
  int turn = 0;
  while (!stopping_) {
    if (Clock::now() - started_ > options_.max_duration) break;
    if (sent_.fetch_add(1) >= options_.max_requests) break;
    // Prompts vary a little, as customers' do; the answer's length does not.
    const std::string body = fmt::format(
        R"({{"prompt":"Customer {} asks: where is my parcel number {}?","max_tokens":{},)"
        R"("ignore_eos":true,"temperature":0,"priority":"{}"}})",
        worker, turn++ % 50, options_.max_tokens, priority);
    LoadSample sample{priority, Clock::now(), {}, 0};
    auto reply =
        http_call(options_.url, "POST", "/v1/completions", body, headers, options_.request_timeout);
    sample.ended = Clock::now();
    if (reply) sample.status = reply->status;
    {
      std::lock_guard lock(mutex_);
      samples_.push_back(std::move(sample));
    }
    // A refused request (a shed class answers at once) waits a little before the next, so a
    // worker does not spin on refusals.
    if (!reply || reply->status != 200) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

std::optional<double> percentile_seconds(const std::vector<LoadSample>& samples,
                                         const std::string& priority, Clock::time_point from,
                                         Clock::time_point to, double percentile,
                                         std::size_t at_least) {
  std::vector<double> values;
  for (const auto& s : samples) {
    if (s.priority == priority && s.status == 200 && s.sent >= from && s.sent < to)
      values.push_back(s.seconds());
  }
  if (values.size() < std::max<std::size_t>(1, at_least)) return std::nullopt;
  std::sort(values.begin(), values.end());
  // Nearest rank.
  const auto rank =
      static_cast<std::size_t>(std::ceil(percentile / 100.0 * static_cast<double>(values.size())));
  return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

}  // namespace supportd::drill
