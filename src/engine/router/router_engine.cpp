// The model-version router (see router_engine.h): the table of versions and deployments, its
// changes, and the pick on submit.
#include "engine/router/router_engine.h"
#include "engine/router/router_table.h"
#include "engine/router/version_sink.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include <fmt/format.h>

namespace supportd::engine::router {
namespace {

// A router's request id: the version's index above this many bits, its engine's id below.
constexpr int kIndexShift = 48;
constexpr std::uint64_t kInnerMask = (std::uint64_t{1} << kIndexShift) - 1;

std::int64_t unix_ms_now() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Where a request falls in `split`: the routing key's hash when the split is sticky and there
// is a key (one conversation, one version), else the next of `counter`'s draws.
std::uint64_t routing_draw(const Split& split, std::string_view routing_key,
                           std::atomic<std::uint64_t>& counter) {
  return split.sticky && !routing_key.empty()
             ? routing_hash(routing_key)
             : scramble(counter.fetch_add(1, std::memory_order_relaxed));
}

}  // namespace

const char* version_state_name(VersionState state) {
  switch (state) {
    case VersionState::kLoading: return "loading";
    case VersionState::kWarming: return "warming";
    case VersionState::kReady: return "ready";
    case VersionState::kDraining: return "draining";
    case VersionState::kFailed: return "failed";
  }
  return "unknown";
}

RouterEngine::RouterEngine() : table_(std::make_shared<Table>()) {
  card_.id = std::string(kDefaultDeployment);
}

RouterEngine::~RouterEngine() {
  std::vector<std::jthread> threads;
  {
    std::lock_guard lock(drains_mutex_);
    threads.swap(drains_);
  }
  threads.clear();  // each asked to stop, then joined
  watch_ = {};      // the canary watch too
  shutdown();
}

std::shared_ptr<const RouterEngine::Table> RouterEngine::table() const {
  std::lock_guard lock(table_mutex_);
  return table_;
}

void RouterEngine::publish(std::shared_ptr<const Table> table) {
  {
    std::lock_guard lock(table_mutex_);
    table_.swap(table);
  }
  // The old table is released here, outside the lock: it may hold the last reference to an
  // unloaded version, whose engine then frees its model.
}

Status check_new_version_name(const RouterEngine::Table& table, const std::string& name) {
  if (name.empty()) return Error::invalid("a model version needs a name", "name");
  if (table.versions.contains(name) || table.deployments.contains(name))
    return Error::invalid(fmt::format("the name '{}' is already used", name), "name");
  return {};
}

std::optional<std::string> sha256_mismatch(const VersionFacts& facts) {
  if (facts.expected_sha256.empty() || facts.expected_sha256 == facts.sha256) return std::nullopt;
  return fmt::format("SHA-256 mismatch: the configuration expects {}, {} has {}",
                     facts.expected_sha256, facts.path, facts.sha256);
}

void describe_slot(RouterEngine::Slot& slot) {
  slot.card = slot.engine->model();
  slot.card.id = slot.name;
  slot.card.sha256 = slot.facts.sha256;
  slot.card.bytes = slot.facts.bytes;
  slot.card.architecture = slot.facts.architecture;
  slot.card.quantization = slot.facts.quantization;
  slot.card.chat_template_sha256 = slot.facts.chat_template_sha256;
}

Status RouterEngine::add_version(const std::string& name, std::unique_ptr<Engine> engine,
                                 VersionFacts facts) {
  std::lock_guard change(change_mutex_);
  const auto current = table();
  if (Status named = check_new_version_name(*current, name); !named) return named;
  auto slot = std::make_shared<Slot>();
  slot->name = name;
  slot->index = current->by_index.size() + 1;
  if (auto mismatch = sha256_mismatch(facts)) {
    slot->state = VersionState::kFailed;
    slot->reason = std::move(*mismatch);
  }
  slot->facts = std::move(facts);
  slot->engine = std::move(engine);
  describe_slot(*slot);
  auto next = std::make_shared<Table>(*current);
  next->versions.emplace(name, slot);
  next->by_index.push_back(slot);
  if (!next->deployments.contains(kDefaultDeployment) && slot->state == VersionState::kReady) {
    Deployment deployment;
    deployment.split.shares = {Share{name, 100}};
    deployment.slots = {slot};
    deployment.at_set = {CanarySample{}};
    next->deployments.emplace(std::string(kDefaultDeployment), std::move(deployment));
  }
  if (current->versions.empty()) {
    card_.context_length = slot->card.context_length;
    card_.description = "deployment default of the model router";
  } else {
    card_.context_length = std::min(card_.context_length, slot->card.context_length);
  }
  card_.meaningless_text = card_.meaningless_text || slot->card.meaningless_text;
  publish(std::move(next));
  return {};
}

Status RouterEngine::set_route(const std::string& deployment, Split split, const std::string& who) {
  if (Status checked = check_split(split); !checked) return checked;
  std::lock_guard change(change_mutex_);
  const auto current = table();
  if (deployment.empty() || current->versions.contains(deployment)) {
    return Error::invalid(
        fmt::format("'{}' cannot name a deployment (a version has that name)", deployment),
        "deployment");
  }
  auto slots = share_slots(*current, split);
  if (!slots) return slots.error();
  auto shadow = shadow_slot(*current, split);
  if (!shadow) return shadow.error();
  auto next = std::make_shared<Table>(*current);
  Deployment& target = next->deployments[deployment];
  RouteChange made{deployment, "set", target.split, split, who, unix_ms_now()};
  if (!target.split.shares.empty()) target.past.push_back(target.split);
  put_into_effect(target, std::move(split), std::move(slots).value(), std::move(shadow).value());
  publish(std::move(next));
  record(std::move(made));
  return {};
}

Result<std::vector<std::shared_ptr<RouterEngine::Slot>>> RouterEngine::share_slots(
    const Table& table, const Split& split) const {
  std::vector<std::shared_ptr<Slot>> slots;
  for (const Share& share : split.shares) {
    const std::string field = "weights." + share.version;
    const auto found = table.versions.find(share.version);
    if (found == table.versions.end())
      return Error::invalid(fmt::format("no model version '{}'", share.version), field);
    const Slot& slot = *found->second;
    if (share.weight > 0 && slot.state.load() != VersionState::kReady) {
      return Error::invalid(fmt::format("version '{}' is {}{}{}: it cannot take traffic",
                                        share.version, version_state_name(slot.state.load()),
                                        slot.reason.empty() ? "" : ": ", slot.reason),
                            field);
    }
    slots.push_back(found->second);
  }
  return slots;
}

Status RouterEngine::rollback(const std::string& deployment, const std::string& who) {
  std::lock_guard change(change_mutex_);
  const auto current = table();
  const auto found = current->deployments.find(deployment);
  if (found == current->deployments.end()) {
    return Error{ErrorCode::kNotFound, fmt::format("no deployment '{}'", deployment), "deployment",
                 0};
  }
  if (found->second.past.empty()) {
    return Error::invalid(
        fmt::format("deployment '{}' has no earlier split to roll back to", deployment),
        "deployment");
  }
  const Split& previous = found->second.past.back();
  std::vector<std::shared_ptr<Slot>> slots;
  for (const Share& share : previous.shares) {
    const auto version = current->versions.find(share.version);
    if (version == current->versions.end() ||
        (share.weight > 0 && version->second->state.load() != VersionState::kReady)) {
      return Error::invalid(fmt::format("the earlier split of '{}' ({}) names version '{}', "
                                        "which can no longer take traffic",
                                        deployment, describe(previous), share.version),
                            "deployment");
    }
    slots.push_back(version->second);
  }
  auto shadow = shadow_slot(*current, previous);
  if (!shadow) {
    return Error::invalid(fmt::format("the earlier split of '{}' ({}) cannot be put back: {}",
                                      deployment, describe(previous), shadow.error().message),
                          "deployment");
  }
  auto next = std::make_shared<Table>(*current);
  Deployment& target = next->deployments[deployment];
  RouteChange made{deployment, "rollback", target.split, previous, who, unix_ms_now()};
  put_into_effect(target, previous, std::move(slots), std::move(shadow).value());
  target.past.pop_back();
  publish(std::move(next));
  record(std::move(made));
  return {};
}

void RouterEngine::keep_history(std::vector<RouteChange> earlier, ChangeListener listener) {
  std::lock_guard lock(history_mutex_);
  earlier.insert(earlier.end(), history_.begin(), history_.end());
  history_ = std::move(earlier);
  change_listener_ = std::move(listener);
}

void RouterEngine::record(RouteChange change) {
  ChangeListener listener;
  {
    std::lock_guard lock(history_mutex_);
    history_.push_back(change);
    listener = change_listener_;
  }
  if (listener) listener(change);
}

Result<int> RouterEngine::unload(const std::string& name, std::chrono::milliseconds timeout) {
  std::shared_ptr<Slot> slot;
  {
    std::lock_guard change(change_mutex_);
    const auto current = table();
    const auto found = current->versions.find(name);
    if (found == current->versions.end())
      return Error{ErrorCode::kNotFound, fmt::format("no model version '{}'", name), "name", 0};
    for (const auto& [deployment, routed] : current->deployments) {
      for (const Share& share : routed.split.shares) {
        if (share.version == name && share.weight > 0) {
          return Error::invalid(fmt::format("version '{}' still takes {}% of deployment '{}': "
                                            "move its traffic first (PUT /admin/routes/{})",
                                            name, share.weight, deployment, deployment),
                                "name");
        }
      }
      if (routed.split.shadow && routed.split.shadow->version == name) {
        return Error::invalid(fmt::format("version '{}' is the shadow of deployment '{}': set "
                                          "a split without it first (PUT /admin/routes/{})",
                                          name, deployment, deployment),
                              "name");
      }
    }
    slot = found->second;
    VersionState expected = slot->state.load();
    if (expected == VersionState::kLoading || expected == VersionState::kWarming) {
      return Error::invalid(fmt::format("version '{}' is {}: wait until it is ready or failed",
                                        name, version_state_name(expected)),
                            "name");
    }
    if (expected == VersionState::kDraining ||
        !slot->state.compare_exchange_strong(expected, VersionState::kDraining)) {
      return Error::invalid(fmt::format("version '{}' is draining already", name), "name");
    }
  }
  const int in_flight = slot->figures->in_flight.load();
  std::lock_guard lock(drains_mutex_);
  drains_.emplace_back([this, slot, timeout](std::stop_token stop) {
    finish_drain(std::move(stop), slot, timeout);
  });
  return in_flight;
}

void RouterEngine::finish_drain(std::stop_token stop, std::shared_ptr<Slot> slot,
                                std::chrono::milliseconds timeout) {
  // A background thread's wait, polled: requests end on the version's engine thread, which
  // must not be made to signal anyone.
  const auto give_up = Clock::now() + timeout;
  while (slot->figures->in_flight.load() > 0 && Clock::now() < give_up && !stop.stop_requested())
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (slot->engine) slot->engine->shutdown();  // cancels what is left
  std::lock_guard change(change_mutex_);
  auto next = std::make_shared<Table>(*table());
  next->versions.erase(slot->name);
  next->by_index[slot->index - 1] = nullptr;  // its index is never reused
  for (auto& [name, deployment] : next->deployments) {
    std::erase_if(deployment.past, [&slot](const Split& split) {
      return (split.shadow && split.shadow->version == slot->name) ||
             std::any_of(split.shares.begin(), split.shares.end(),
                         [&slot](const Share& share) { return share.version == slot->name; });
    });
  }
  publish(std::move(next));
  // The engine itself is freed with the last table that holds the slot.
}

const ModelCard& RouterEngine::model() const {
  return card_;
}

bool RouterEngine::knows_model(std::string_view name) const {
  if (name.empty()) return true;
  const auto current = table();
  return current->deployments.contains(name) || current->versions.contains(name);
}

std::string RouterEngine::version_for(std::string_view model, std::string_view routing_key) const {
  const auto current = table();
  const std::string_view name = model.empty() ? kDefaultDeployment : model;
  if (const auto deployment = current->deployments.find(name);
      deployment != current->deployments.end()) {
    const Deployment& chosen = deployment->second;
    return chosen
        .slots[pick_share(chosen.split, routing_draw(chosen.split, routing_key, arm_draws_))]
        ->name;
  }
  if (const auto version = current->versions.find(name); version != current->versions.end())
    return version->second->name;
  return {};
}

Result<Engine::RequestId> RouterEngine::submit(GenerationRequest request,
                                               std::shared_ptr<GenerationSink> sink) {
  const auto current = table();
  const std::string_view name =
      request.model.empty() ? kDefaultDeployment : std::string_view(request.model);
  std::shared_ptr<Slot> slot;
  std::shared_ptr<Slot> shadow;
  if (const auto deployment = current->deployments.find(name);
      deployment != current->deployments.end()) {
    const Deployment& chosen = deployment->second;
    slot = chosen.slots[pick_share(chosen.split,
                                   routing_draw(chosen.split, request.routing_key, counter_))];
    if (chosen.shadow && chosen.shadow != slot &&
        shadow_takes(*chosen.split.shadow,
                     scramble(shadow_draws_.fetch_add(1, std::memory_order_relaxed))))
      shadow = chosen.shadow;
  } else if (const auto version = current->versions.find(name);
             version != current->versions.end()) {
    slot = version->second;  // pinned
  } else {
    return Error{ErrorCode::kNotFound,
                 fmt::format("no model '{}' here; GET /v1/models lists the deployments and "
                             "versions this server serves",
                             name),
                 "model", 0};
  }
  if (const VersionState state = slot->state.load(); state != VersionState::kReady) {
    return Error{ErrorCode::kUnavailable,
                 fmt::format("model version '{}' is {}{}{}", slot->name, version_state_name(state),
                             slot->reason.empty() ? "" : ": ", slot->reason),
                 "model", 0};
  }
  sink->on_version(slot->name);
  Figures& figures = *slot->figures;
  figures.in_flight.fetch_add(1);
  // The copy is made before production's submit, which moves the request, and queued after it.
  std::optional<ShadowCopy> copy =
      shadow ? copy_for_shadow(request, shadow) : std::optional<ShadowCopy>();
  auto counting =
      std::make_shared<VersionSink>(std::move(sink), slot->figures, copy ? copy->pair : nullptr);
  auto id = slot->engine->submit(std::move(request), std::move(counting));
  if (!id) {
    figures.in_flight.fetch_sub(1);
    const ErrorCode code = id.error().code;
    if (code == ErrorCode::kOverloaded || code == ErrorCode::kDeadline ||
        code == ErrorCode::kUnavailable) {
      figures.requests.fetch_add(1);  // refused: a request the version could not take
      figures.refusals.fetch_add(1);
    }
    return id.error();
  }
  figures.requests.fetch_add(1);
  if (copy) shadows_.offer(std::move(*copy));  // a full queue drops it (counted there)
  return (slot->index << kIndexShift) | (*id & kInnerMask);
}

void RouterEngine::cancel(RequestId id) {
  const auto current = table();
  const std::uint64_t index = id >> kIndexShift;
  if (index == 0 || index > current->by_index.size() || !current->by_index[index - 1] ||
      !current->by_index[index - 1]->engine)
    return;
  current->by_index[index - 1]->engine->cancel(id & kInnerMask);
}

bool RouterEngine::ready() const {
  const auto current = table();
  const auto found = current->deployments.find(kDefaultDeployment);
  if (found == current->deployments.end()) return false;
  for (std::size_t i = 0; i < found->second.slots.size(); ++i) {
    const Slot& slot = *found->second.slots[i];
    if (found->second.split.shares[i].weight > 0 && slot.state.load() == VersionState::kReady &&
        slot.engine->ready())
      return true;
  }
  return false;
}

EngineStats RouterEngine::stats() const {
  EngineStats total;
  for (const auto& slot : table()->by_index) {
    if (!slot || !slot->engine) continue;
    const EngineStats one = slot->engine->stats();
    total.running += one.running;
    total.waiting += one.waiting;
    for (int p = 0; p < kPriorityCount; ++p)
      total.waiting_by_priority[p] += one.waiting_by_priority[p];
    total.kv_cells_used += one.kv_cells_used;
    total.kv_cells_total += one.kv_cells_total;
    total.kv_cells_leaked += one.kv_cells_leaked;
    total.kv_sequences_leaking += one.kv_sequences_leaking;
    total.prefix_cache_tokens += one.prefix_cache_tokens;
    total.prefix_lookups += one.prefix_lookups;
    total.prefix_hits += one.prefix_hits;
    total.prompt_tokens_reused += one.prompt_tokens_reused;
    total.steps += one.steps;
    total.step_tokens += one.step_tokens;
    total.tokens_generated += one.tokens_generated;
    total.preemptions += one.preemptions;
    total.last_step_ms = std::max(total.last_step_ms, one.last_step_ms);
    total.busy_seconds += one.busy_seconds;
    total.threads = std::max(total.threads, one.threads);
    total.slots += one.slots;
    if (one.cost.iterations > total.cost.iterations) total.cost = one.cost;
  }
  return total;
}

void RouterEngine::shutdown() {
  shadows_.stop();  // no copy starts on an engine being shut down
  if (watch_.joinable() && watch_.get_id() != std::this_thread::get_id()) {
    watch_.request_stop();
    watch_.join();
  }
  for (const auto& slot : table()->by_index) {
    if (slot && slot->engine) slot->engine->shutdown();
  }
}

}  // namespace supportd::engine::router
