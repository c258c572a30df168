// The event loop of the queue simulation: arrivals in time order, completions from a min-heap.
#include "queue_simulation.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <queue>
#include <random>

namespace supportd::plan::testing {
namespace {

constexpr int kBatches = 20;

class Draw {
 public:
  explicit Draw(std::uint64_t seed) : random_(seed) {}

  // Gamma with `mean` and coefficient of variation `cv` (0: the mean itself).
  double positive(double mean, double cv) {
    if (cv == 0) return mean;
    const double shape = 1 / (cv * cv);
    return std::gamma_distribution<double>(shape, mean / shape)(random_);
  }
  double uniform() { return std::uniform_real_distribution<double>(0, 1)(random_); }

 private:
  std::mt19937_64 random_;
};

struct Job {
  double arrived = 0;
  std::int64_t index = 0;
};

Estimate batch_estimate(const std::vector<double>& values) {
  Estimate e;
  if (values.empty()) return e;
  const std::size_t per_batch = std::max<std::size_t>(1, values.size() / kBatches);
  std::vector<double> means;
  for (std::size_t start = 0; start + per_batch <= values.size(); start += per_batch) {
    double sum = 0;
    for (std::size_t i = start; i < start + per_batch; ++i)
      sum += values[i];
    means.push_back(sum / static_cast<double>(per_batch));
  }
  double total = 0;
  for (double v : values)
    total += v;
  e.value = total / static_cast<double>(values.size());
  double squares = 0;
  for (double m : means)
    squares += (m - e.value) * (m - e.value);
  const double n = static_cast<double>(means.size());
  e.standard_error = n > 1 ? std::sqrt(squares / (n - 1) / n) : 0;
  return e;
}

ClassResult summarize(const std::vector<double>& waits_in_arrival_order) {
  ClassResult r;
  r.mean_wait_s = batch_estimate(waits_in_arrival_order);
  const Estimate none = share_within(waits_in_arrival_order, 0);
  r.p_wait = {1 - none.value, none.standard_error};
  r.waits = waits_in_arrival_order;
  return r;
}

}  // namespace

Estimate share_within(const std::vector<double>& waits, double t) {
  std::vector<double> within;
  for (double w : waits)
    within.push_back(w <= t ? 1 : 0);
  return batch_estimate(within);
}

SimulationResult simulate(const SimulationSetup& setup) {
  Draw draw(setup.seed);
  const std::size_t classes = setup.classes.size();
  double total_share = 0;
  for (const SimClass& k : setup.classes)
    total_share += k.share;
  const std::int64_t total = setup.warmup + setup.arrivals;
  std::vector<double> wait(static_cast<std::size_t>(total), 0);
  std::vector<int> class_of(static_cast<std::size_t>(total), 0);
  std::vector<std::deque<Job>> waiting(classes);
  std::priority_queue<double, std::vector<double>, std::greater<>> completions;
  const bool load_dependent = !setup.busy_rates.empty();
  int busy = 0;
  double next_completion = INFINITY;  // load-dependent: the chain's next departure
  double now = 0;
  double next_arrival = draw.positive(1 / setup.arrival_rate, setup.arrival_cv);
  std::int64_t arrived = 0;

  auto start = [&](const Job& job, int k) {
    wait[static_cast<std::size_t>(job.index)] = now - job.arrived;
    ++busy;
    if (!load_dependent) {
      const SimClass& c = setup.classes[static_cast<std::size_t>(k)];
      completions.push(now + draw.positive(c.service_mean_s, c.service_cv));
    }
  };
  auto reschedule = [&] {  // memoryless: redraw the next departure at the new total rate
    next_completion = busy == 0 ? INFINITY : now + draw.positive(1 / setup.busy_rates[busy - 1], 1);
  };

  while (arrived < total) {
    const double completion = load_dependent        ? next_completion
                              : completions.empty() ? INFINITY
                                                    : completions.top();
    if (completion <= next_arrival) {
      now = completion;
      if (!load_dependent) completions.pop();
      --busy;
      for (std::size_t k = 0; k < classes; ++k) {
        if (waiting[k].empty()) continue;
        start(waiting[k].front(), static_cast<int>(k));
        waiting[k].pop_front();
        break;
      }
      if (load_dependent) reschedule();
      continue;
    }
    now = next_arrival;
    double pick = draw.uniform() * total_share;
    int k = 0;
    while (k + 1 < static_cast<int>(classes) &&
           pick >= setup.classes[static_cast<std::size_t>(k)].share) {
      pick -= setup.classes[static_cast<std::size_t>(k)].share;
      ++k;
    }
    const Job job{now, arrived};
    class_of[static_cast<std::size_t>(arrived)] = k;
    ++arrived;
    if (busy < setup.servers) {
      start(job, k);
      if (load_dependent) reschedule();
    } else {
      waiting[static_cast<std::size_t>(k)].push_back(job);
    }
    next_arrival = now + draw.positive(1 / setup.arrival_rate, setup.arrival_cv);
  }
  // Jobs still waiting when arrivals stop: leave them out (their waits are not known yet), as
  // well as the warm-up.
  std::vector<bool> known(static_cast<std::size_t>(total), true);
  for (const auto& queue : waiting)
    for (const Job& job : queue)
      known[static_cast<std::size_t>(job.index)] = false;
  SimulationResult result;
  std::vector<std::vector<double>> per_class(classes);
  std::vector<double> all;
  for (std::int64_t i = setup.warmup; i < total; ++i) {
    if (!known[static_cast<std::size_t>(i)]) continue;
    per_class[static_cast<std::size_t>(class_of[static_cast<std::size_t>(i)])].push_back(
        wait[static_cast<std::size_t>(i)]);
    all.push_back(wait[static_cast<std::size_t>(i)]);
  }
  for (const auto& waits : per_class)
    result.classes.push_back(summarize(waits));
  result.all = summarize(all);
  return result;
}

}  // namespace supportd::plan::testing
