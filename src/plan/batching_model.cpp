// The continuous-batching simulation (see batching_model.h): an engine of slots stepping in
// iterations, fed by a Poisson queue or kept full.
#include "plan/batching_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <numeric>
#include <random>

namespace supportd::plan {
namespace {

constexpr int kMaxSlots = 4096;
constexpr double kMaxTokens = 1e6;
constexpr int kMinChunk = 16;  // engine/llama/step.cpp: a prompt chunk goes on whatever decodes
// Slot-iterations the capacity's closed loop may take (about a second): long requests are
// simulated in fewer rounds, never for minutes (SimulationOptions::max_work for the queue's).
constexpr double kMaxWork = 2e8;
constexpr std::int64_t kMinRequests = 200;
// An iteration drawn a negative excess still takes this share of its cost.
constexpr double kLeastShare = 0.1;
constexpr double kMaxExcessMs = 1e6;
constexpr std::size_t kMaxExcessValues = 100000;
// The capacity's closed loop draws its excess from a fixed seed: one capacity per model.
constexpr std::uint64_t kCapacitySeed = 7;

bool non_negative(double value) {
  return std::isfinite(value) && value >= 0;
}

int whole_tokens(double tokens) {
  return std::max(1, static_cast<int>(std::lround(tokens)));
}

// The most iterations a request holds a slot for: its prompt in the smallest chunks, then its
// decode steps.
double request_iterations(const BatchingModel& model) {
  return std::ceil(whole_tokens(model.prompt_tokens) / static_cast<double>(kMinChunk)) +
         whole_tokens(model.output_tokens);
}

struct Arrival {
  double at = 0;
  std::int64_t id = 0;
};

// A request in a slot.
struct Sequence {
  Arrival arrival;
  double admitted = 0;
  double first_token = -1;  // when it got its first token; -1: not yet
  int to_feed = 0;          // tokens to feed before its next token: the prompt left, then 1
  int output_left = 0;      // tokens still to generate
  int chunk = 0;            // tokens fed in the iteration being planned
};

// What the loop of engine/llama does with its running sequences, one iteration at a time.
class SimulatedEngine {
 public:
  SimulatedEngine(const BatchingModel& model, std::uint64_t seed)
      : model_(model),
        prompt_(whole_tokens(model.prompt_tokens)),
        output_(whole_tokens(model.output_tokens)),
        random_(seed) {
    // The excess's chances: its shares, or equal without them.
    if (!model.excess_shares.empty()) {
      pick_excess_ = std::discrete_distribution<std::size_t>(model.excess_shares.begin(),
                                                             model.excess_shares.end());
    }
    running_.reserve(static_cast<std::size_t>(model.slots));
  }

  bool empty() const { return running_.empty(); }
  bool has_free_slot() const { return static_cast<int>(running_.size()) < model_.slots; }

  void admit(const Arrival& arrival, double now) {
    running_.push_back({arrival, now, -1, prompt_, output_, 0});
  }

  // Runs the iteration that starts at `now` and returns when it ends; the sequences that
  // finished in it are appended to `done`, in admission order.
  double iterate(double now, std::vector<Sequence>& done) {
    // Plan: decode tokens first (a sequence with one token to feed), then prompt chunks under
    // the budget, oldest admission first.
    int decode = 0;
    for (Sequence& s : running_) {
      s.chunk = s.to_feed == 1 ? 1 : 0;
      decode += s.chunk;
    }
    const int capacity = std::max(model_.step_tokens, model_.slots);
    int budget = std::min(capacity - decode, std::max(model_.step_tokens - decode, kMinChunk));
    int prompt = 0;
    for (Sequence& s : running_) {
      if (budget <= 0) break;
      if (s.to_feed <= 1) continue;
      s.chunk = std::min(s.to_feed, budget);
      budget -= s.chunk;
      prompt += s.chunk;
    }
    const bool split = model_.split_tokens > 0 && decode > 0 && prompt > 0 &&
                       decode + prompt >= model_.split_tokens;
    const double cost_ms =
        speed(now) * (model_.fixed_ms + model_.per_decode_token_ms * decode +
                      model_.per_prompt_token_ms * prompt + (split ? model_.per_split_ms : 0.0) +
                      model_.per_decode_pair_ms * decode * (decode - 1) / 2);
    const double end = now + std::max(cost_ms + excess(), kLeastShare * cost_ms) / 1e3;
    // Apply: a sequence that fed its last pending token has a new one.
    for (Sequence& s : running_) {
      if (s.chunk == 0) continue;
      s.to_feed -= s.chunk;
      if (s.to_feed > 0) continue;
      s.to_feed = 1;
      if (s.first_token < 0) s.first_token = end;
      --s.output_left;
    }
    const auto finished = [](const Sequence& s) { return s.output_left <= 0; };
    for (const Sequence& s : running_) {
      if (finished(s)) done.push_back(s);
    }
    std::erase_if(running_, finished);
    return end;
  }

 private:
  // The speed factor at simulated time `now` (the trace repeats).
  double speed(double now) const {
    const std::vector<double>& trace = model_.speed_trace;
    if (trace.empty()) return 1;
    const auto window = static_cast<std::uint64_t>(std::max(now, 0.0) / model_.speed_window_s);
    return trace[window % trace.size()];
  }

  // One of the measured excesses, at random by their shares (0 without them).
  double excess() {
    const std::vector<double>& values = model_.excess_ms;
    if (values.empty()) return 0;
    if (model_.excess_shares.empty())
      return values[std::uniform_int_distribution<std::size_t>(0, values.size() - 1)(random_)];
    return values[pick_excess_(random_)];
  }

  const BatchingModel& model_;
  const int prompt_;
  const int output_;
  std::mt19937_64 random_;
  std::discrete_distribution<std::size_t> pick_excess_;  // by excess_shares, when given
  std::vector<Sequence> running_;                        // in admission order
};

}  // namespace

Status check_batching(const BatchingModel& m) {
  for (const auto& [flag, cost] : {std::pair{"step-cost", m.fixed_ms},
                                   {"step-cost", m.per_decode_token_ms},
                                   {"step-cost", m.per_prompt_token_ms},
                                   {"step-cost", m.per_split_ms},
                                   {"step-cost", m.per_decode_pair_ms}}) {
    if (!non_negative(cost))
      return Error::invalid("every iteration cost must be a number of milliseconds, 0 or more",
                            flag);
  }
  if (!(m.fixed_ms + m.per_decode_token_ms > 0) || !(m.fixed_ms + m.per_prompt_token_ms > 0))
    return Error::invalid("an iteration must cost some time: a fixed cost or a cost per token",
                          "step-cost");
  if (m.slots < 1 || m.slots > kMaxSlots)
    return Error::invalid(fmt::format("the engine's slots must be between 1 and {}", kMaxSlots),
                          "servers");
  if (m.step_tokens < kMinChunk)
    return Error::invalid(fmt::format("the step's token budget must be at least {}", kMinChunk),
                          "step-tokens");
  for (double speed : m.speed_trace) {
    if (!std::isfinite(speed) || !(speed > 0) || speed > 1e3)
      return Error::invalid("every speed must be a factor above 0 (1: as the costs say)",
                            "speed-trace");
  }
  if (!m.speed_trace.empty() && !(std::isfinite(m.speed_window_s) && m.speed_window_s > 0))
    return Error::invalid("the speed's window must be a number of seconds above 0", "speed-window");
  if (m.excess_ms.size() > kMaxExcessValues)
    return Error::invalid(
        fmt::format("--iteration-excess: at most {} excess values", kMaxExcessValues),
        "iteration-excess");
  for (double excess : m.excess_ms) {
    if (!std::isfinite(excess) || std::abs(excess) > kMaxExcessMs)
      return Error::invalid(
          "--iteration-excess: every excess must be a number of milliseconds within a million",
          "iteration-excess");
  }
  if (!m.excess_shares.empty()) {
    const double total = std::accumulate(m.excess_shares.begin(), m.excess_shares.end(), 0.0);
    const bool shares_valid =
        m.excess_shares.size() == m.excess_ms.size() &&
        std::all_of(m.excess_shares.begin(), m.excess_shares.end(), non_negative) &&
        std::isfinite(total) && total > 0;
    if (!shares_valid)
      return Error::invalid(
          "--iteration-excess-shares: the excess's shares must be as many as its values, each 0 "
          "or more, not all 0",
          "iteration-excess-shares");
  }
  if (m.split_tokens < 0)
    return Error::invalid("the split size must be a number of tokens, 0 (never) or more",
                          "split-tokens");
  for (const auto& [flag, tokens] :
       {std::pair{"prompt-tokens", m.prompt_tokens}, {"output-tokens", m.output_tokens}}) {
    if (!std::isfinite(tokens) || tokens < 0.5 || tokens > kMaxTokens) {
      return Error::invalid(
          fmt::format("--{} must be a number of tokens from 1 to {:.0f}", flag, kMaxTokens), flag);
    }
  }
  return {};
}

double batching_capacity(const BatchingModel& model) {
  if (!model.speed_trace.empty()) {
    BatchingModel steady = model;
    steady.speed_trace.clear();
    double inverse_speeds = 0;
    for (double speed : model.speed_trace)
      inverse_speeds += 1 / speed;
    return batching_capacity(steady) * inverse_speeds /
           static_cast<double>(model.speed_trace.size());
  }
  // Every slot full from the start; a request that leaves is replaced at the next iteration.
  // The rate is taken after the first rounds (a round: as many requests as slots), when the
  // start's lockstep has settled: 60 rounds, fewer for long requests on many slots; with an
  // excess drawn, up to 6,000, so that its rare stalls come in their share.
  SimulatedEngine engine(model, kCapacitySeed);
  const double most_rounds = model.excess_ms.empty() ? 60.0 : 6000.0;
  const double rounds = std::clamp(std::floor(kMaxWork / (request_iterations(model) * model.slots)),
                                   6.0, most_rounds);
  const std::int64_t settle = static_cast<std::int64_t>(rounds / 6) * model.slots;
  const std::int64_t measured = static_cast<std::int64_t>(rounds) * model.slots - settle;
  std::int64_t completed = 0;
  double now = 0, from = 0;
  std::vector<Sequence> done;
  while (completed < settle + measured) {
    while (engine.has_free_slot())
      engine.admit({now, 0}, now);
    done.clear();
    now = engine.iterate(now, done);
    for (std::size_t i = 0; i < done.size(); ++i) {
      if (++completed == settle) from = now;
    }
  }
  return static_cast<double>(completed - settle) / (now - from);
}

Result<SimulatedQueue> simulate_batching(const BatchingModel& model, double arrival_rate,
                                         const SimulationOptions& options) {
  if (auto status = check_batching(model); !status) return status.error();
  if (!std::isfinite(arrival_rate) || !(arrival_rate > 0))
    return Error::invalid("the arrival rate must be a number above 0 per second", "arrival-rate");
  if (options.requests < 1 || options.warmup < 0)
    return Error::invalid("a simulation measures at least one request", "requests");
  const double capacity = batching_capacity(model);
  if (!(arrival_rate < capacity)) {
    return Error::invalid(
        fmt::format("arrivals of {:.4g}/s reach the engine's simulated capacity of {:.4g}/s: "
                    "there is no steady state, the queue grows without bound",
                    arrival_rate, capacity),
        "utilization");
  }
  std::mt19937_64 random(options.seed);
  std::exponential_distribution<double> gap(arrival_rate);
  // Fewer requests when each is long (max_work), with the warm-up in proportion.
  const auto affordable =
      static_cast<std::int64_t>(std::max(options.max_work, 0.0) / request_iterations(model));
  const std::int64_t requests =
      std::max(std::min(options.requests, affordable), std::min(options.requests, kMinRequests));
  const std::int64_t warmup =
      options.requests > 0 ? options.warmup * requests / options.requests : options.warmup;
  const std::int64_t total = warmup + requests;
  SimulatedEngine engine(model, options.seed * 0x9E3779B97F4A7C15ULL + 1);
  std::deque<Arrival> queue;
  std::vector<Sequence> done;
  SimulatedQueue result;
  result.waits.reserve(static_cast<std::size_t>(requests));
  double ttft = 0, service = 0;
  std::int64_t arrived = 0, finished = 0, waited = 0;
  double next = gap(random), now = 0;
  while (finished < requests) {
    while (arrived < total && next <= now) {
      queue.push_back({next, arrived++});
      next += gap(random);
    }
    if (engine.empty() && queue.empty()) {
      if (arrived == total) break;  // (unreachable: every request has then finished)
      now = next;                   // idle until the next arrival, which starts at once
      continue;
    }
    while (engine.has_free_slot() && !queue.empty()) {
      const Arrival arrival = queue.front();
      queue.pop_front();
      engine.admit(arrival, now);
      if (arrival.id < warmup) continue;
      result.waits.push_back(now - arrival.at);
      if (now > arrival.at) ++waited;
    }
    done.clear();
    now = engine.iterate(now, done);
    for (const Sequence& s : done) {
      if (s.arrival.id < warmup) continue;
      ++finished;
      ttft += s.first_token - s.arrival.at;
      service += now - s.admitted;
    }
  }
  std::sort(result.waits.begin(), result.waits.end());
  result.requests = requests;
  const auto n = static_cast<double>(requests);
  double total_wait = 0;
  for (double w : result.waits)
    total_wait += w;
  result.mean_wait_s = total_wait / n;
  result.p_wait = static_cast<double>(waited) / n;
  result.ttft_mean_s = ttft / n;
  result.service_mean_s = service / n;
  return result;
}

double nearest_rank(const std::vector<double>& sorted, double q) {
  const auto n = sorted.size();
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(n)));
  return sorted[std::clamp<std::size_t>(rank, 1, n) - 1];
}

Result<RunSpread> simulate_run_spread(const BatchingModel& model, double arrival_rate,
                                      double seconds, int repeats, std::uint64_t seed,
                                      int samples) {
  const double arrivals = arrival_rate * seconds;
  if (!std::isfinite(arrivals) || arrivals < 1 || arrivals > 1e6) {
    return Error::invalid(
        "a run must hold between 1 and a million arrivals on average (rate x seconds)",
        "run-seconds");
  }
  if (repeats < 1 || repeats > 100)
    return Error::invalid("runs averaged must be from 1 to 100", "run-repeats");
  if (samples < 1) return Error::invalid("at least one sample", "samples");
  RunSpread spread{seconds, repeats, samples};
  std::vector<double> means, p95s;
  SimulationOptions run;
  run.requests = std::llround(arrivals);
  run.warmup = 0;
  for (int sample = 0; sample < samples; ++sample) {
    double mean = 0, p95 = 0;
    for (int r = 0; r < repeats; ++r) {
      run.seed = seed * 1'000'003 + static_cast<std::uint64_t>(sample * repeats + r);
      auto simulated = simulate_batching(model, arrival_rate, run);
      if (!simulated) return simulated.error();
      const std::vector<double>& waits = simulated->waits;
      mean += simulated->mean_wait_s / repeats;
      p95 += nearest_rank(waits, 0.95) / repeats;
    }
    means.push_back(mean);
    p95s.push_back(p95);
  }
  std::sort(means.begin(), means.end());
  std::sort(p95s.begin(), p95s.end());
  for (int i = 0; const double q : {0.05, 0.5, 0.95}) {
    spread.mean_wait_s[i] = nearest_rank(means, q);
    spread.wait_p95_s[i] = nearest_rank(p95s, q);
    ++i;
  }
  return spread;
}

}  // namespace supportd::plan
