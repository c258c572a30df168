// The out-of-scope decision end to end on a tiny knowledge base (a shop's FAQ of eight entries
// written by the test): import fits the gate without a single labelled
// out-of-scope question, and search declines questions about what the store does not cover
// while answering paraphrases of what it does, on the lexical path and with the encoder; and
// import's note on the entries (articles) that have no questions for the calibration to see.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "kb/import/importer.h"
#include "kb/knowledge_base.h"
#include "test_dir.h"
#include "test_model.h"

namespace supportd::kb {
namespace {

// A tiny shop's FAQ: eight entries, six phrasings each (48 questions: two folds of 24, enough to
// tune on), written to `path`.
void write_tiny_faq(const std::string& path) {
  std::ofstream out(path);
  out << R"([
{"id": "refund", "answer": "Refunds reach your account 3-5 business days after we receive the return.",
 "questions": ["How long does a refund take?", "When will I get my money back?",
  "How many days until my refund arrives?", "Is my refund on its way?",
  "Refund still not received", "When is the refund paid out?"]},
{"id": "delivery", "answer": "Standard delivery takes 2-4 business days, express one day.",
 "questions": ["How long does delivery take?", "When will my parcel arrive?",
  "How many days is shipping?", "Is express delivery available?", "Delivery time to Germany",
  "How fast do you ship?"]},
{"id": "cancel", "answer": "Orders can be cancelled from the Orders page until they ship.",
 "questions": ["How do I cancel my order?", "Can I cancel an order I just placed?",
  "I want to cancel my purchase", "Stop my order please", "Cancel order before it ships",
  "Is it too late to cancel?"]},
{"id": "password", "answer": "Use Forgot password on the sign-in page; the link is valid for an hour.",
 "questions": ["I forgot my password", "How do I reset my password?", "Can't log in to my account",
  "Password reset e-mail never came", "Change my account password", "Locked out of my account"]},
{"id": "payment", "answer": "We accept Visa, Mastercard, PayPal, Apple Pay and Klarna.",
 "questions": ["Which payment methods do you accept?", "Can I pay with PayPal?",
  "Do you take credit cards?", "Is Apple Pay supported?", "Can I pay by invoice?",
  "Do you accept Klarna?"]},
{"id": "returns", "answer": "Print the return label from your order page and drop the parcel off within 30 days.",
 "questions": ["How do I return an item?", "Can I send something back?", "What is your return policy?",
  "Return label please", "How many days do I have to return?",
  "Exchange a product for another size"]},
{"id": "address", "answer": "You can change the address from the order's page until it ships.",
 "questions": ["Can I change my delivery address?", "I entered the wrong shipping address",
  "Update the address on my order", "Ship to a different address", "Wrong street on my order",
  "Change where my parcel goes"]},
{"id": "contact", "answer": "Our agents answer chat and e-mail every day from 8 am to 10 pm.",
 "questions": ["How do I talk to a person?", "What are your customer service hours?",
  "Phone number for support", "Can I speak to an agent?", "How do I contact you?",
  "Email address of customer service"]}
])";
}

// Questions about things the shop's FAQ does not cover.
const std::vector<std::string> kOffTopic = {
    "Do you sell bicycles?",
    "What is the capital of France?",
    "Can you recommend a good pizza recipe?",
};

// Paraphrases of what it covers (none of them in the FAQ) and the entry that answers each.
const std::vector<std::pair<std::string, std::string>> kInScope = {
    {"when do i get my money back", "refund"},
    {"what cards can I pay with", "payment"},
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
  options.folds = 2;
  ClassifierParams params;
  params.epochs = 20;
  params.buckets = 20000;
  options.classifier_grid = {params};
  return options;
}

TEST(KbOutOfScope, ATinyKnowledgeBaseCalibratesItsGateAndDeclinesOffTopicQuestions) {
  testing::TestDir dir("out-of-scope");
  write_tiny_faq(dir.path() + "/faq.json");
  auto report =
      import_knowledge_base(dir.path() + "/kb", {dir.path() + "/faq.json"}, quick_options());
  ASSERT_TRUE(report.ok()) << report.error().message;
  const ScopeGate& gate = report->manifest.lexical.scope;
  ASSERT_TRUE(gate.enabled);
  EXPECT_GE(gate.dev_pass_rate, gate.pass_rate);
  // Held-out questions scored without their entry are declined far more often than the 3% of
  // those answered right that the floor gives up.
  EXPECT_GT(gate.dev_decline_rate, 0.25);
  auto kb = KnowledgeBase::open(dir.path() + "/kb");
  ASSERT_TRUE(kb.ok()) << kb.error().message;
  expect_declines_off_topic_and_answers_paraphrases(**kb);
}

TEST(KbOutOfScope, ImportSaysWhichEntriesItsCalibrationDoesNotSee) {
  testing::TestDir dir("unasked-entries");
  write_tiny_faq(dir.path() + "/faq.json");
  std::ofstream(dir.path() + "/help.md")
      << "# Gift wrapping\nWe gift-wrap any order for 3.50 euros and add a card with your "
         "message.\n";
  const auto has_note = [](const Manifest& manifest) {
    return std::any_of(manifest.notes.begin(), manifest.notes.end(), [](const std::string& note) {
      return note.starts_with("1 of 9 entries have no questions");
    });
  };
  auto report = import_knowledge_base(
      dir.path() + "/kb", {dir.path() + "/faq.json", dir.path() + "/help.md"}, quick_options());
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_TRUE(has_note(report->manifest));
  auto kb = KnowledgeBase::open(dir.path() + "/kb");
  ASSERT_TRUE(kb.ok()) << kb.error().message;
  auto wrapped = (*kb)->search("Can you gift wrap my order?");
  ASSERT_TRUE(wrapped.ok() && !wrapped->hits.empty());
  EXPECT_EQ(wrapped->hits[0].id, "help/gift-wrapping");
  // Every entry with questions: nothing to say.
  auto faq_only =
      import_knowledge_base(dir.path() + "/kb-faq", {dir.path() + "/faq.json"}, quick_options());
  ASSERT_TRUE(faq_only.ok()) << faq_only.error().message;
  for (const std::string& note : faq_only->manifest.notes)
    EXPECT_EQ(note.find("have no questions"), std::string::npos) << note;
}

TEST(KbOutOfScope, WithTheEncoderToo) {
  if (!sentence_encoder_built()) GTEST_SKIP() << "this build has no src/encoder";
  auto embedder = open_sentence_encoder("");
  ASSERT_TRUE(embedder.ok()) << embedder.error().message
                             << " (scripts/fetch-encoder.sh installs the weights; make setup)";
  std::shared_ptr<const Embedder> shared = std::move(*embedder);
  testing::TestDir dir("out-of-scope-encoder");
  write_tiny_faq(dir.path() + "/faq.json");
  ImportOptions options = quick_options();
  options.embedder = shared;
  auto report = import_knowledge_base(dir.path() + "/kb", {dir.path() + "/faq.json"}, options);
  ASSERT_TRUE(report.ok()) << report.error().message;
  ASSERT_TRUE(report->manifest.vectors.scope.enabled);
  auto kb = KnowledgeBase::open(dir.path() + "/kb", {shared});
  ASSERT_TRUE(kb.ok()) << kb.error().message;
  expect_declines_off_topic_and_answers_paraphrases(**kb);
}

}  // namespace
}  // namespace supportd::kb
