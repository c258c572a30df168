// The built-in demo knowledge base: imported into an empty directory, imported again with
// vectors when it was imported before the sentence encoder was there, and a knowledge base
// imported from anyone else's files is never replaced.
#include "desk/demo_knowledge.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "encoder/sentence_encoder.h"
#include "kb/import/importer.h"
#include "kb/knowledge_base.h"

namespace supportd::desk {
namespace {

namespace fs = std::filesystem;

class DemoKnowledge : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("supportd-demo-knowledge-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    auto opened = kb::open_sentence_encoder(encoder::SentenceEncoder::default_path());
    ASSERT_TRUE(opened) << opened.error().message;
    encoder_ = std::move(opened).value();
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  std::shared_ptr<const kb::KnowledgeBase> open(const std::string& dir) {
    auto opened = kb::KnowledgeBase::open(dir, {encoder_});
    EXPECT_TRUE(opened) << opened.error().message;
    return opened ? std::move(opened).value() : nullptr;
  }

  fs::path root_;
  std::shared_ptr<const kb::Embedder> encoder_;
};

// Customers' own phrasings, none of them in the demo's files, are answered: confidently or in
// the middle way (the first entry answered, the next offered), the right entry first; a
// question sharing no word with the help centre is not.
TEST_F(DemoKnowledge, AnswersCustomersOwnPhrasingsAndNotGibberish) {
  const std::string dir = (root_ / "kb").string();
  auto imported = ensure_demo_knowledge(dir, encoder_);
  ASSERT_TRUE(imported) << imported.error().message;
  auto knowledge = open(dir);
  ASSERT_NE(knowledge, nullptr);
  const std::pair<const char*, std::vector<std::string>> cases[] = {
      {"How long does a refund take?", {"faq/refund-time", "help-centre-en/refunds"}},
      {"when do i get my money back", {"faq/refund-time", "help-centre-en/refunds"}},
      {"我想取消订单", {"faq/zh-cancel", "help-centre-zh/修改或取消订单"}},
  };
  for (const auto& [question, right] : cases) {
    auto result = knowledge->search(question);
    ASSERT_TRUE(result) << result.error().message;
    ASSERT_FALSE(result->hits.empty()) << question;
    EXPECT_TRUE(result->confident || result->offer)
        << question << ": confidence " << result->confidence;
    EXPECT_NE(std::find(right.begin(), right.end(), result->hits[0].id), right.end())
        << question << ": " << result->hits[0].id;
  }
  auto gibberish = knowledge->search("zxqv plorf wibble");
  ASSERT_TRUE(gibberish);
  EXPECT_FALSE(gibberish->confident || gibberish->offer);
  EXPECT_TRUE(gibberish->out_of_scope);
  // The out-of-scope gate was calibrated at import and lets the phrasings above through.
  EXPECT_TRUE(knowledge->manifest().vectors.scope.enabled);
}

// Questions about what the shop does not cover are declined (out of scope: neither answered nor
// offered), in both languages, by the gate import fitted, not by phrasings added to the demo.
TEST_F(DemoKnowledge, DeclinesQuestionsAboutWhatTheShopDoesNotCover) {
  const std::string dir = (root_ / "kb").string();
  auto imported = ensure_demo_knowledge(dir, encoder_);
  ASSERT_TRUE(imported) << imported.error().message;
  auto knowledge = open(dir);
  ASSERT_NE(knowledge, nullptr);
  for (const char* question : {"Do you sell bicycles?", "What is the capital of France?",
                               "Can you fix my car?", "你们卖自行车吗？", "今天天气怎么样？"}) {
    auto result = knowledge->search(question);
    ASSERT_TRUE(result) << result.error().message;
    EXPECT_TRUE(result->out_of_scope)
        << question << ": " << (result->hits.empty() ? "" : result->hits[0].id);
    EXPECT_FALSE(result->confident || result->offer) << question;
  }
}

TEST_F(DemoKnowledge, ADemoImportedBeforeTheEncoderGetsVectorsOnceTheEncoderIsThere) {
  const std::string dir = (root_ / "kb").string();
  auto first = ensure_demo_knowledge(dir, nullptr);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_TRUE(*first);
  auto lexical = open(dir);
  ASSERT_NE(lexical, nullptr);
  EXPECT_TRUE(lexical->manifest().encoder.empty());
  EXPECT_TRUE(is_outdated_demo(lexical->manifest(), encoder_.get()));
  EXPECT_FALSE(is_outdated_demo(lexical->manifest(), nullptr));  // nothing to add without one

  auto second = ensure_demo_knowledge(dir, encoder_);
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_TRUE(*second);
  auto dense = open(dir);
  ASSERT_NE(dense, nullptr);
  EXPECT_EQ(dense->manifest().encoder, encoder_->fingerprint());
  EXPECT_GT(dense->manifest().generation, lexical->manifest().generation);
  EXPECT_EQ(dense->manifest().entries, lexical->manifest().entries);
  EXPECT_TRUE(dense->warnings().empty()) << dense->warnings().front();
  EXPECT_FALSE(is_outdated_demo(dense->manifest(), encoder_.get()));

  auto third = ensure_demo_knowledge(dir, encoder_);
  ASSERT_TRUE(third) << third.error().message;
  EXPECT_FALSE(*third);
  EXPECT_EQ(open(dir)->manifest().generation, dense->manifest().generation);
}

TEST_F(DemoKnowledge, AnotherKnowledgeBaseWithoutVectorsIsLeftAsItIs) {
  const std::string dir = (root_ / "kb").string();
  const std::string file = (root_ / "faq.json").string();
  std::ofstream(file) << R"([{"id": "faq/refund", "title": "Refunds", "locale": "en",
    "questions": ["How do I get a refund?", "Can I have my money back?"],
    "answer": "Refunds go back to the card you paid with within five working days."}])";
  auto imported = kb::import_knowledge_base(dir, {file}, kb::ImportOptions{});
  ASSERT_TRUE(imported) << imported.error().message;
  auto before = open(dir);
  ASSERT_NE(before, nullptr);
  EXPECT_FALSE(is_outdated_demo(before->manifest(), encoder_.get()));

  auto ensured = ensure_demo_knowledge(dir, encoder_);
  ASSERT_TRUE(ensured) << ensured.error().message;
  EXPECT_FALSE(*ensured);
  auto after = open(dir);
  ASSERT_NE(after, nullptr);
  EXPECT_EQ(after->manifest().version, before->manifest().version);
  EXPECT_EQ(after->manifest().entries, 1);
  EXPECT_TRUE(after->manifest().encoder.empty());
}

TEST_F(DemoKnowledge, AKnowledgeBaseThatDoesNotOpenIsReportedNotReplaced) {
  const std::string dir = (root_ / "kb").string();
  const std::string file = (root_ / "faq.json").string();
  std::ofstream(file) << R"([{"id": "faq/refund", "title": "Refunds", "locale": "en",
    "questions": ["How do I get a refund?"], "answer": "Within five working days."}])";
  auto imported = kb::import_knowledge_base(dir, {file}, kb::ImportOptions{});
  ASSERT_TRUE(imported) << imported.error().message;
  const fs::path entries = fs::path(imported->generation) / "entries.jsonl";
  fs::resize_file(entries, fs::file_size(entries) / 2);  // damaged
  auto ensured = ensure_demo_knowledge(dir, encoder_);
  ASSERT_FALSE(ensured) << "the demo was imported over a damaged knowledge base";
  EXPECT_EQ(kb::KnowledgeBase::open(dir, {encoder_}).ok(), false);  // still the user's, damaged
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 2)
      << "CURRENT and the one generation";
}

}  // namespace
}  // namespace supportd::desk
