// The router's splits put back at start from the route history a store kept (see
// RouterEngine::restore_routes in router_engine.h), so a restart does not move traffic.
#include <map>

#include <spdlog/spdlog.h>

#include "engine/router/router_engine.h"
#include "engine/router/router_table.h"

namespace supportd::engine::router {
namespace {

// A deployment as the history leaves it: its split and the earlier ones, newest last.
struct Replayed {
  Split split;
  std::vector<Split> past;
};

// Each deployment's last split and its stack of earlier splits, replayed from `earlier` as
// set_route and rollback built them: a set pushes the split it replaced, a rollback pops.
std::map<std::string, Replayed> replay(const std::vector<RouteChange>& earlier) {
  std::map<std::string, Replayed> deployments;
  for (const RouteChange& change : earlier) {
    Replayed& deployment = deployments[change.deployment];
    if (change.action == "rollback") {
      if (!deployment.past.empty()) deployment.past.pop_back();
    } else if (!change.before.shares.empty()) {
      deployment.past.push_back(change.before);
    }
    deployment.split = change.after;
  }
  return deployments;
}

}  // namespace

std::vector<std::string> RouterEngine::restore_routes(const std::vector<RouteChange>& earlier) {
  std::vector<std::string> restored;
  std::lock_guard change(change_mutex_);
  auto next = std::make_shared<Table>(*table());
  for (auto& [name, replayed] : replay(earlier)) {
    if (replayed.split.shares.empty()) continue;
    auto slots = share_slots(*next, replayed.split);
    auto shadow = shadow_slot(*next, replayed.split);
    if (!slots || !shadow || next->versions.contains(name)) {
      const std::string why = !slots    ? slots.error().message
                              : !shadow ? shadow.error().message
                                        : "a version has that name";
      spdlog::warn("deployment {}: its last split ({}) is not restored: {}; it starts with {}",
                   name, describe(replayed.split), why,
                   next->deployments.contains(name) ? describe(next->deployments.at(name).split)
                                                    : std::string("no split"));
      continue;
    }
    Deployment& target = next->deployments[name];
    put_into_effect(target, std::move(replayed.split), std::move(slots).value(),
                    std::move(shadow).value());
    target.past = std::move(replayed.past);
    spdlog::info("deployment {}: split restored from the route history: {}", name,
                 describe(target.split));
    restored.push_back(name);
  }
  publish(std::move(next));
  return restored;
}

}  // namespace supportd::engine::router
