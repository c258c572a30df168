// The engine node's worker: one thread pulls, starts, keeps alive and acknowledges requests;
// the local engine's thread publishes their tokens (EventSink); libnats threads deliver cancel
// orders and "new work" pings.
#include "bus/engine_worker.h"

#include <algorithm>
#include <array>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "bus/blobs.h"
#include "bus/jetstream.h"
#include "bus/node_id.h"
#include "bus/rate_meter.h"
#include "bus/subjects.h"
#include "bus/token_sink.h"
#include "bus/wire.h"

namespace supportd::bus {

using engine::Clock;

struct EngineWorker::State {
  State(Connection& c, engine::Engine& e, WorkerOptions o)
      : connection(c), local(e), options(std::move(o)), jetstream(c), blobs(jetstream) {}

  Connection& connection;
  engine::Engine& local;
  const WorkerOptions options;
  JetStream jetstream;
  Blobs blobs;
  std::shared_ptr<Mailbox> mailbox = std::make_shared<Mailbox>();
  std::array<std::unique_ptr<PullConsumer>, sched::kPriorityCount> consumers;  // worker thread
  std::unique_ptr<Subscription> cancel_subscription;
  std::unique_ptr<Subscription> work_subscription;
  std::thread thread;
  // Heartbeats come from a thread of their own, so a slow pull or acknowledgement never makes
  // gateways count this node as gone.
  std::thread heartbeat;
  std::mutex heartbeat_mutex;
  std::condition_variable heartbeat_wake;
  bool heartbeat_stop = false;  // guarded by heartbeat_mutex
  std::atomic<bool> stopping{false};
  std::atomic<bool> stopped{false};
  std::atomic<bool> abandon{false};  // leave what is still held to JetStream's redelivery

  struct Held {
    std::shared_ptr<Flight> flight;
    std::optional<Delivery> delivery;  // touched by the worker thread only
    engine::Engine::RequestId local_id = 0;
    bool submitted = false;
    Clock::time_point started;
  };
  mutable std::mutex mutex;
  std::map<std::string, Held> held;                              // guarded by mutex
  std::unordered_map<std::string, Clock::time_point> cancelled;  // guarded by mutex
  RateMeter meter;                                               // guarded by mutex
  WorkerStats counters;                                          // guarded by mutex

  void run();
  bool take_one();
  void begin(Delivery delivery);
  void settle(const Ended& ended);
  void keep_alive();
  void publish_load();
  void beat();
  void on_cancel(const Message& message);
  void give_back_all();
  // Asks the gateway of a redelivered request how far its customer's stream got.
  Result<ProgressReply> ask_progress(const WorkOrder& order, std::uint64_t attempt);
  void publish_end(const std::string& subject, const std::string& request_id, std::uint64_t attempt,
                   std::uint64_t sequence, engine::FinishReason reason, Error error);
  int held_count() const {
    std::lock_guard lock(mutex);
    return static_cast<int>(held.size());
  }
};

EngineWorker::EngineWorker(std::unique_ptr<State> state) : state_(std::move(state)) {}

EngineWorker::~EngineWorker() {
  stop(std::chrono::milliseconds(0));
}

const std::string& EngineWorker::engine_id() const {
  return state_->options.engine_id;
}

Result<std::unique_ptr<EngineWorker>> EngineWorker::start(Connection& connection,
                                                          engine::Engine& local,
                                                          WorkerOptions options) {
  if (options.engine_id.empty()) options.engine_id = unique_node_id();
  if (options.slots < 1) return Error::invalid("an engine node needs at least one slot", "slots");
  auto state = std::make_unique<State>(connection, local, std::move(options));
  State* s = state.get();
  if (Status declared = declare_topology(s->jetstream, s->options.cluster); !declared)
    return declared.error();
  for (int p = 0; p < sched::kPriorityCount; ++p) {
    const auto priority = static_cast<sched::Priority>(p);
    ConsumerSpec spec{std::string(subjects::kRequestStream), subjects::consumer(priority),
                      subjects::request(priority), s->options.cluster.ack_wait,
                      s->options.cluster.max_deliver};
    auto consumer = PullConsumer::bind(s->jetstream, spec);
    if (!consumer) return consumer.error();
    s->consumers[static_cast<std::size_t>(p)] = std::move(consumer).value();
  }
  auto cancels = connection.subscribe(std::string(subjects::kCancelPrefix) + ">",
                                      [s](const Message& m) { s->on_cancel(m); });
  if (!cancels) return cancels.error();
  s->cancel_subscription = std::move(cancels).value();
  std::shared_ptr<Mailbox> mailbox = s->mailbox;
  auto work = connection.subscribe(subjects::kWork, [mailbox](const Message&) {
    std::lock_guard lock(mailbox->mutex);
    mailbox->work_hint = true;
    mailbox->wake.notify_all();
  });
  if (!work) return work.error();
  s->work_subscription = std::move(work).value();
  connection.set_reconnected_handler([mailbox] {
    std::lock_guard lock(mailbox->mutex);
    mailbox->redeclare = true;
    mailbox->wake.notify_all();
  });
  s->meter.set_held(0, Clock::now());
  s->thread = std::thread([s] { s->run(); });
  s->heartbeat = std::thread([s] { s->beat(); });
  spdlog::info("bus: engine node {} pulling from {} ({} slots, ack wait {} ms)",
               s->options.engine_id, subjects::kRequestStream, s->options.slots,
               s->options.cluster.ack_wait.count());
  return std::unique_ptr<EngineWorker>(new EngineWorker(std::move(state)));
}

void EngineWorker::stop(std::chrono::milliseconds grace) {
  State& s = *state_;
  if (s.stopped.exchange(true)) return;
  s.stopping = true;
  const auto give_up = Clock::now() + grace;
  while (Clock::now() < give_up && s.held_count() > 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  s.give_back_all();
  // The local engine ends what it was told to stop within a step; bounded all the same.
  const auto settle_by = Clock::now() + std::chrono::seconds(5);
  while (Clock::now() < settle_by && s.held_count() > 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  s.abandon = true;
  {
    std::lock_guard lock(s.mailbox->mutex);
    s.mailbox->wake.notify_all();
  }
  if (s.thread.joinable()) s.thread.join();
  {
    std::lock_guard lock(s.heartbeat_mutex);
    s.heartbeat_stop = true;
    s.heartbeat_wake.notify_all();
  }
  if (s.heartbeat.joinable()) s.heartbeat.join();
  s.publish_load();  // says not ready: gateways stop counting this node
  s.connection.set_reconnected_handler(nullptr);
  s.cancel_subscription.reset();
  s.work_subscription.reset();
  std::lock_guard lock(s.mutex);
  s.held.clear();  // deliveries before their consumers
}

WorkerStats EngineWorker::stats() const {
  std::lock_guard lock(state_->mutex);
  WorkerStats stats = state_->counters;
  stats.held = static_cast<int>(state_->held.size());
  stats.completion_rate = state_->meter.completion_rate(Clock::now());
  stats.service_seconds = state_->meter.service_seconds();
  return stats;
}

void EngineWorker::State::run() {
  auto next_alive = Clock::now();
  const auto alive_every = std::max(options.cluster.ack_wait / 4, std::chrono::milliseconds(50));
  for (;;) {
    std::deque<Ended> ended;
    bool redeclare_now = false;
    {
      std::lock_guard lock(mailbox->mutex);
      ended.swap(mailbox->ended);
      std::swap(redeclare_now, mailbox->redeclare);
      mailbox->work_hint = false;
    }
    for (const Ended& e : ended)
      settle(e);
    if (redeclare_now) {
      if (Status s = declare_topology(jetstream, options.cluster); !s)
        spdlog::warn("bus: declaring the streams again failed: {}", s.error().message);
    }
    if ((stopping.load() && held_count() == 0) || abandon.load()) break;
    const auto now = Clock::now();
    if (now >= next_alive) {
      keep_alive();
      next_alive = now + alive_every;
    }
    if (!stopping.load() && held_count() < options.slots && local.ready() &&
        connection.connected() && take_one())
      continue;  // maybe another slot is free and more work waits
    std::unique_lock lock(mailbox->mutex);
    const auto until = std::min(next_alive, Clock::now() + options.idle_poll);
    mailbox->wake.wait_until(lock, until, [&] {
      return !mailbox->ended.empty() || mailbox->work_hint || mailbox->redeclare ||
             abandon.load() || (stopping.load() && held_count() == 0);
    });
  }
}

void EngineWorker::State::beat() {
  std::unique_lock lock(heartbeat_mutex);
  while (!heartbeat_stop) {
    lock.unlock();
    publish_load();
    lock.lock();
    heartbeat_wake.wait_for(lock, options.heartbeat, [&] { return heartbeat_stop; });
  }
}

bool EngineWorker::State::take_one() {
  for (auto& consumer : consumers) {  // high, normal, low
    auto taken = consumer->take();
    if (!taken) {
      spdlog::debug("bus: pull failed: {}", taken.error().message);
      return false;
    }
    if (taken->has_value()) {
      begin(std::move(**taken));
      return true;
    }
  }
  return false;
}

void EngineWorker::State::publish_end(const std::string& subject, const std::string& request_id,
                                      std::uint64_t attempt, std::uint64_t sequence,
                                      engine::FinishReason reason, Error error) {
  StreamEvent event;
  event.kind = StreamEvent::Kind::kDone;
  event.request_id = request_id;
  event.attempt = attempt;
  event.sequence = sequence;
  event.completion.reason = reason;
  event.completion.error = std::move(error);
  if (Status s = connection.publish(subject, encode(event)); !s)
    spdlog::warn("bus: the end of {} not sent: {}", request_id, s.error().message);
}

Result<ProgressReply> EngineWorker::State::ask_progress(const WorkOrder& order,
                                                        std::uint64_t attempt) {
  const ProgressQuery query{order.request_id, attempt, options.engine_id};
  auto answer = connection.request(subjects::progress(order.gateway_id, order.request_id),
                                   encode(query), std::chrono::milliseconds(1000));
  if (!answer) return answer.error();
  auto unwrapped = blobs.unwrap(std::move(answer).value());
  if (!unwrapped) return unwrapped.error();
  return decode_progress_reply(*unwrapped);
}

void EngineWorker::State::begin(Delivery delivery) {
  auto data = blobs.unwrap(std::string(delivery.data()));
  Result<WorkOrder> order = data ? decode_work_order(*data) : Result<WorkOrder>(data.error());
  if (!order) {
    // Nobody can be told (the order names its gateway): never deliver it again.
    spdlog::error("bus: dropping an unreadable request (stream sequence {}): {}",
                  delivery.stream_sequence(), order.error().message);
    (void)delivery.term();
    std::lock_guard lock(mutex);
    ++counters.dropped;
    return;
  }
  const std::string events = subjects::tokens(order->gateway_id, order->request_id);
  const std::uint64_t attempt = delivery.attempt();
  {
    std::lock_guard lock(mutex);
    if (cancelled.contains(order->request_id)) {
      (void)delivery.ack();
      ++counters.dropped;
      return;
    }
  }
  std::uint64_t delivered = 0;
  if (attempt > 1) {  // resume after what the customer already has
    Result<ProgressReply> reply = ask_progress(*order, attempt);
    if (!reply || reply->state != ProgressReply::State::kStreaming) {
      if (!reply && reply.error().code == ErrorCode::kDeadline) {
        (void)delivery.nak();  // the gateway is there but slow: try again
      } else {
        (void)delivery.ack();  // its gateway is gone, or the customer has it all
      }
      spdlog::info("bus: not resuming {} (attempt {}): {}", order->request_id, attempt,
                   reply ? "the customer needs nothing more" : reply.error().message);
      std::lock_guard lock(mutex);
      ++counters.dropped;
      return;
    }
    delivered = reply->delivered;
    order->request.continuation = std::move(reply->text);
  }
  if (order->request.deadline && Clock::now() >= *order->request.deadline) {
    publish_end(events, order->request_id, attempt, delivered + 1, engine::FinishReason::kDeadline,
                Error::make(ErrorCode::kDeadline,
                            "the request's deadline passed before an engine could take it"));
    (void)delivery.ack();
    std::lock_guard lock(mutex);
    ++counters.dropped;
    return;
  }

  auto flight = std::make_shared<Flight>();
  flight->request_id = order->request_id;
  flight->key = fmt::format("{}#{}", order->request_id, attempt);
  flight->events_subject = events;
  flight->attempt = attempt;
  flight->next_sequence = delivered + 1;
  StreamEvent started;
  started.kind = StreamEvent::Kind::kStarted;
  started.request_id = order->request_id;
  started.attempt = attempt;
  started.engine_id = options.engine_id;
  (void)connection.publish(events, encode(started));
  {
    std::lock_guard lock(mutex);
    Held entry{flight, std::move(delivery), 0, false, Clock::now()};
    held.emplace(flight->key, std::move(entry));
    meter.set_held(static_cast<int>(held.size()), Clock::now());
  }
  auto sink = std::make_shared<TokenSink>(connection, flight, mailbox);
  auto id = local.submit(std::move(order->request), sink);
  std::lock_guard lock(mutex);
  Held& entry = held.at(flight->key);
  if (!id) {
    publish_end(events, flight->request_id, attempt, flight->next_sequence,
                engine::FinishReason::kError, id.error());
    std::lock_guard mailbox_lock(mailbox->mutex);
    mailbox->ended.push_back({flight->key, Clock::now()});
    return;
  }
  entry.local_id = *id;
  entry.submitted = true;
  ++counters.taken;
  if (attempt > 1) ++counters.resumed;
  if (flight->silenced.load()) local.cancel(*id);  // a cancel order came while submitting
}

void EngineWorker::State::settle(const Ended& ended) {
  std::optional<Held> entry;
  {
    std::lock_guard lock(mutex);
    auto it = held.find(ended.key);
    if (it == held.end()) return;
    entry = std::move(it->second);
    held.erase(it);
    meter.set_held(static_cast<int>(held.size()), ended.when);
    meter.record_finish(entry->started, ended.when);
  }
  const auto disposition = static_cast<Disposition>(entry->flight->disposition.load());
  Status status;
  if (disposition == Disposition::kAck) status = entry->delivery->ack();
  if (disposition == Disposition::kNak) status = entry->delivery->nak();
  if (!status)
    spdlog::warn("bus: settling {} failed ({}); JetStream redelivers it after the ack wait",
                 ended.key, status.error().message);
  std::lock_guard lock(mutex);
  if (disposition == Disposition::kNak) {
    ++counters.given_back;
  } else {
    ++counters.finished;
  }
}

void EngineWorker::State::keep_alive() {
  std::lock_guard lock(mutex);
  for (auto& [key, entry] : held) {
    if (entry.flight->silenced.load()) continue;
    (void)entry.delivery->in_progress();
    StreamEvent alive;
    alive.kind = StreamEvent::Kind::kAlive;
    alive.request_id = entry.flight->request_id;
    alive.attempt = entry.flight->attempt;
    (void)connection.publish(entry.flight->events_subject, encode(alive));
  }
  const auto now = Clock::now();
  for (auto it = cancelled.begin(); it != cancelled.end();) {
    it = now - it->second > std::chrono::minutes(1) ? cancelled.erase(it) : std::next(it);
  }
}

void EngineWorker::State::publish_load() {
  EngineLoad load;
  load.engine_id = options.engine_id;
  load.model = local.model();
  load.ready = local.ready() && !stopping.load();
  load.slots = options.slots;
  load.heartbeat_ms = static_cast<int>(options.heartbeat.count());
  {
    std::lock_guard lock(mutex);
    load.held = static_cast<int>(held.size());
    load.completion_rate = meter.completion_rate(Clock::now());
    load.service_seconds = meter.service_seconds();
  }
  (void)connection.publish(std::string(subjects::kEnginePrefix) + options.engine_id, encode(load));
}

void EngineWorker::State::on_cancel(const Message& message) {
  auto order = decode_cancel_order(message.data);
  if (!order) {
    spdlog::warn("bus: ignoring a cancel order: {}", order.error().message);
    return;
  }
  std::lock_guard lock(mutex);
  bool found = false;
  for (auto& [key, entry] : held) {
    if (entry.flight->request_id != order->request_id) continue;
    if (order->below_attempt != 0 && entry.flight->attempt >= order->below_attempt) continue;
    found = true;
    const Disposition disposition = order->give_back            ? Disposition::kNak
                                    : order->below_attempt != 0 ? Disposition::kNone
                                                                : Disposition::kAck;
    entry.flight->disposition = static_cast<int>(disposition);
    entry.flight->silenced = true;
    if (entry.submitted) local.cancel(entry.local_id);
  }
  if (!found && order->below_attempt == 0 && !order->give_back)
    cancelled.emplace(order->request_id, Clock::now());
}

void EngineWorker::State::give_back_all() {
  std::lock_guard lock(mutex);
  for (auto& [key, entry] : held) {
    entry.flight->disposition = static_cast<int>(Disposition::kNak);
    entry.flight->silenced = true;
    if (entry.submitted) local.cancel(entry.local_id);
  }
}

}  // namespace supportd::bus
