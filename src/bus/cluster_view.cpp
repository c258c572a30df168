// Engine heartbeats and queue depths, gathered for a gateway's admission.
#include "bus/cluster_view.h"

#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include <spdlog/spdlog.h>

#include "bus/subjects.h"
#include "bus/wire.h"

namespace supportd::bus {
namespace {

using Clock = std::chrono::steady_clock;

// An engine is alive while its heartbeats come: gone after three missed ones.
Clock::time_point alive_until(const EngineLoad& load, Clock::time_point heard) {
  return heard + 3 * std::chrono::milliseconds(load.heartbeat_ms) + std::chrono::milliseconds(250);
}

}  // namespace

struct ClusterView::State {
  State(Connection& c, std::chrono::milliseconds p) : connection(c), jetstream(c), poll(p) {}

  Connection& connection;
  JetStream jetstream;
  const std::chrono::milliseconds poll;
  std::unique_ptr<Subscription> heartbeats;
  std::thread thread;

  mutable std::mutex mutex;
  std::condition_variable wake;
  bool stopping = false;  // guarded by mutex
  struct Heard {
    EngineLoad load;
    Clock::time_point when;
  };
  std::map<std::string, Heard> engines;                       // guarded by mutex
  std::array<std::int64_t, engine::kPriorityCount> queued{};  // guarded by mutex
  bool queue_known = false;                                   // guarded by mutex
  std::optional<engine::ModelCard> model;                     // guarded by mutex
  // When the last ready engine heard of stops counting as alive; guarded by mutex.
  Clock::time_point engines_until = Clock::now();

  void on_heartbeat(const Message& message) {
    auto load = decode_engine_load(message.data);
    if (!load) {
      spdlog::warn("bus: ignoring an engine heartbeat: {}", load.error().message);
      return;
    }
    std::lock_guard lock(mutex);
    const auto now = Clock::now();
    if (load->ready) {
      if (!model) model = load->model;
      engines_until = std::max(engines_until, alive_until(*load, now));
    }
    // The id is read before the load moves (the right side of `=` is evaluated first).
    const std::string id = load->engine_id;
    engines[id] = {std::move(load).value(), now};
  }

  void read_queues() {
    std::array<std::int64_t, engine::kPriorityCount> depth{};
    for (int p = 0; p < engine::kPriorityCount; ++p) {
      auto state = jetstream.consumer_state(std::string(subjects::kRequestStream),
                                            subjects::consumer(static_cast<engine::Priority>(p)));
      if (!state) {
        std::lock_guard lock(mutex);
        queue_known = false;
        return;
      }
      depth[static_cast<std::size_t>(p)] = static_cast<std::int64_t>(state->pending);
    }
    std::lock_guard lock(mutex);
    queued = depth;
    queue_known = true;
  }

  void run() {
    std::unique_lock lock(mutex);
    while (!stopping) {
      lock.unlock();
      if (connection.connected()) {
        read_queues();
      } else {
        std::lock_guard guard(mutex);
        queue_known = false;
      }
      lock.lock();
      wake.wait_for(lock, poll, [&] { return stopping; });
    }
  }
};

ClusterView::ClusterView(std::unique_ptr<State> state) : state_(std::move(state)) {}

ClusterView::~ClusterView() {
  {
    std::lock_guard lock(state_->mutex);
    state_->stopping = true;
    state_->wake.notify_all();
  }
  if (state_->thread.joinable()) state_->thread.join();
  state_->heartbeats.reset();
}

Result<std::unique_ptr<ClusterView>> ClusterView::start(Connection& connection,
                                                        std::chrono::milliseconds poll) {
  auto state = std::make_unique<State>(connection, poll);
  State* s = state.get();
  auto subscription = connection.subscribe(std::string(subjects::kEnginePrefix) + "*",
                                           [s](const Message& m) { s->on_heartbeat(m); });
  if (!subscription) return subscription.error();
  s->heartbeats = std::move(subscription).value();
  s->thread = std::thread([s] { s->run(); });
  return std::unique_ptr<ClusterView>(new ClusterView(std::move(state)));
}

void ClusterView::stored(engine::Priority priority) {
  std::lock_guard lock(state_->mutex);
  ++state_->queued[static_cast<std::size_t>(priority)];
}

ClusterSnapshot ClusterView::snapshot() const {
  const auto now = Clock::now();
  std::lock_guard lock(state_->mutex);
  ClusterSnapshot snapshot;
  double rate = 0, service = 0;
  int measured = 0;
  for (auto it = state_->engines.begin(); it != state_->engines.end();) {
    const EngineLoad& load = it->second.load;
    if (now >= alive_until(load, it->second.when)) {
      it = state_->engines.erase(it);
      continue;
    }
    if (load.ready) {
      ++snapshot.engines;
      snapshot.slots += load.slots;
      snapshot.held += load.held;
      rate += load.completion_rate;
      if (load.service_seconds > 0) {
        service += load.service_seconds;
        ++measured;
      }
    }
    ++it;
  }
  snapshot.completion_rate = rate;
  snapshot.service_seconds = measured > 0 ? service / measured : 0;
  snapshot.queued = state_->queued;
  snapshot.queue_known = state_->queue_known;
  snapshot.model = state_->model;
  if (snapshot.engines == 0 && now > state_->engines_until) {
    snapshot.without_engines =
        std::chrono::duration_cast<std::chrono::milliseconds>(now - state_->engines_until);
  }
  return snapshot;
}

}  // namespace supportd::bus
