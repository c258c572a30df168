// The gateway's Engine over the cluster: submit stores, the token subscription feeds sinks in
// sequence order, the progress subscription answers resuming engines, and a watch thread ends
// what cannot go on (engine/remote/remote_engine.h).
#include "engine/remote/remote_engine.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <unordered_map>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "bus/blobs.h"
#include "bus/cluster_admission.h"
#include "bus/cluster_view.h"
#include "bus/jetstream.h"
#include "bus/node_id.h"
#include "bus/subjects.h"
#include "bus/wire.h"
#include "engine/remote/serial_sink.h"

namespace supportd::engine::remote {
namespace {

using bus::StreamEvent;

double ms_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

struct Call {
  Engine::RequestId id = 0;
  std::string wire_id;
  Priority priority = Priority::kNormal;
  std::shared_ptr<SerialSink> sink;
  std::optional<Clock::time_point> deadline;
  Clock::time_point submitted;
  std::optional<Clock::time_point> started;      // the first attempt's start
  std::optional<Clock::time_point> first_token;  // the first token delivered
  Clock::time_point last_heard;                  // any event of the current attempt
  bool holder_known = false;                     // the current attempt started (an engine holds it)
  std::uint64_t attempt = 1;                     // the current attempt
  std::uint64_t min_attempt = 1;                 // events of attempts below are dropped
  std::uint64_t delivered = 0;                   // tokens passed to the sink
  std::string text;                              // their text
  std::string wrapped;  // the stored message (a reference when it was large)
  std::uint64_t stream_sequence = 0;
  std::optional<Clock::time_point> paused_since;  // the holder went silent
  Clock::time_point next_queue_check;             // while paused
};

}  // namespace

struct RemoteEngine::State {
  State(bus::Connection& c, RemoteOptions o)
      : connection(c), options(std::move(o)), jetstream(c), blobs(jetstream) {}

  bus::Connection& connection;
  const RemoteOptions options;
  bus::JetStream jetstream;
  bus::Blobs blobs;
  std::unique_ptr<bus::ClusterView> view;
  std::unique_ptr<bus::Subscription> events_subscription;
  std::unique_ptr<bus::Subscription> progress_subscription;
  std::thread watcher;
  std::atomic<bool> stopping{false};  // no new requests
  bool finishing = false;  // guarded by mutex: the watch thread ends once cleanup is done
  std::atomic<std::uint64_t> next_id{1};
  ModelCard placeholder{"cluster",
                        "a supportd cluster gateway; no engine node has announced itself yet", 0,
                        false, "supportd"};
  std::mutex card_mutex;
  ModelCard engines_card;                            // set once, before `card` points at it
  std::atomic<const ModelCard*> card{&placeholder};  // what model() returns

  // Takes the engines' model card once one has announced itself.
  void adopt_card(const bus::ClusterSnapshot& cluster) {
    if (!cluster.model || card.load() != &placeholder) return;
    std::lock_guard lock(card_mutex);
    if (card.load() != &placeholder) return;
    engines_card = *cluster.model;
    card = &engines_card;
  }

  mutable std::mutex mutex;
  std::condition_variable wake;
  std::unordered_map<Engine::RequestId, std::shared_ptr<Call>> calls;  // guarded by mutex
  std::deque<std::function<void()>> cleanup;  // JetStream calls off callers' threads; guarded
  RemoteStats counters;                       // guarded by mutex
  bool redeclare = false;                     // guarded by mutex

  std::shared_ptr<Call> find(std::string_view wire_id) {  // REQUIRES: mutex held
    const std::size_t dash = wire_id.rfind('-');
    if (dash == std::string_view::npos) return nullptr;
    Engine::RequestId id = 0;
    for (char c : wire_id.substr(dash + 1)) {
      if (c < '0' || c > '9') return nullptr;
      id = id * 10 + static_cast<Engine::RequestId>(c - '0');
    }
    auto it = calls.find(id);
    if (it == calls.end() || it->second->wire_id != wire_id) return nullptr;
    return it->second;
  }

  Completion completion_for(const Call& call, FinishReason reason, Error error) const {
    Completion completion;
    completion.reason = reason;
    completion.error = std::move(error);
    completion.usage.completion_tokens = static_cast<int>(call.delivered);
    stamp(call, completion);
    return completion;
  }

  static void stamp(const Call& call, Completion& completion) {
    const auto now = Clock::now();
    completion.timings.queued_ms = ms_between(call.submitted, call.started.value_or(now));
    completion.timings.first_token_ms =
        call.first_token ? ms_between(call.submitted, *call.first_token) : -1;
    completion.timings.total_ms = ms_between(call.submitted, now);
  }

  // Removes `call` and ends its stream; `stop_holders`: tell engines to stop it, and delete
  // its stored message so no engine starts it later. REQUIRES: mutex held (released inside).
  void end(std::unique_lock<std::mutex>& lock, const std::shared_ptr<Call>& call,
           Completion completion, bool stop_holders) {
    calls.erase(call->id);
    const std::string wire_id = call->wire_id;
    const std::string wrapped = std::move(call->wrapped);
    const std::uint64_t sequence = call->stream_sequence;
    cleanup.push_back([this, wire_id, wrapped, sequence, stop_holders] {
      if (stop_holders && sequence != 0)
        (void)jetstream.remove(std::string(bus::subjects::kRequestStream), sequence);
      blobs.release(wrapped);
    });
    wake.notify_all();
    lock.unlock();
    if (stop_holders) {
      (void)connection.publish(bus::subjects::cancel(wire_id),
                               bus::encode(bus::CancelOrder{wire_id, 0, false}));
    }
    call->sink->done(completion);
  }

  // Gives up on a request that cannot go on. REQUIRES: mutex held (released inside).
  void fail(std::unique_lock<std::mutex>& lock, const std::shared_ptr<Call>& call, ErrorCode code,
            std::string message) {
    ++counters.lost;
    spdlog::warn("cluster: request {} ends: {}", call->wire_id, message);
    const FinishReason reason =
        code == ErrorCode::kDeadline ? FinishReason::kDeadline : FinishReason::kError;
    end(lock, call, completion_for(*call, reason, Error::make(code, std::move(message))), true);
  }

  // The holder of attempt `attempt` lost part of the stream: hand the request back so the
  // next attempt resumes after what was delivered. REQUIRES: mutex held.
  void give_back(Call& call, std::uint64_t attempt) {
    ++counters.gaps;
    call.min_attempt = attempt + 1;
    call.holder_known = false;
    call.paused_since = Clock::now();
    (void)connection.publish(bus::subjects::cancel(call.wire_id),
                             bus::encode(bus::CancelOrder{call.wire_id, attempt + 1, true}));
  }

  void on_event(const bus::Message& message);
  void on_progress(const bus::Message& message);
  void watch();
  void check(std::unique_lock<std::mutex>& lock, const bus::ClusterSnapshot& cluster);
};

RemoteEngine::RemoteEngine(std::shared_ptr<State> state) : state_(std::move(state)) {}

RemoteEngine::~RemoteEngine() {
  shutdown();
}

const std::string& RemoteEngine::gateway_id() const {
  return state_->options.gateway_id;
}

Result<std::unique_ptr<RemoteEngine>> RemoteEngine::create(bus::Connection& connection,
                                                           RemoteOptions options) {
  if (options.gateway_id.empty()) options.gateway_id = bus::unique_node_id();
  auto state = std::make_shared<State>(connection, std::move(options));
  State* s = state.get();
  if (Status declared = bus::declare_topology(s->jetstream, s->options.cluster); !declared)
    return declared.error();
  auto view = bus::ClusterView::start(connection, s->options.queue_poll);
  if (!view) return view.error();
  s->view = std::move(view).value();
  auto events = connection.subscribe(bus::subjects::tokens_of_gateway(s->options.gateway_id),
                                     [s](const bus::Message& m) { s->on_event(m); });
  if (!events) return events.error();
  s->events_subscription = std::move(events).value();
  auto progress = connection.subscribe(bus::subjects::progress_of_gateway(s->options.gateway_id),
                                       [s](const bus::Message& m) { s->on_progress(m); });
  if (!progress) return progress.error();
  s->progress_subscription = std::move(progress).value();
  connection.set_reconnected_handler([s] {
    std::lock_guard lock(s->mutex);
    s->redeclare = true;
    s->wake.notify_all();
  });
  s->watcher = std::thread([s] { s->watch(); });
  spdlog::info("cluster: gateway {} storing requests on {}", s->options.gateway_id,
               bus::subjects::kRequestStream);
  return std::unique_ptr<RemoteEngine>(new RemoteEngine(std::move(state)));
}

const ModelCard& RemoteEngine::model() const {
  if (state_->card.load() == &state_->placeholder) state_->adopt_card(state_->view->snapshot());
  return *state_->card.load();
}

bool RemoteEngine::ready() const {
  if (state_->stopping.load() || !state_->connection.connected()) return false;
  const bus::ClusterSnapshot cluster = state_->view->snapshot();
  state_->adopt_card(cluster);
  return cluster.engines > 0;
}

Result<Engine::RequestId> RemoteEngine::submit(GenerationRequest request,
                                               std::shared_ptr<GenerationSink> sink) {
  State& s = *state_;
  if (s.stopping.load()) return Error::make(ErrorCode::kUnavailable, "the server is shutting down");
  bus::AdmissionFacts facts{s.view->snapshot(), s.connection.connected(), s.connection.down_for(),
                            s.connection.options().reconnect_wait, s.options.cluster.queue_bound};
  std::optional<std::chrono::duration<double>> time_left;
  if (request.deadline) time_left = *request.deadline - Clock::now();
  if (auto refusal = bus::refuse(facts, request.priority, time_left)) return *refusal;

  auto call = std::make_shared<Call>();
  call->id = s.next_id++;
  call->wire_id = fmt::format("{}-{}", s.options.gateway_id, call->id);
  call->priority = request.priority;
  call->deadline = request.deadline;
  call->sink = std::make_shared<SerialSink>(std::move(sink));
  call->submitted = call->last_heard = Clock::now();
  const std::string subject = bus::subjects::request(request.priority);
  auto wrapped = s.blobs.wrap(
      call->wire_id,
      bus::encode(bus::WorkOrder{call->wire_id, s.options.gateway_id, std::move(request)}));
  if (!wrapped) return wrapped.error();
  call->wrapped = *wrapped;
  {
    std::lock_guard lock(s.mutex);
    s.calls.emplace(call->id, call);  // before storing: its first token may come at once
  }
  auto stored = s.jetstream.store(subject, *wrapped, call->wire_id, s.options.store_timeout);
  if (!stored && stored.error().code == ErrorCode::kDeadline)  // the same id: stored once
    stored = s.jetstream.store(subject, *wrapped, call->wire_id, s.options.store_timeout);
  if (!stored) {
    {
      std::lock_guard lock(s.mutex);
      s.calls.erase(call->id);
    }
    s.blobs.release(*wrapped);
    Error error = stored.error();
    if (error.code == ErrorCode::kDeadline) error.code = ErrorCode::kUnavailable;
    if (error.retry_after_s == 0) {
      const auto wait = bus::expected_wait_seconds(facts.cluster, call->priority);
      error.retry_after_s = std::max(1, static_cast<int>(wait.value_or(1.0) + 0.999));
    }
    return error;
  }
  {
    std::lock_guard lock(s.mutex);
    call->stream_sequence = stored->sequence;
    ++s.counters.submitted;
  }
  s.view->stored(call->priority);
  (void)s.connection.publish(bus::subjects::kWork, "");
  return call->id;
}

void RemoteEngine::cancel(RequestId id) {
  State& s = *state_;
  std::unique_lock lock(s.mutex);
  auto it = s.calls.find(id);
  if (it == s.calls.end()) return;
  std::shared_ptr<Call> call = it->second;
  s.end(lock, call, s.completion_for(*call, FinishReason::kCancelled, {}), true);
}

EngineStats RemoteEngine::stats() const {
  const bus::ClusterSnapshot cluster = state_->view->snapshot();
  EngineStats stats;
  stats.running = cluster.held;
  for (int p = 0; p < kPriorityCount; ++p) {
    const auto queued = static_cast<int>(cluster.queued[static_cast<std::size_t>(p)]);
    stats.waiting_by_priority[p] = queued;
    stats.waiting += queued;
  }
  return stats;
}

RemoteStats RemoteEngine::remote_stats() const {
  std::lock_guard lock(state_->mutex);
  RemoteStats stats = state_->counters;
  stats.engines = state_->view->snapshot().engines;
  return stats;
}

void RemoteEngine::shutdown() {
  State& s = *state_;
  if (s.stopping.exchange(true)) return;
  std::unique_lock lock(s.mutex);
  while (!s.calls.empty()) {
    std::shared_ptr<Call> call = s.calls.begin()->second;
    s.end(lock, call,
          s.completion_for(*call, FinishReason::kCancelled,
                           Error::make(ErrorCode::kCancelled, "the server is shutting down")),
          true);
    lock.lock();
  }
  s.finishing = true;
  s.wake.notify_all();
  lock.unlock();
  if (s.watcher.joinable()) s.watcher.join();
  s.connection.set_reconnected_handler(nullptr);
  s.events_subscription.reset();
  s.progress_subscription.reset();
}

void RemoteEngine::State::on_event(const bus::Message& message) {
  auto event = bus::decode_stream_event(message.data);
  if (!event) {
    spdlog::warn("cluster: ignoring a stream event on {}: {}", message.subject,
                 event.error().message);
    return;
  }
  std::unique_lock lock(mutex);
  std::shared_ptr<Call> call = find(event->request_id);
  if (!call) return;  // it ended here already
  if (event->attempt < call->min_attempt || event->attempt > call->attempt) {
    ++counters.superseded;
    return;
  }
  const auto now = Clock::now();
  call->last_heard = now;
  switch (event->kind) {
    case StreamEvent::Kind::kStarted:
      call->holder_known = true;
      if (!call->started) call->started = now;
      return;
    case StreamEvent::Kind::kAlive: call->holder_known = true; return;
    case StreamEvent::Kind::kText:
    case StreamEvent::Kind::kDone: break;
  }
  if (event->sequence <= call->delivered) {
    ++counters.duplicates;
    return;
  }
  if (event->sequence > call->delivered + 1) {
    spdlog::warn("cluster: {} skipped from token {} to {}; its engine hands it back", call->wire_id,
                 call->delivered, event->sequence);
    give_back(*call, event->attempt);
    return;
  }
  if (call->paused_since) {
    ++counters.resumed;
    counters.resume_pause_ms_total += ms_between(*call->paused_since, now);
    call->paused_since.reset();
  }
  if (event->kind == StreamEvent::Kind::kText) {
    call->delivered = event->sequence;
    call->text += event->text;
    if (!call->first_token) call->first_token = now;
    std::shared_ptr<SerialSink> sink = call->sink;
    lock.unlock();
    sink->text(std::move(event->text));
    return;
  }
  Completion completion = event->completion;
  stamp(*call, completion);
  end(lock, call, std::move(completion), false);
}

void RemoteEngine::State::on_progress(const bus::Message& message) {
  auto query = bus::decode_progress_query(message.data);
  bus::ProgressReply reply;
  {
    std::lock_guard lock(mutex);
    std::shared_ptr<Call> call = query ? find(query->request_id) : nullptr;
    if (call && query->attempt >= call->min_attempt) {
      if (query->attempt > call->attempt) {
        // A newer attempt: anything older still running (a holder thought dead) stops.
        (void)connection.publish(
            bus::subjects::cancel(call->wire_id),
            bus::encode(bus::CancelOrder{call->wire_id, query->attempt, false}));
        call->attempt = query->attempt;
        call->min_attempt = query->attempt;
      }
      if (!call->paused_since) call->paused_since = call->last_heard;
      call->holder_known = true;
      call->last_heard = Clock::now();
      reply = {bus::ProgressReply::State::kStreaming, call->delivered, call->text};
      spdlog::info("cluster: {} resumes on {} (attempt {}) after {} tokens", call->wire_id,
                   query->engine_id, query->attempt, call->delivered);
    }
  }
  if (message.reply.empty()) return;
  const std::string owner = query ? query->request_id : std::string("progress");
  auto wrapped = blobs.wrap(owner + "-progress", bus::encode(reply));
  if (!wrapped) {
    spdlog::warn("cluster: cannot answer a progress query: {}", wrapped.error().message);
    return;
  }
  (void)connection.publish(message.reply, *wrapped);
}

void RemoteEngine::State::watch() {
  std::unique_lock lock(mutex);
  for (;;) {
    while (!cleanup.empty()) {
      auto job = std::move(cleanup.front());
      cleanup.pop_front();
      lock.unlock();
      job();
      lock.lock();
    }
    if (finishing) break;
    if (std::exchange(redeclare, false)) {
      lock.unlock();
      if (Status s = bus::declare_topology(jetstream, options.cluster); !s)
        spdlog::warn("cluster: declaring the streams again failed: {}", s.error().message);
      lock.lock();
    }
    lock.unlock();
    const bus::ClusterSnapshot cluster = view->snapshot();
    adopt_card(cluster);
    lock.lock();
    check(lock, cluster);
    wake.wait_for(lock, std::chrono::milliseconds(100),
                  [&] { return finishing || !cleanup.empty() || redeclare; });
  }
}

void RemoteEngine::State::check(std::unique_lock<std::mutex>& lock,
                                const bus::ClusterSnapshot& cluster) {
  const auto now = Clock::now();
  const auto silence_limit = options.cluster.ack_wait + options.cluster.ack_wait / 2;
  const bool link_up = connection.connected();
  std::vector<std::shared_ptr<Call>> all;
  for (const auto& [id, call] : calls)
    all.push_back(call);
  for (const std::shared_ptr<Call>& call : all) {
    if (!calls.contains(call->id)) continue;  // ended while the lock was released
    if (call->deadline && now >= *call->deadline) {
      fail(lock, call, ErrorCode::kDeadline,
           call->delivered > 0 ? "the request's deadline passed while it was generating"
                               : "the request's deadline passed before an engine started it");
      lock.lock();
      continue;
    }
    if (link_up && cluster.engines == 0 && cluster.without_engines > std::chrono::seconds(2)) {
      fail(lock, call, ErrorCode::kUnavailable,
           call->holder_known || call->delivered > 0
               ? "the engine serving this request stopped and no engine is left to resume it"
               : "no engine node is left to serve this request");
      lock.lock();
      continue;
    }
    const bool silent = call->holder_known && now - call->last_heard > silence_limit;
    if (silent && !call->paused_since) call->paused_since = call->last_heard;
    if (!silent || !link_up || now < call->next_queue_check) continue;
    call->next_queue_check = now + options.cluster.ack_wait;
    if (options.cluster.max_deliver > 0 &&
        call->attempt >= static_cast<std::uint64_t>(options.cluster.max_deliver)) {
      fail(lock, call, ErrorCode::kUnavailable,
           fmt::format("{} engines in turn stopped while serving this request", call->attempt));
      lock.lock();
      continue;
    }
    // Its holder went silent. JetStream redelivers it while its message is there; if the
    // message left the queue (acknowledged, and the end lost with the link), nothing will.
    const std::uint64_t sequence = call->stream_sequence;
    lock.unlock();
    auto stored = jetstream.read(std::string(bus::subjects::kRequestStream), sequence);
    lock.lock();
    if (!stored && stored.error().code == ErrorCode::kNotFound && calls.contains(call->id) &&
        now - call->last_heard > silence_limit) {
      fail(lock, call, ErrorCode::kUnavailable,
           "the engine serving this request went silent and the request left the queue; its "
           "end was lost");
      lock.lock();
    }
  }
}

}  // namespace supportd::engine::remote
