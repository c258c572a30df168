// The llama.cpp engine's prefix reuse on synthesized models, with both KV layouts where the
// cache matters: a cached prefix gives the same tokens (also from a q8_0 cache), a burst or a
// batch sharing one prompt computes it once, cells return to their baseline, each sequence
// gets its share of the context, conversations nobody continues stay on probation, and
// conversations sharing a system prompt keep it once with only the newest tails beside it.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <random>
#include <thread>

#include "collect_sink.h"
#include "engine/llama/llama_engine.h"
#include "engine_idle.h"
#include "engine_test_support.h"
#include "test_model.h"

namespace supportd::engine::llama {
namespace {

void expect_prefix_reuse_gives_the_same_tokens(std::unique_ptr<LlamaEngine> engine) {
  const std::string shared =
      "You are the help desk of an online shoe store. Answer briefly and politely, and cite the "
      "article you used. Articles: returns within 30 days; free delivery over 50 euros. ";
  const std::string cold = run(*engine, greedy(shared + "Question: can I return boots?", 16));
  engine->clear_prefix_cache();
  run(*engine, greedy(shared + "Question: do you ship to Spain?", 16));  // caches the prefix
  Completion warm_completion;
  const std::string warm =
      run(*engine, greedy(shared + "Question: can I return boots?", 16), &warm_completion);
  EXPECT_GT(warm_completion.usage.cached_tokens, 20);
  EXPECT_EQ(warm, cold);
  EXPECT_GT(engine->stats().prefix_hits, 0);
}

TEST_P(EngineLayouts, PrefixReuseGivesTheSameTokens) {
  expect_prefix_reuse_gives_the_same_tokens(
      make_engine(4, 8, testing::synthesized_model(), GetParam()));
}

TEST_P(EngineLayouts, PrefixReuseGivesTheSameTokensFromAQuantizedCache) {
  // A cached prefix's q8_0 cells are shared (unified) or copied (per sequence) as they are.
  expect_prefix_reuse_gives_the_same_tokens(make_engine(
      4, 8, testing::synthesized_model("tiny-wide-heads"), GetParam(), use_a_q8_0_cache));
}

TEST_P(EngineLayouts, ABurstSharingOnePrefixComputesItOnce) {
  // Four requests with one system prompt arrive together and none finds it cached. The first
  // computes it; the others wait for it and take its cells (one copy in the KV cache), then
  // compute only their questions. The answers must not change, and the engine must feed no
  // prompt token twice: every token it decoded is a prompt token nobody else computed or an
  // answer token fed back. The prompt spans several 64-token steps. "Together" is made exact
  // with a dynamic batch of four: submitted one by one, the first could start (and, on a busy
  // machine, finish) before the last arrives, which is another test's case.
  std::string shared = "You are the help desk of an online shoe store. Articles: ";
  for (int i = 0; i < 40; ++i)
    shared += "article " + std::to_string(i) + ": returns within 30 days, free delivery. ";
  const std::vector<std::string> questions = {
      "Question: can I return boots?", "Question: do you ship to Spain?",
      "Question: where is my parcel?", "Question: how do I pay?"};
  std::vector<std::string> prompts;
  for (const auto& q : questions)
    prompts.push_back(shared + q);
  const auto model = testing::synthesized_model();
  const std::vector<std::string> alone =
      answers_alone(*make_engine(4, 8, model, GetParam()), prompts, 16);
  auto engine = make_engine(4, 8, model, GetParam(), [](EngineOptions& options) {
    options.scheduling.batching = sched::BatchingMode::kDynamic;
    options.scheduling.batch_max = 4;
    options.scheduling.batch_window = std::chrono::seconds(60);
  });
  const EngineStats before = engine->stats();
  const auto sinks = submit_together(*engine, prompts, 16);
  int computed_it = 0;   // requests that took none of their prompt from another
  std::int64_t fed = 0;  // tokens the burst had to feed: own prompt tokens, answers fed back
  for (std::size_t i = 0; i < sinks.size(); ++i) {
    ASSERT_TRUE(sinks[i]->wait());
    EXPECT_EQ(sinks[i]->text(), alone[i]) << "question " << i;
    const Usage& usage = sinks[i]->completion().usage;
    if (usage.cached_tokens == 0) {
      ++computed_it;
    } else {
      EXPECT_GT(usage.cached_tokens, 300) << "question " << i << " recomputed the system prompt";
    }
    fed += usage.prompt_tokens - usage.cached_tokens + usage.completion_tokens - 1;
  }
  const EngineStats after = testing::wait_until_idle(*engine);
  EXPECT_EQ(computed_it, 1);
  EXPECT_EQ(after.step_tokens - before.step_tokens, fed);
  EXPECT_EQ(after.prefill_joins - before.prefill_joins, 3);
  // The same burst again finds the system prompt cached, every one of the four.
  const auto again = submit_together(*engine, prompts, 16);
  for (std::size_t i = 0; i < again.size(); ++i) {
    ASSERT_TRUE(again[i]->wait());
    EXPECT_EQ(again[i]->text(), alone[i]) << "question " << i;
    EXPECT_GT(again[i]->completion().usage.cached_tokens, 300) << "question " << i;
  }
  testing::wait_until_idle(*engine);
  EXPECT_EQ(engine->sequences_holding_cells(), 0);
}

TEST(Engine, RequestsSharingASystemPromptReadItOnceAndKeepTheirTokens) {
  // A buffer per sequence and plain attention: four requests with one system prompt run
  // together, and llama.cpp is told how long their common beginning is (cascade attention,
  // llama_set_shared_prefix). Their answers must be those of an engine that reads every
  // sequence's buffer in full, and the steps must have used it.
  std::string shared = "You are the help desk of an online shoe store. Articles: ";
  for (int i = 0; i < 12; ++i)
    shared += "article " + std::to_string(i) + ": returns within 30 days, free delivery. ";
  std::vector<std::string> prompts;
  for (const char* question : {"Can I return boots?", "Do you ship to Spain?",
                               "Where is my parcel?", "How do I pay with a gift card, please?"})
    prompts.push_back(shared + "Question: " + question);
  const auto model = testing::synthesized_model();
  const auto configure = [](bool cascade) {
    return [cascade](EngineOptions& options) {
      options.flash_attention = EngineOptions::FlashAttention::kOff;
      options.shared_prefix_attention = cascade;
      options.scheduling.batching = sched::BatchingMode::kDynamic;
      options.scheduling.batch_max = 4;
      options.scheduling.batch_window = std::chrono::seconds(60);
    };
  };
  auto plain = make_engine(4, 0, model, EngineOptions::KvLayout::kPerSequence, configure(false));
  const auto plain_sinks = submit_together(*plain, prompts, 24);
  auto cascade = make_engine(4, 0, model, EngineOptions::KvLayout::kPerSequence, configure(true));
  const auto sinks = submit_together(*cascade, prompts, 24);
  for (std::size_t i = 0; i < sinks.size(); ++i) {
    ASSERT_TRUE(plain_sinks[i]->wait());
    ASSERT_TRUE(sinks[i]->wait());
    EXPECT_EQ(sinks[i]->text(), plain_sinks[i]->text()) << "question " << i;
    EXPECT_EQ(sinks[i]->completion().usage.completion_tokens, 24);
  }
  const EngineStats with = testing::wait_until_idle(*cascade);
  const EngineStats without = testing::wait_until_idle(*plain);
  EXPECT_EQ(without.shared_prefix_steps, 0);
  // Once the four have joined the system prompt they decode side by side: 24 answer tokens
  // each, the first ones a step or two apart. Each of those steps shares the whole system
  // prompt, in whole tiles of 32 tokens (its last token may also merge with the question's).
  EXPECT_GE(with.shared_prefix_steps, 20);
  const auto system_tokens =
      static_cast<std::int64_t>(cascade->llama_model().tokenize(shared, true, false).size());
  EXPECT_GE(with.shared_prefix_tokens, with.shared_prefix_steps * (system_tokens - 32));
  EXPECT_EQ(cascade->sequences_holding_cells(), 0);
}

TEST_P(EngineLayouts, CellsReturnToBaselineAfterMixedLoad) {
  auto engine = make_engine(4, 8, testing::synthesized_model(), GetParam());
  std::mt19937 random(1);
  std::vector<std::pair<Engine::RequestId, std::shared_ptr<CollectSink>>> live;
  for (int i = 0; i < 24; ++i) {
    auto sink = std::make_shared<CollectSink>();
    auto id = engine->submit(greedy(kPrompts[i % kPrompts.size()] + std::to_string(i),
                                    4 + static_cast<int>(random() % 40)),
                             sink);
    ASSERT_TRUE(id.ok());
    live.emplace_back(*id, sink);
    if (random() % 3 == 0) engine->cancel(live[random() % live.size()].first);
  }
  for (auto& [id, sink] : live) {
    ASSERT_TRUE(sink->wait(std::chrono::seconds(20)))
        << "request " << id << " never finished; running " << engine->stats().running
        << ", waiting " << engine->stats().waiting;
  }
  EXPECT_EQ(engine->sequences_holding_cells(), 0);
  engine->clear_prefix_cache();
  const auto stats = engine->stats();
  EXPECT_EQ(stats.kv_cells_used, 0);
  EXPECT_EQ(stats.running, 0);
  EXPECT_EQ(stats.waiting, 0);
}

TEST(Engine, EachSequenceGetsItsShareOfTheContextWithBuffersPerSequence) {
  // 16384 cells for 4 sequences: a request may use 4096 with a buffer per sequence, all of
  // them (bounded by the model's own context) with one buffer for all.
  auto per_sequence =
      make_engine(4, 8, testing::synthesized_model(), EngineOptions::KvLayout::kPerSequence);
  EXPECT_EQ(per_sequence->model().context_length, 4096);
  auto unified = make_engine(4, 8, testing::synthesized_model(), EngineOptions::KvLayout::kUnified);
  EXPECT_GT(unified->model().context_length, 4096);
  std::string long_prompt;
  for (int i = 0; i < 1500; ++i)  // 3 to 6 tokens each
    long_prompt += "order " + std::to_string(i) + " ";
  auto result = per_sequence->submit(greedy(long_prompt, 4), std::make_shared<CollectSink>());
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::kTooLarge);
  auto sink = std::make_shared<CollectSink>();
  ASSERT_TRUE(unified->submit(greedy(long_prompt, 4), sink).ok());
  ASSERT_TRUE(sink->wait());
  EXPECT_EQ(sink->completion().reason, FinishReason::kLength);
}

TEST(Engine, TwoPromptsComputingOneShortPrefixTogetherKeepItOnce) {
  // Unified layout: two requests start in the same step (a dynamic batch of two) with a
  // common beginning too short to wait for each other (under 32 tokens), so both compute it.
  // When the second prompt is cached, its copy of those cells is swapped for the first one's
  // (same tokens at the same positions): the answers must not change.
  const std::string common = "Hello, I have a question about my order. ";
  const std::vector<std::string> prompts = {common + "Where is it?", common + "Can I cancel?"};
  const auto model = testing::synthesized_model();
  const std::vector<std::string> alone =
      answers_alone(*make_engine(2, 8, model, EngineOptions::KvLayout::kUnified), prompts, 12);
  auto engine = make_engine(2, 8, model, EngineOptions::KvLayout::kUnified, [](auto& options) {
    options.scheduling.batching = sched::BatchingMode::kDynamic;
    options.scheduling.batch_max = 2;
    options.scheduling.batch_window = std::chrono::seconds(30);
  });
  const EngineStats before = engine->stats();
  const auto sinks = submit_together(*engine, prompts, 12);
  for (std::size_t i = 0; i < sinks.size(); ++i) {
    ASSERT_TRUE(sinks[i]->wait());
    EXPECT_EQ(sinks[i]->text(), alone[i]) << "prompt " << i;
  }
  const EngineStats after = testing::wait_until_idle(*engine);
  EXPECT_GE(after.prefix_copies_merged - before.prefix_copies_merged, 1);
  EXPECT_EQ(after.prefill_joins, before.prefill_joins);  // neither waited for the other
  EXPECT_EQ(engine->sequences_holding_cells(), 0);
}

TEST(Engine, ConversationsNobodyContinuesStayOnProbation) {
  // Unified layout: every step reads every cell up to the highest in use, so the prefix cache
  // keeps at most --parallel (2) conversations nobody has reused; a conversation that goes on
  // is proven and outlives them.
  auto engine = make_engine(2, 8, testing::synthesized_model(), EngineOptions::KvLayout::kUnified);
  std::int64_t longest = 0;
  for (int i = 0; i < 6; ++i) {
    Completion completion;
    run(*engine, greedy(std::to_string(i) + ". " + kPrompts[i % kPrompts.size()], 8), &completion);
    longest = std::max<std::int64_t>(
        longest, completion.usage.prompt_tokens + completion.usage.completion_tokens);
  }
  EXPECT_LE(testing::wait_until_idle(*engine).prefix_cache_tokens, 2 * longest);

  std::string conversation = "Customer: " + kPrompts[2] + "\nAgent:";
  conversation += run(*engine, greedy(conversation, 8));
  conversation += "\nCustomer: and boots?\nAgent:";
  Completion next_turn;
  conversation += run(*engine, greedy(conversation, 8), &next_turn);
  EXPECT_GE(next_turn.usage.cached_tokens, 16);  // the first turn's entry, now proven
  for (int i = 6; i < 12; ++i)
    run(*engine, greedy(std::to_string(i) + ". " + kPrompts[i % kPrompts.size()], 8));
  Completion third_turn;
  run(*engine, greedy(conversation + "\nCustomer: thanks\nAgent:", 8), &third_turn);
  EXPECT_GE(third_turn.usage.cached_tokens, 16);  // six others came and went: it stayed
  EXPECT_EQ(engine->sequences_holding_cells(), 0);
}

TEST(Engine, ConversationsSharingASystemPromptKeepItOnceAndOnlyTheNewestTails) {
  // Every conversation reused the prompt, so its entry is proven that far and no further: of
  // ten, the cache keeps the prompt once and the tails of the newest four (Loop's probation),
  // not ten tails.
  auto engine = make_engine(8, 32, testing::synthesized_model(), EngineOptions::KvLayout::kUnified);
  const std::string system =
      "You are the help desk of an online shoe store. Answer briefly and politely, and cite the "
      "article you used. Articles: returns within 30 days; free delivery over 50 euros. ";
  run(*engine, greedy(system + "Question: hello?", 8));  // caches the prompt
  std::int64_t shared = std::numeric_limits<std::int64_t>::max(), longest = 0;
  for (int i = 0; i < 10; ++i) {
    Completion completion;
    run(*engine, greedy(system + "Question: " + std::to_string(i) + ". " + kPrompts[i % 5], 8),
        &completion);
    ASSERT_GE(completion.usage.cached_tokens, 16) << i;
    shared = std::min<std::int64_t>(shared, completion.usage.cached_tokens);
    longest = std::max<std::int64_t>(
        longest, completion.usage.prompt_tokens + completion.usage.completion_tokens);
  }
  const auto idle = testing::wait_until_idle(*engine);
  EXPECT_LE(idle.prefix_cache_tokens, longest + 4 * (longest - shared));
  Completion next;
  run(*engine, greedy(system + "Question: do you ship to Spain?", 8), &next);
  EXPECT_GE(next.usage.cached_tokens, shared);  // the prompt stayed
  EXPECT_EQ(engine->sequences_holding_cells(), 0);
}

}  // namespace
}  // namespace supportd::engine::llama
