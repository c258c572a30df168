// Training the components over the corpus: every document of an entry is an example of it, so
// an article nobody wrote questions for is a class the fastText classifier and the softmax head
// can name (trained on questions alone, a help centre's sections were never a classifier's
// answer and customers asking about them got a FAQ entry).
#include "kb/train/training.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "test_dir.h"

namespace supportd::kb {
namespace {

Entry faq(std::string id, std::vector<std::string> questions, std::string answer) {
  Entry entry;
  entry.id = std::move(id);
  entry.kind = EntryKind::kFaq;
  entry.title = questions.front();
  entry.answer = std::move(answer);
  entry.label = entry.id;
  for (std::string& text : questions)
    entry.questions.push_back({std::move(text), {}});
  return entry;
}

// Three FAQ entries with questions, and a help-centre article with none.
std::vector<Entry> shop() {
  std::vector<Entry> entries;
  entries.push_back(faq("faq/track",
                        {"where is my parcel", "track my order", "has my order shipped",
                         "my package has not arrived"},
                        "Follow the tracking link in your shipping e-mail."));
  entries.push_back(faq("faq/refund",
                        {"when do i get my refund", "refund not received",
                         "how long do refunds "
                         "take",
                         "money back after return"},
                        "We refund within 5 business days of receiving your return."));
  entries.push_back(
      faq("faq/password",
          {"forgot my password", "reset my password", "cannot sign in", "locked out of my account"},
          "Click Forgot password on the sign-in page."));
  Entry article;
  article.id = "help/delete-account";
  article.kind = EntryKind::kArticle;
  article.title = "Deleting your account";
  article.answer =
      "You can delete your account under Account settings, Privacy. We remove your personal "
      "data within 30 days, except invoices we must keep by law.";
  article.label = article.id;
  entries.push_back(std::move(article));
  return entries;
}

Corpus shop_corpus() {
  auto corpus = analyze_corpus(shop(), AnalyzerOptions{}, AnalyzerOptions{});
  EXPECT_TRUE(corpus.ok()) << corpus.error().message;
  return std::move(*corpus);
}

TEST(Training, AnArticleWithoutQuestionsIsAClassOfTheClassifier) {
  const Corpus corpus = shop_corpus();
  testing::TestDir dir("training");
  ClassifierParams params;
  params.epochs = 100;
  params.buckets = 10000;
  const std::vector<bool> everything(corpus.documents.size(), true);
  auto classifier = train_classifier(corpus, everything, params, dir.path(), "test");
  ASSERT_TRUE(classifier.ok()) << classifier.error().message;
  const TextAnalyzer analyzer = *TextAnalyzer::create({});
  const std::vector<float> probabilities =
      (*classifier)->predict(join_terms(analyzer.terms("can you delete the account and its data")));
  ASSERT_EQ(probabilities.size(), 4u);
  EXPECT_EQ(std::max_element(probabilities.begin(), probabilities.end()) - probabilities.begin(),
            3);
}

TEST(Training, AnArticleWithoutQuestionsIsAClassOfTheHead) {
  Corpus corpus = shop_corpus();
  // Vectors by hand: each entry's documents near its own axis.
  const int dimensions = 4;
  StoredVectors vectors;
  vectors.dimensions = dimensions;
  vectors.documents = static_cast<int>(corpus.documents.size());
  for (std::size_t d = 0; d < corpus.documents.size(); ++d) {
    vectors.document_of_row.push_back(static_cast<int>(d));
    for (int axis = 0; axis < dimensions; ++axis)
      vectors.values.push_back(axis == corpus.documents[d].entry ? 1.0f : 0.05f * (axis + 1));
  }
  ASSERT_TRUE(attach_vectors(corpus, std::move(vectors), "test").ok());
  HeadParams params;
  params.epochs = 200;
  params.learning_rate = 0.05;
  const std::vector<bool> everything(corpus.documents.size(), true);
  auto head = train_head(corpus, everything, params, "test");
  ASSERT_TRUE(head.ok()) << head.error().message;
  const std::vector<float> probe = {0.1f, 0.1f, 0.1f, 1.0f};
  const auto scores = (*head)->predict(probe);
  const auto best = std::max_element(
      scores.begin(), scores.end(), [](auto& a, auto& b) { return a.probability < b.probability; });
  ASSERT_NE(best, scores.end());
  EXPECT_EQ(best->target, 3);
}

}  // namespace
}  // namespace supportd::kb
