// The router's automatic rollback (see router_engine.h, check_canaries): each deployment's
// canaries compared with its stable version since the split was set, on a timer.
#include <condition_variable>
#include <mutex>
#include <optional>

#include <spdlog/spdlog.h>

#include "engine/router/router_engine.h"
#include "engine/router/router_table.h"

namespace supportd::engine::router {
namespace {

CanarySample minus(const CanarySample& now, const CanarySample& before) {
  return CanarySample{now.requests - before.requests, now.errors - before.errors,
                      now.refusals - before.refusals, since(now.ttft_ms, before.ttft_ms)};
}

// The version with the most weight in `split` (the first of equals).
const std::string& heaviest(const Split& split) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < split.shares.size(); ++i) {
    if (split.shares[i].weight > split.shares[best].weight) best = i;
  }
  return split.shares[best].version;
}

}  // namespace

CanarySample sample_of(const RouterEngine::Slot& slot) {
  const Figures& figures = *slot.figures;
  return CanarySample{figures.requests.load(), figures.errors.load(), figures.refusals.load(),
                      figures.ttft_ms.snapshot()};
}

void put_into_effect(Deployment& deployment, Split split,
                     std::vector<std::shared_ptr<RouterEngine::Slot>> slots,
                     std::shared_ptr<RouterEngine::Slot> shadow) {
  deployment.split = std::move(split);
  deployment.slots = std::move(slots);
  deployment.shadow = std::move(shadow);
  deployment.at_set.clear();
  for (const auto& slot : deployment.slots)
    deployment.at_set.push_back(sample_of(*slot));
}

std::vector<std::pair<std::string, std::string>> RouterEngine::check_canaries(
    const CanaryLimits& limits) {
  std::vector<std::pair<std::string, std::string>> verdicts;
  const auto current = table();
  for (const auto& [name, deployment] : current->deployments) {
    if (deployment.past.empty() || deployment.at_set.size() != deployment.slots.size()) continue;
    const std::string& stable_name = heaviest(deployment.past.back());
    std::optional<std::size_t> stable;
    for (std::size_t i = 0; i < deployment.slots.size(); ++i) {
      if (deployment.split.shares[i].version == stable_name &&
          deployment.split.shares[i].weight > 0)
        stable = i;
    }
    if (!stable) continue;
    const CanarySample stable_sample =
        minus(sample_of(*deployment.slots[*stable]), deployment.at_set[*stable]);
    for (std::size_t i = 0; i < deployment.slots.size(); ++i) {
      if (i == *stable || deployment.split.shares[i].weight == 0) continue;
      const CanarySample canary = minus(sample_of(*deployment.slots[i]), deployment.at_set[i]);
      const auto verdict = canary_verdict(stable_sample, canary, limits);
      if (!verdict) continue;
      const std::string why = "version '" + deployment.slots[i]->name + "' " + *verdict;
      if (rollback(name, "automatic rollback: " + why).ok()) {
        spdlog::error("deployment {} rolled back automatically: {}", name, why);
        verdicts.emplace_back(name, why);
      }
      break;
    }
  }
  return verdicts;
}

void RouterEngine::watch_canaries(CanaryLimits limits, std::chrono::milliseconds interval,
                                  RollbackListener on_rollback) {
  watch_ = std::jthread(
      [this, limits, interval, on_rollback = std::move(on_rollback)](std::stop_token stop) {
        std::mutex mutex;
        std::condition_variable_any wake;
        while (!stop.stop_requested()) {
          {
            std::unique_lock lock(mutex);
            wake.wait_for(lock, stop, interval, [] { return false; });
          }
          if (stop.stop_requested()) break;
          for (const auto& [deployment, verdict] : check_canaries(limits)) {
            if (on_rollback) on_rollback(deployment, verdict);
          }
        }
      });
}

}  // namespace supportd::engine::router
