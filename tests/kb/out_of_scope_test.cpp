// The out-of-scope decision end to end on a tiny knowledge base (the store help centre in
// data/: 34 entries, a few phrasings each): import fits the gate without a single labelled
// out-of-scope question, and search declines questions about what the store does not cover
// while answering paraphrases of what it does, on the lexical path and with the encoder.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "kb/import/importer.h"
#include "kb/knowledge_base.h"
#include "test_dir.h"
#include "test_model.h"

namespace supportd::kb {
namespace {

const std::string kData = SUPPORTD_KB_TEST_DATA;

std::vector<std::string> store_files() {
  return {kData + "/store-help.md", kData + "/store-faq.csv", kData + "/store-faq-zh.json"};
}

// Questions about things a web shop's help centre does not cover, in both languages.
const std::vector<std::string> kOffTopic = {
    "Do you sell bicycles?",
    "What is the capital of France?",
    "Can you recommend a good pizza recipe?",
    "你们卖自行车吗？",
    "明天天气怎么样？",
};

// Paraphrases of what it covers (none of them in the files) and the entry that answers each.
const std::vector<std::pair<std::string, std::string>> kInScope = {
    {"How long do refunds take?", "store-help/refund-timing"},
    {"where is my parcel", "track-order"},
    {"退款要等几天", "zh/refund-time"},
};

void expect_declines_off_topic_and_answers_paraphrases(const KnowledgeBase& kb) {
  for (const std::string& question : kOffTopic) {
    auto result = kb.search(question);
    ASSERT_TRUE(result.ok()) << result.error().message;
    EXPECT_TRUE(result->out_of_scope) << question << ": " << result->hits.at(0).id;
    EXPECT_FALSE(result->confident || result->offer) << question;
    EXPECT_FALSE(result->scope_reason.empty()) << question;
  }
  for (const auto& [question, id] : kInScope) {
    auto result = kb.search(question);
    ASSERT_TRUE(result.ok()) << result.error().message;
    EXPECT_FALSE(result->out_of_scope) << question << ": " << result->scope_reason;
    ASSERT_FALSE(result->hits.empty()) << question;
    EXPECT_EQ(result->hits[0].id, id) << question;
  }
}

ImportOptions quick_options() {
  ImportOptions options;
  ClassifierParams params;
  params.epochs = 20;
  params.buckets = 20000;
  options.classifier_grid = {params};
  return options;
}

TEST(KbOutOfScope, ATinyKnowledgeBaseCalibratesItsGateAndDeclinesOffTopicQuestions) {
  testing::TestDir dir("out-of-scope");
  auto report = import_knowledge_base(dir.path(), store_files(), quick_options());
  ASSERT_TRUE(report.ok()) << report.error().message;
  const ScopeGate& gate = report->manifest.lexical.scope;
  ASSERT_TRUE(gate.enabled);
  EXPECT_GE(gate.dev_pass_rate, gate.pass_rate);
  EXPECT_GT(gate.dev_decline_rate, 0.5);  // held-out questions without their entry
  auto kb = KnowledgeBase::open(dir.path());
  ASSERT_TRUE(kb.ok()) << kb.error().message;
  expect_declines_off_topic_and_answers_paraphrases(**kb);
}

TEST(KbOutOfScope, WithTheEncoderToo) {
  if (!sentence_encoder_built()) GTEST_SKIP() << "this build has no src/encoder";
  auto embedder = open_sentence_encoder("");
  ASSERT_TRUE(embedder.ok()) << embedder.error().message
                             << " (scripts/fetch-encoder.sh installs the weights; make setup)";
  std::shared_ptr<const Embedder> shared = std::move(*embedder);
  testing::TestDir dir("out-of-scope-encoder");
  ImportOptions options = quick_options();
  options.embedder = shared;
  auto report = import_knowledge_base(dir.path(), store_files(), options);
  ASSERT_TRUE(report.ok()) << report.error().message;
  ASSERT_TRUE(report->manifest.vectors.scope.enabled);
  auto kb = KnowledgeBase::open(dir.path(), {shared});
  ASSERT_TRUE(kb.ok()) << kb.error().message;
  expect_declines_off_topic_and_answers_paraphrases(**kb);
}

}  // namespace
}  // namespace supportd::kb
