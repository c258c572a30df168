// What the router shows (see router_engine.h): its versions with their figures, the
// deployments' splits and history, its problems, and the cards /v1/models lists.
#include <fmt/format.h>

#include "engine/router/router_engine.h"
#include "engine/router/router_table.h"
#include "obs/histogram_quantile.h"

namespace supportd::engine::router {

std::vector<VersionView> RouterEngine::versions() const {
  const auto current = table();
  std::vector<VersionView> views;
  for (const auto& slot : current->by_index) {
    if (!slot) continue;  // unloaded
    VersionView view;
    view.name = slot->name;
    view.card = slot->card;
    view.facts = slot->facts;
    view.state = slot->state.load();
    view.card.state = version_state_name(view.state);
    view.reason = slot->reason;
    const Figures& figures = *slot->figures;
    view.in_flight = figures.in_flight.load();
    view.requests = figures.requests.load();
    view.errors = figures.errors.load();
    view.refusals = figures.refusals.load();
    const auto ttft = figures.ttft_ms.snapshot();
    const auto itl = figures.itl_ms.snapshot();
    const auto e2e = figures.e2e_ms.snapshot();
    view.ttft_p50_ms = obs::histogram_quantile(ttft, 0.5);
    view.ttft_p99_ms = obs::histogram_quantile(ttft, 0.99);
    view.itl_p50_ms = obs::histogram_quantile(itl, 0.5);
    view.itl_p99_ms = obs::histogram_quantile(itl, 0.99);
    view.e2e_p50_ms = obs::histogram_quantile(e2e, 0.5);
    view.e2e_p99_ms = obs::histogram_quantile(e2e, 0.99);
    view.load_ms = slot->load_ms;
    view.warmup_ms = slot->warmup_ms.load();
    view.shadow = summarize(*slot->shadow_figures);
    views.push_back(std::move(view));
  }
  return views;
}

std::map<std::string, Split> RouterEngine::routes() const {
  std::map<std::string, Split> splits;
  for (const auto& [name, deployment] : table()->deployments)
    splits.emplace(name, deployment.split);
  return splits;
}

std::vector<RouteChange> RouterEngine::history() const {
  std::lock_guard lock(history_mutex_);
  return history_;
}

std::vector<std::string> RouterEngine::problems() const {
  std::vector<std::string> found;
  const auto current = table();
  for (const auto& slot : current->by_index) {
    if (slot && slot->state.load() == VersionState::kFailed)
      found.push_back(
          fmt::format("model version '{}' is out of traffic: {}", slot->name, slot->reason));
  }
  if (!current->deployments.contains(kDefaultDeployment))
    found.push_back("the deployment 'default' has no version that can take traffic");
  return found;
}

std::vector<ModelCard> RouterEngine::models() const {
  const auto current = table();
  std::vector<ModelCard> cards;
  for (const auto& [name, deployment] : current->deployments) {
    ModelCard card = card_;
    card.id = name;
    card.description = "deployment: " + describe(deployment.split);
    cards.push_back(std::move(card));
  }
  for (const auto& slot : current->by_index) {
    if (!slot) continue;
    ModelCard card = slot->card;
    card.state = version_state_name(slot->state.load());
    cards.push_back(std::move(card));
  }
  return cards;
}

}  // namespace supportd::engine::router
