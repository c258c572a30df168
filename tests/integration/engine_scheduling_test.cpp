// Scheduling inside the engine on a synthesized model: class order, preemption without losing
// or repeating tokens, queue bounds, deadlines.
#include <gtest/gtest.h>

#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "collect_sink.h"
#include "engine/llama/llama_engine.h"
#include "test_model.h"

namespace supportd::engine::llama {
namespace {

using testing::CollectSink;

std::unique_ptr<LlamaEngine> make_engine(
    int parallel, EngineOptions::Preemption preemption, std::array<int, 3> queue_limit = {0, 0, 0},
    EngineOptions::KvLayout layout = EngineOptions{}.kv_layout,
    const std::function<void(EngineOptions&)>& configure = {}) {
  EngineOptions options;
  options.kv_layout = layout;
  options.model_path = testing::synthesized_model();
  options.threads = 0;
  options.context_cells = 65536;
  options.parallel = parallel;
  options.step_tokens = 64;
  options.prefix_cache_entries = 0;
  options.warmup = false;
  options.preemption = preemption;
  options.admission.queue_limit = queue_limit;
  if (configure) configure(options);
  auto engine = LlamaEngine::create(options);
  EXPECT_TRUE(engine.ok()) << (engine.ok() ? "" : engine.error().message);
  return std::move(engine).value();
}

GenerationRequest greedy(std::string prompt, int max_tokens,
                         Priority priority = Priority::kNormal) {
  GenerationRequest r;
  r.prompt = std::move(prompt);
  r.max_tokens = max_tokens;
  r.sampling.temperature = 0;
  r.ignore_eos = true;
  r.priority = priority;
  return r;
}

// Runs a few short requests one after another, so admission control has a measured rate.
void measure_service_rate(LlamaEngine& engine, int max_tokens) {
  for (int i = 0; i < 6; ++i) {
    auto sink = std::make_shared<CollectSink>();
    ASSERT_TRUE(engine.submit(greedy("warm " + std::to_string(i), max_tokens), sink).ok());
    ASSERT_TRUE(sink->wait());
  }
}

// A request holding a slot: submitted and past its first token.
struct Holder {
  std::shared_ptr<CollectSink> sink = std::make_shared<CollectSink>();
  Engine::RequestId id = 0;
};
Holder hold_slot(LlamaEngine& engine, GenerationRequest request) {
  Holder holder;
  auto id = engine.submit(std::move(request), holder.sink);
  EXPECT_TRUE(id.ok()) << id.error().message;
  if (id.ok()) holder.id = *id;
  EXPECT_TRUE(holder.sink->wait_pieces(1));
  return holder;
}

// Records the order in which requests finish.
struct FinishOrder {
  std::mutex mutex;
  std::vector<std::string> names;
};

class OrderedSink : public CollectSink {
 public:
  OrderedSink(FinishOrder& order, std::string name) : order_(order), name_(std::move(name)) {}
  void on_done(const Completion& c) override {
    {
      std::lock_guard lock(order_.mutex);
      order_.names.push_back(name_);
    }
    CollectSink::on_done(c);
  }

 private:
  FinishOrder& order_;
  std::string name_;
};

TEST(EngineScheduling, HigherClassesStartFirst) {
  auto engine = make_engine(1, EngineOptions::Preemption::kOff);
  FinishOrder order;
  auto blocker = std::make_shared<OrderedSink>(order, "blocker");
  auto blocker_id = engine->submit(greedy("occupy the only slot", 100000), blocker);
  ASSERT_TRUE(blocker_id.ok());
  ASSERT_TRUE(blocker->wait_pieces(1));
  std::vector<std::shared_ptr<OrderedSink>> sinks;
  const std::vector<std::pair<std::string, Priority>> queued = {{"low", Priority::kLow},
                                                                {"normal", Priority::kNormal},
                                                                {"high", Priority::kHigh},
                                                                {"normal2", Priority::kNormal}};
  for (const auto& [name, priority] : queued) {
    sinks.push_back(std::make_shared<OrderedSink>(order, name));
    ASSERT_TRUE(engine->submit(greedy(name, 4, priority), sinks.back()).ok());
  }
  engine->cancel(*blocker_id);
  for (auto& s : sinks)
    ASSERT_TRUE(s->wait());
  const std::vector<std::string> expected = {"blocker", "high", "normal", "normal2", "low"};
  EXPECT_EQ(order.names, expected);
}

// A low request running alone is paused for a high one and resumed: its output must be what
// it was without the pause, token for token.
// Returns the engine's counters after the run (the bytes and tokens of KV the pauses saved).
EngineStats expect_preemption_loses_and_repeats_no_token(
    EngineOptions::Preemption mode, EngineOptions::KvLayout layout,
    const std::function<void(EngineOptions&)>& configure = {}) {
  auto engine = make_engine(1, mode, {0, 0, 0}, layout, configure);
  const std::string alone = [&] {
    auto sink = std::make_shared<CollectSink>();
    EXPECT_TRUE(engine->submit(greedy("a low priority question", 300, Priority::kLow), sink).ok());
    EXPECT_TRUE(sink->wait());
    return sink->text();
  }();
  auto low = std::make_shared<CollectSink>();
  EXPECT_TRUE(engine->submit(greedy("a low priority question", 300, Priority::kLow), low).ok());
  EXPECT_TRUE(low->wait_pieces(20));
  auto high = std::make_shared<CollectSink>();
  EXPECT_TRUE(engine->submit(greedy("urgent", 16, Priority::kHigh), high).ok());
  EXPECT_TRUE(high->wait());
  EXPECT_TRUE(low->wait());
  EXPECT_EQ(high->completion().reason, FinishReason::kLength);
  EXPECT_EQ(low->completion().usage.completion_tokens, 300);
  EXPECT_EQ(low->text(), alone) << "preemption changed the low request's output";
  const EngineStats stats = engine->stats();
  EXPECT_GE(stats.preemptions, 1);
  EXPECT_EQ(engine->sequences_holding_cells(), 0);
  return stats;
}

TEST(EngineScheduling, PreemptionLosesAndRepeatsNoToken) {
  for (auto [mode, layout] :
       {std::pair{EngineOptions::Preemption::kSave, EngineOptions::KvLayout::kUnified},
        std::pair{EngineOptions::Preemption::kRecompute, EngineOptions::KvLayout::kUnified},
        std::pair{EngineOptions::Preemption::kSave, EngineOptions::KvLayout::kPerSequence},
        std::pair{EngineOptions::Preemption::kRecompute, EngineOptions::KvLayout::kPerSequence}}) {
    SCOPED_TRACE(::testing::Message() << "preemption " << static_cast<int>(mode) << ", layout "
                                      << static_cast<int>(layout));
    const EngineStats stats = expect_preemption_loses_and_repeats_no_token(mode, layout);
    if (mode == EngineOptions::Preemption::kSave) {
      EXPECT_GT(stats.preemption_saved_bytes, 0);
      EXPECT_GE(stats.preemption_saved_tokens, 20);  // the prompt and at least 20 tokens out
    } else {
      EXPECT_EQ(stats.preemption_saved_bytes, 0);
    }
  }
}

TEST(EngineScheduling, ASavedQuantizedCacheComesBackAsItWasAndTakesHalfTheMemory) {
  // Keys and values in q8_0 (34 bytes a block of 32 numbers, against 64 in f16): the saved
  // state holds the quantized blocks and restores them.
  for (auto layout : {EngineOptions::KvLayout::kUnified, EngineOptions::KvLayout::kPerSequence}) {
    SCOPED_TRACE(::testing::Message() << "layout " << static_cast<int>(layout));
    const auto cache = [](EngineOptions::CacheType type) {
      return [type](EngineOptions& options) {
        options.model_path = testing::synthesized_model("tiny-wide-heads");
        options.key_type = options.value_type = type;
        options.flash_attention = EngineOptions::FlashAttention::kOn;
      };
    };
    // Where the pause falls depends on timing, so compare bytes per saved token.
    const auto per_token = [](const EngineStats& stats) {
      EXPECT_GT(stats.preemption_saved_tokens, 0);
      return static_cast<double>(stats.preemption_saved_bytes) /
             static_cast<double>(std::max<std::int64_t>(1, stats.preemption_saved_tokens));
    };
    const double full = per_token(expect_preemption_loses_and_repeats_no_token(
        EngineOptions::Preemption::kSave, layout, cache(EngineOptions::CacheType::kF16)));
    const double quantized = per_token(expect_preemption_loses_and_repeats_no_token(
        EngineOptions::Preemption::kSave, layout, cache(EngineOptions::CacheType::kQ8_0)));
    EXPECT_GT(quantized / full, 0.5) << quantized << " bytes a token against " << full;
    EXPECT_LT(quantized / full, 0.65) << quantized << " bytes a token against " << full;
  }
}

TEST(EngineScheduling, AgedRequestsNeverPreemptEachOtherForEver) {
  // With fast aging every waiting request soon outranks every running one. Preemption follows
  // the requests' own classes, so the low request gives way to the normal one once, then waits.
  for (auto mode : {EngineOptions::Preemption::kSave, EngineOptions::Preemption::kRecompute}) {
    EngineOptions options;
    options.model_path = testing::synthesized_model();
    options.context_cells = 65536;
    options.parallel = 1;
    options.step_tokens = 64;
    options.prefix_cache_entries = 0;
    options.warmup = false;
    options.preemption = mode;
    options.scheduling.aging = std::chrono::milliseconds(1);
    auto engine = std::move(LlamaEngine::create(options)).value();
    auto low = std::make_shared<CollectSink>();
    ASSERT_TRUE(engine->submit(greedy("a low priority question", 200, Priority::kLow), low).ok());
    ASSERT_TRUE(low->wait_pieces(5));
    auto normal = std::make_shared<CollectSink>();
    ASSERT_TRUE(engine->submit(greedy("a normal question", 50, Priority::kNormal), normal).ok());
    ASSERT_TRUE(normal->wait()) << "the engine stopped making progress";
    ASSERT_TRUE(low->wait()) << "the engine stopped making progress";
    EXPECT_EQ(normal->completion().usage.completion_tokens, 50);
    EXPECT_EQ(low->completion().usage.completion_tokens, 200);
    EXPECT_LE(engine->stats().preemptions, 1);
    EXPECT_EQ(engine->sequences_holding_cells(), 0);
  }
}

TEST(EngineScheduling, AFullClassQueueIsRefusedAtOnce) {
  auto engine = make_engine(1, EngineOptions::Preemption::kOff, {0, 2, 0});
  auto [blocker, blocker_id] = hold_slot(*engine, greedy("occupy", 100000));
  std::vector<std::shared_ptr<CollectSink>> queued;
  for (int i = 0; i < 2; ++i) {
    queued.push_back(std::make_shared<CollectSink>());
    ASSERT_TRUE(engine->submit(greedy("wait", 2), queued.back()).ok());
  }
  auto refused = engine->submit(greedy("one too many", 2), std::make_shared<CollectSink>());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kOverloaded);
  EXPECT_GE(refused.error().retry_after_s, 1);
  // Other classes have their own bounds.
  auto high = std::make_shared<CollectSink>();
  EXPECT_TRUE(engine->submit(greedy("high", 2, Priority::kHigh), high).ok());
  engine->cancel(blocker_id);
  for (auto& q : queued)
    ASSERT_TRUE(q->wait());
  ASSERT_TRUE(high->wait());
  // Places free up once requests start.
  auto later = std::make_shared<CollectSink>();
  EXPECT_TRUE(engine->submit(greedy("later", 2), later).ok());
  ASSERT_TRUE(later->wait());
}

TEST(EngineScheduling, ARequestBehindOneFarFromDoneIsRefusedOnArrivalWhateverTheRate) {
  // A fast service rate is measured, so by the rate alone a short deadline looks reachable;
  // but the one slot runs a request with 100,000 tokens to go. Refused on arrival, with a
  // Retry-After, not accepted and refused (late) at a later step.
  auto engine = make_engine(1, EngineOptions::Preemption::kOff);
  measure_service_rate(*engine, 1);
  auto [blocker, blocker_id] = hold_slot(*engine, greedy("occupy", 100000));
  // The deadline sits well above what the measured rate alone predicts (on a busy machine the
  // rate is slower, so the deadline follows it), far below the blocker's 100,000 tokens.
  const auto by_rate = engine->admission().expected_wait(Priority::kNormal, 0);
  const auto budget = std::max<std::chrono::duration<double>>(std::chrono::seconds(2), 2 * by_rate);
  ASSERT_LT(budget, std::chrono::seconds(30)) << "the measured rate is implausibly slow";
  GenerationRequest r = greedy("in a hurry", 4);
  r.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(budget);
  auto refused = engine->submit(r, std::make_shared<CollectSink>());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kDeadline);
  EXPECT_GE(refused.error().retry_after_s, 1);
  engine->cancel(blocker_id);
  ASSERT_TRUE(blocker->wait());
}

TEST(EngineScheduling, OnAColdStartTheRunningRequestsPredictTheWait) {
  // Nothing has finished yet, so no rate is measured; the running request's remaining tokens
  // say a slot frees much later than the deadline: refused on arrival, not after waiting.
  auto engine = make_engine(1, EngineOptions::Preemption::kOff);
  auto blocker = std::make_shared<CollectSink>();
  auto blocker_id = engine->submit(greedy("occupy", 100000), blocker);
  ASSERT_TRUE(blocker->wait_pieces(3));
  GenerationRequest r = greedy("in a hurry", 4);
  r.deadline = Clock::now() + std::chrono::seconds(5);
  auto refused = engine->submit(r, std::make_shared<CollectSink>());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kDeadline);
  EXPECT_GE(refused.error().retry_after_s, 1);
  // Without a deadline it waits as before.
  auto patient = std::make_shared<CollectSink>();
  ASSERT_TRUE(engine->submit(greedy("patient", 2), patient).ok());
  engine->cancel(*blocker_id);
  ASSERT_TRUE(blocker->wait());
  ASSERT_TRUE(patient->wait());
  EXPECT_EQ(patient->completion().reason, FinishReason::kLength);
}

TEST(EngineScheduling, AFreshEngineRefusesOnArrivalDuringItsFirstStep) {
  // A fresh server's first step can be long (here a whole prompt of 3,000 tokens). Its warm-up
  // timed steps, so the running request predicts the wait from the moment it starts: a request
  // arriving during that first step is refused on arrival, not accepted blind (no step measured
  // yet) and refused once the step is over.
  auto engine = make_engine(1, EngineOptions::Preemption::kOff, {0, 0, 0},
                            EngineOptions{}.kv_layout, [](EngineOptions& options) {
                              options.warmup = true;
                              options.step_tokens = 4096;
                            });
  std::string prompt;
  for (int i = 0; i < 1500; ++i)
    prompt += "parcel ";
  auto blocker = std::make_shared<CollectSink>();
  const auto sent = Clock::now();
  auto blocker_id = engine->submit(greedy(prompt, 100000), blocker);
  ASSERT_TRUE(blocker_id.ok());
  while (engine->admission().completion_rate() <= 0 &&
         Clock::now() - sent < std::chrono::minutes(1))
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  GenerationRequest r = greedy("in a hurry", 4);
  r.deadline = Clock::now() + std::chrono::seconds(2);
  auto refused = engine->submit(r, std::make_shared<CollectSink>());
  const double refused_ms = std::chrono::duration<double, std::milli>(Clock::now() - sent).count();
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kDeadline);
  ASSERT_TRUE(blocker->wait_pieces(1));
  engine->cancel(*blocker_id);
  ASSERT_TRUE(blocker->wait());
  const double first_token_ms = blocker->completion().timings.first_token_ms;
  ASSERT_GE(first_token_ms, 0);
  EXPECT_LT(refused_ms, first_token_ms) << "refused only after the first step";
}

TEST(EngineScheduling, AnIdleEngineAcceptsADeadlineShorterThanTheServiceTime) {
  // Requests ran one after another, each filling the one slot; now nothing runs. A deadline
  // shorter than a service time but longer than a step is reachable: the slot is free. (The
  // free slots were published before each step only, so after the last request finished they
  // still said none, and the request was refused by the rate while the engine sat idle.)
  auto engine = make_engine(1, EngineOptions::Preemption::kOff);
  // Long requests and a long pause: the deadline then leaves ~200 ms for a stall of the test
  // or the engine's thread, as a parallel test run can cause.
  measure_service_rate(*engine, 256);
  const auto service = engine->admission().expected_wait(Priority::kNormal, 0);
  ASSERT_GT(service.count(), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the engine goes idle
  auto sink = std::make_shared<CollectSink>();
  GenerationRequest r = greedy("now", 4);
  r.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(service / 2);
  const auto accepted = engine->submit(r, sink);
  ASSERT_TRUE(accepted.ok()) << accepted.error().message;
  ASSERT_TRUE(sink->wait());
  EXPECT_EQ(sink->completion().reason, FinishReason::kLength);
}

TEST(EngineScheduling, AWaitingRequestOvertakenPastItsDeadlineIsRefusedEarly) {
  // A normal request is accepted: the running request finishes soon, well before its deadline.
  // Then long high requests overtake it: its deadline can no longer be met, and it is refused
  // at the next step, long before the deadline itself, with a Retry-After. With preemption
  // on, the high requests are the only streams left running: none of them pauses for a
  // normal request's promise.
  for (auto preemption : {EngineOptions::Preemption::kOff, EngineOptions::Preemption::kRecompute}) {
    SCOPED_TRACE(::testing::Message() << "preemption " << static_cast<int>(preemption));
    auto engine = make_engine(1, preemption);
    measure_service_rate(*engine, 2);
    auto running = hold_slot(*engine, greedy("occupy", 64)).sink;
    const auto deadline = std::chrono::seconds(20);
    auto overtaken = std::make_shared<CollectSink>();
    GenerationRequest r = greedy("in a hurry", 4);
    const auto sent = Clock::now();
    r.deadline = sent + deadline;
    ASSERT_TRUE(engine->submit(r, overtaken).ok());
    std::vector<std::shared_ptr<CollectSink>> high;
    std::vector<Engine::RequestId> high_ids;
    for (int i = 0; i < 20; ++i) {
      high.push_back(std::make_shared<CollectSink>());
      auto id =
          engine->submit(greedy("vip " + std::to_string(i), 100000, Priority::kHigh), high.back());
      ASSERT_TRUE(id.ok());
      high_ids.push_back(*id);
    }
    ASSERT_TRUE(overtaken->wait(std::chrono::seconds(30)));
    const auto answered = Clock::now() - sent;
    EXPECT_EQ(overtaken->completion().reason, FinishReason::kDeadline);
    EXPECT_EQ(overtaken->completion().usage.completion_tokens, 0);
    EXPECT_GE(overtaken->completion().error.retry_after_s, 1);
    EXPECT_LT(answered, deadline / 2) << "refused only when the deadline passed";
    for (auto id : high_ids)
      engine->cancel(id);
    for (auto& h : high)
      ASSERT_TRUE(h->wait());
    ASSERT_TRUE(running->wait());
  }
}

TEST(EngineScheduling, AnOvertakenRequestStartsByItsDeadlineInTheSlotOfAStreamOfItsClass) {
  // Two normal streams run, a long one and one about to finish. A normal request is accepted
  // with a deadline the short stream's slot frees well before; a high request takes that slot
  // (the short stream waits ahead of the promised request), and no slot frees in time any more.
  // Not refused late: the promised request starts by its deadline in the long stream's slot.
  auto engine = make_engine(2, EngineOptions::Preemption::kRecompute);
  measure_service_rate(*engine, 4);
  auto [long_stream, long_id] = hold_slot(*engine, greedy("a long answer", 20000));
  auto short_stream = hold_slot(*engine, greedy("a short answer", 32)).sink;
  // 2 s, or 4x admission's predicted wait (slow builds; its own check counts the request too).
  const auto deadline = std::chrono::duration_cast<Clock::duration>(std::max(
      std::chrono::duration<double>(2), 4 * engine->admission().expected_wait(Priority::kNormal)));
  auto promised = std::make_shared<CollectSink>();
  GenerationRequest r = greedy("promised", 4);
  r.deadline = Clock::now() + deadline;
  const auto accepted = engine->submit(r, promised);
  ASSERT_TRUE(accepted.ok()) << accepted.error().message;
  auto high = std::make_shared<CollectSink>();
  auto high_id = engine->submit(greedy("vip", 20000, Priority::kHigh), high);
  ASSERT_TRUE(high_id.ok());
  ASSERT_TRUE(promised->wait(std::chrono::seconds(30)));
  EXPECT_EQ(promised->completion().reason, FinishReason::kLength)
      << promised->completion().error.message;
  // By its deadline, or a loop iteration later when a step overran (a loaded machine).
  const double deadline_ms = std::chrono::duration<double, std::milli>(deadline).count();
  EXPECT_LE(promised->completion().timings.queued_ms, deadline_ms + 1000);
  EXPECT_EQ(engine->stats().preemptions, 2) << "the short stream for the high request, the long "
                                               "one for the promise";
  engine->cancel(*high_id);
  engine->cancel(long_id);
  ASSERT_TRUE(high->wait());
  ASSERT_TRUE(long_stream->wait());
  ASSERT_TRUE(short_stream->wait());
  EXPECT_EQ(short_stream->completion().usage.completion_tokens, 32);
  EXPECT_EQ(long_stream->completion().usage.completion_tokens,
            static_cast<int>(long_stream->pieces().size()));
}

// A normal request is accepted with a 10-second deadline while a short request runs; then a
// high request arrives (with a deadline of `high_deadline`, if any) and waits too. When the
// slot frees, the normal request's deadline falls before the high request's end: 100,000
// tokens are 30 s and more even at this tiny model's fastest steps.
struct PromiseRun {
  std::shared_ptr<CollectSink> promised = std::make_shared<CollectSink>();
  std::shared_ptr<CollectSink> high = std::make_shared<CollectSink>();
};
PromiseRun run_promise(LlamaEngine& engine, std::optional<std::chrono::seconds> high_deadline) {
  PromiseRun run;
  measure_service_rate(engine, 1);  // past the cold first steps, which would make waits long
  auto running = hold_slot(engine, greedy("occupy", 20)).sink;
  GenerationRequest promised = greedy("promised", 4);
  promised.deadline = Clock::now() + std::chrono::seconds(10);
  const auto accepted = engine.submit(promised, run.promised);
  EXPECT_TRUE(accepted.ok()) << accepted.error().message;
  GenerationRequest high = greedy("vip", 100000, Priority::kHigh);
  if (high_deadline) high.deadline = Clock::now() + *high_deadline;
  auto high_id = engine.submit(high, run.high);
  EXPECT_TRUE(high_id.ok()) << high_id.error().message;
  EXPECT_TRUE(run.promised->wait());
  EXPECT_TRUE(run.high->wait_pieces(1));
  engine.cancel(*high_id);
  EXPECT_TRUE(run.high->wait());
  EXPECT_TRUE(running->wait());
  return run;
}

TEST(EngineScheduling, AFreeSlotThatIsAPromisedRequestsLastChanceGoesToIt) {
  // The high request can wait for the next slot within its own deadline: the normal one,
  // whose deadline falls before that slot, starts first instead of being refused late.
  auto engine = make_engine(1, EngineOptions::Preemption::kOff);
  const PromiseRun run = run_promise(*engine, std::chrono::seconds(600));
  EXPECT_EQ(run.promised->completion().reason, FinishReason::kLength)
      << run.promised->completion().error.message;
  EXPECT_EQ(run.high->completion().reason, FinishReason::kCancelled);
  EXPECT_GT(run.high->completion().usage.completion_tokens, 0);
}

TEST(EngineScheduling, AHighRequestWithoutADeadlineNeverWaitsForAnotherPromise) {
  // Without a deadline of its own, the high request goes first as always; the normal one can
  // then no longer start in time and is refused.
  auto engine = make_engine(1, EngineOptions::Preemption::kOff);
  const PromiseRun run = run_promise(*engine, std::nullopt);
  EXPECT_EQ(run.promised->completion().reason, FinishReason::kDeadline);
  EXPECT_EQ(run.high->completion().reason, FinishReason::kCancelled);
}

TEST(EngineScheduling, AnAcceptedRequestWhoseSlotFreesInTimeIsNotRefusedLater) {
  // A request arrives while another runs that is a tenth as long as the measured ones, and is
  // given a deadline 3% beyond the wait the measured rate expects. Accepted, it is not refused
  // later: the running request's remaining tokens say its slot frees in time. (The rate-based
  // estimate, re-applied at every step, is no shorter after a wait, so it refused such a request
  // a few steps later, before the slot freed.) The margins allow the engine to run ten times
  // slower than when it was measured, or to stall for about 90% of the expected wait, 0.4 s
  // (a quarter and 10% broke at a 90 ms stall; 256 tokens, 0.1 s, at a full run's stall).
  // A fresh engine each round: earlier rounds' completions would make the rate bursty.
  constexpr int kMeasuredTokens = 1024;
  for (int round = 0; round < 3; ++round) {
    auto engine = make_engine(1, EngineOptions::Preemption::kOff);
    measure_service_rate(*engine, kMeasuredTokens);
    auto running = hold_slot(*engine, greedy("occupy", kMeasuredTokens / 10)).sink;
    const auto expected = engine->admission().expected_wait(Priority::kNormal, 0);
    ASSERT_GT(expected.count(), 0);
    auto waiting = std::make_shared<CollectSink>();
    GenerationRequest r = greedy("next in line", 4);
    r.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(expected * 1.03);
    const auto accepted = engine->submit(r, waiting);
    ASSERT_TRUE(accepted.ok()) << accepted.error().message;
    ASSERT_TRUE(waiting->wait());
    EXPECT_EQ(waiting->completion().reason, FinishReason::kLength)
        << "round " << round << ": " << waiting->completion().error.message;
    ASSERT_TRUE(running->wait());
  }
}

}  // namespace
}  // namespace supportd::engine::llama
