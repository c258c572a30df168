// The model-version router (see router_engine.h): the table of versions and deployments, the
// pick on submit, and the per-version figures.
#include "engine/router/router_engine.h"
#include "engine/router/router_table.h"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "obs/histogram_quantile.h"

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

namespace {

// Counts a request out of its version when it ends, and records its figures.
class CountingSink final : public GenerationSink {
 public:
  CountingSink(std::shared_ptr<GenerationSink> inner, std::shared_ptr<Figures> figures)
      : inner_(std::move(inner)), figures_(std::move(figures)) {}

  void on_version(std::string_view version) override { inner_->on_version(version); }
  void on_text(std::string_view text) override {
    // Timed from the router's submit, as the caller sees it (whatever delayed it).
    if (!first_token_seen_) {
      first_token_seen_ = true;
      figures_->ttft_ms.observe(milliseconds_since(submitted_));
    }
    inner_->on_text(text);
  }
  void on_done(const Completion& completion) override {
    if (completion.reason == FinishReason::kError) figures_->errors.fetch_add(1);
    if (completion.reason == FinishReason::kDeadline) figures_->refusals.fetch_add(1);
    figures_->e2e_ms.observe(milliseconds_since(submitted_));
    inner_->on_done(completion);
    figures_->in_flight.fetch_sub(1);  // after the answer's end: a drain waits for it
  }

 private:
  static double milliseconds_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  }

  const std::shared_ptr<GenerationSink> inner_;
  const std::shared_ptr<Figures> figures_;
  const Clock::time_point submitted_ = Clock::now();
  bool first_token_seen_ = false;  // the engine's thread alone reads and writes it
};

std::string describe(const Split& split) {
  std::string text;
  for (const Share& share : split.shares) {
    if (!text.empty()) text += ", ";
    text += fmt::format("{} {}%", share.version, share.weight);
  }
  return text + (split.sticky ? " (sticky)" : "");
}

}  // namespace

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

Status RouterEngine::add_version(const std::string& name, std::unique_ptr<Engine> engine,
                                 VersionFacts facts) {
  std::lock_guard change(change_mutex_);
  const auto current = table();
  if (name.empty()) return Error::invalid("a model version needs a name", "name");
  if (current->versions.contains(name) || current->deployments.contains(name))
    return Error::invalid(fmt::format("the name '{}' is already used", name), "name");
  auto slot = std::make_shared<Slot>();
  slot->name = name;
  slot->index = current->by_index.size() + 1;
  slot->card = engine->model();
  slot->card.id = name;
  slot->card.sha256 = facts.sha256;
  slot->card.bytes = facts.bytes;
  slot->card.architecture = facts.architecture;
  slot->card.quantization = facts.quantization;
  slot->card.chat_template_sha256 = facts.chat_template_sha256;
  if (!facts.expected_sha256.empty() && facts.expected_sha256 != facts.sha256) {
    slot->state = VersionState::kFailed;
    slot->reason = fmt::format("SHA-256 mismatch: the configuration expects {}, {} has {}",
                               facts.expected_sha256, facts.path, facts.sha256);
  }
  slot->facts = std::move(facts);
  slot->engine = std::move(engine);
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
  std::vector<std::shared_ptr<Slot>> slots;
  for (const Share& share : split.shares) {
    const std::string field = "weights." + share.version;
    const auto found = current->versions.find(share.version);
    if (found == current->versions.end())
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
  auto next = std::make_shared<Table>(*current);
  Deployment& target = next->deployments[deployment];
  RouteChange record{deployment, "set", target.split, split, who, unix_ms_now()};
  if (!target.split.shares.empty()) target.past.push_back(target.split);
  target.split = std::move(split);
  target.slots = std::move(slots);
  target.at_set.clear();
  for (const auto& slot : target.slots)
    target.at_set.push_back(sample_of(*slot));
  publish(std::move(next));
  {
    std::lock_guard lock(history_mutex_);
    history_.push_back(std::move(record));
  }
  return {};
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
  auto next = std::make_shared<Table>(*current);
  Deployment& target = next->deployments[deployment];
  RouteChange record{deployment, "rollback", target.split, previous, who, unix_ms_now()};
  target.split = previous;
  target.slots = std::move(slots);
  target.at_set.clear();
  for (const auto& slot : target.slots)
    target.at_set.push_back(sample_of(*slot));
  target.past.pop_back();
  publish(std::move(next));
  {
    std::lock_guard lock(history_mutex_);
    history_.push_back(std::move(record));
  }
  return {};
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
    }
    slot = found->second;
    VersionState expected = slot->state.load();
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
  slot->engine->shutdown();  // cancels what is left
  std::lock_guard change(change_mutex_);
  auto next = std::make_shared<Table>(*table());
  next->versions.erase(slot->name);
  next->by_index[slot->index - 1] = nullptr;  // its index is never reused
  for (auto& [name, deployment] : next->deployments) {
    std::erase_if(deployment.past, [&slot](const Split& split) {
      return std::any_of(split.shares.begin(), split.shares.end(),
                         [&slot](const Share& share) { return share.version == slot->name; });
    });
  }
  publish(std::move(next));
  // The engine itself is freed with the last table that holds the slot.
}

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
    const auto ttft = figures.ttft_ms.snapshot();
    view.ttft_p50_ms = obs::histogram_quantile(ttft, 0.5);
    view.ttft_p99_ms = obs::histogram_quantile(ttft, 0.99);
    view.e2e_p99_ms = obs::histogram_quantile(figures.e2e_ms.snapshot(), 0.99);
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

const ModelCard& RouterEngine::model() const {
  return card_;
}

bool RouterEngine::knows_model(std::string_view name) const {
  if (name.empty()) return true;
  const auto current = table();
  return current->deployments.contains(name) || current->versions.contains(name);
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

Result<Engine::RequestId> RouterEngine::submit(GenerationRequest request,
                                               std::shared_ptr<GenerationSink> sink) {
  const auto current = table();
  const std::string_view name =
      request.model.empty() ? kDefaultDeployment : std::string_view(request.model);
  std::shared_ptr<Slot> slot;
  if (const auto deployment = current->deployments.find(name);
      deployment != current->deployments.end()) {
    const Deployment& chosen = deployment->second;
    const std::uint64_t draw = chosen.split.sticky && !request.routing_key.empty()
                                   ? routing_hash(request.routing_key)
                                   : scramble(counter_.fetch_add(1, std::memory_order_relaxed));
    slot = chosen.slots[pick_share(chosen.split, draw)];
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
  auto counting = std::make_shared<CountingSink>(std::move(sink), slot->figures);
  auto id = slot->engine->submit(std::move(request), std::move(counting));
  if (!id) {
    figures.in_flight.fetch_sub(1);
    return id.error();
  }
  figures.requests.fetch_add(1);
  return (slot->index << kIndexShift) | (*id & kInnerMask);
}

void RouterEngine::cancel(RequestId id) {
  const auto current = table();
  const std::uint64_t index = id >> kIndexShift;
  if (index == 0 || index > current->by_index.size() || !current->by_index[index - 1]) return;
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
    if (!slot) continue;
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
  }
  return total;
}

void RouterEngine::shutdown() {
  if (watch_.joinable() && watch_.get_id() != std::this_thread::get_id()) {
    watch_.request_stop();
    watch_.join();
  }
  for (const auto& slot : table()->by_index) {
    if (slot) slot->engine->shutdown();
  }
}

}  // namespace supportd::engine::router
