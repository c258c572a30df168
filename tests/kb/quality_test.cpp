// Small-sample quality checks on real data: a slice of banking77 (24 training and 8 held-out
// questions per intent) and the Chinese store help centre. The full-scale figures are
// benchmarks (bench/kb-banking77), not tests.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>

#include "kb/eval/evaluation.h"
#include "kb/import/csv.h"
#include "kb/import/importer.h"
#include "kb/knowledge_base.h"
#include "test_dir.h"
#include "test_paths.h"

namespace supportd::kb {
namespace {

const std::string kData = supportd::testing::source_dir() + "/tests/kb/data";

std::string banking77() {
  const char* path = std::getenv("SUPPORTD_BANKING77");
  return path != nullptr ? path : supportd::testing::shared_data_dir() + "/banking77/train.csv";
}

// Every intent's first 32 questions: three of every four train, the fourth is held out.
void slice_banking77(const std::string& train_path, std::vector<EvalQuestion>& held_out,
                     int per_label) {
  auto table = read_csv_file(banking77());
  ASSERT_TRUE(table.ok()) << table.error().message << " (the banking77 data set is expected at "
                          << banking77() << ")";
  std::map<std::string, int> seen;
  std::string train = "text,category\n";
  for (const CsvRow& row : table->rows) {
    const int n = seen[row.fields[1]]++;
    if (n >= per_label) continue;
    if (n % 4 == 3) {
      held_out.push_back({row.fields[0], row.fields[1], {banking77(), row.line}});
    } else {
      train += format_csv_row(row.fields);
    }
  }
  std::ofstream(train_path) << train;
}

ImportOptions quick_options() {
  ImportOptions options;
  options.source = {"text", "category"};
  ClassifierParams params;
  params.epochs = 30;
  params.buckets = 50000;
  options.classifier_grid = {params};
  return options;
}

TEST(KbQuality, Banking77SliceLexical) {
  testing::TestDir dir("banking77");
  std::vector<EvalQuestion> held_out;
  slice_banking77(dir.path() + "/train.csv", held_out, 32);
  ASSERT_EQ(held_out.size(), 77u * 8);
  auto report =
      import_knowledge_base(dir.path() + "/kb", {dir.path() + "/train.csv"}, quick_options());
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(report->manifest.entries, 77);
  EXPECT_GE(report->manifest.dev.questions, 20);
  EXPECT_TRUE(report->manifest.lexical.calibration.fitted);
  auto kb = KnowledgeBase::open(dir.path() + "/kb");
  ASSERT_TRUE(kb.ok()) << kb.error().message;
  auto eval = evaluate(**kb, held_out);
  ASSERT_TRUE(eval.ok()) << eval.error().message;
  // Every component takes part and the fusion is at least as good as the best of them.
  ASSERT_EQ(eval->components.size(), 4u);
  double best_component = 0;
  for (std::size_t i = 0; i + 1 < eval->components.size(); ++i) {
    best_component = std::max(best_component, eval->components[i].top1);
  }
  EXPECT_GE(eval->top1 + 0.01, best_component);
  EXPECT_GE(eval->top1, 0.75) << format_report(*eval);
  EXPECT_GE(eval->top3, 0.88) << format_report(*eval);
  EXPECT_EQ(eval->unknown_labels, 0);
}

TEST(KbQuality, ChineseStoreHelpCentre) {
  auto questions = read_eval_questions(kData + "/store-questions-zh.csv", "text", "label");
  ASSERT_TRUE(questions.ok()) << questions.error().message;
  testing::TestDir dir("chinese");
  ImportOptions options;  // the default segmentation
  auto report = import_knowledge_base(dir.path(), {kData + "/store-faq-zh.json"}, options);
  ASSERT_TRUE(report.ok()) << report.error().message;
  auto kb = KnowledgeBase::open(dir.path());
  ASSERT_TRUE(kb.ok());
  auto eval = evaluate(**kb, *questions);
  ASSERT_TRUE(eval.ok());
  EXPECT_EQ(eval->languages.at("zh"), 40);
  EXPECT_GE(eval->top1, 0.8) << format_report(*eval);
  EXPECT_GE(eval->top3, 0.9) << format_report(*eval);
}

// The open-set measures agree with the knowledge base's own decisions, question by question.
TEST(KbQuality, OpenSetScoresAgreeWithSearch) {
  auto questions = read_eval_questions(kData + "/store-questions-en.csv", "text", "label");
  ASSERT_TRUE(questions.ok()) << questions.error().message;
  for (const char* text : {"What is the capital of Mongolia?", "Who won the football world cup?",
                           "zxqv plorf wibble", "How do I change the oil in my car?"}) {
    questions->push_back({text, kOutOfScopeLabel, {"test", 0}});
  }
  testing::TestDir dir("open-set");
  ASSERT_TRUE(import_knowledge_base(
                  dir.path(), {kData + "/store-help.md", kData + "/store-faq.csv"}, ImportOptions{})
                  .ok());
  auto kb = KnowledgeBase::open(dir.path());
  ASSERT_TRUE(kb.ok()) << kb.error().message;
  auto eval = evaluate(**kb, *questions);
  ASSERT_TRUE(eval.ok()) << eval.error().message;
  ASSERT_TRUE(eval->open_set.has_value());
  int in_scope = 0, right = 0, oos = 0, recalled = 0, declined = 0;
  for (const EvalQuestion& question : *questions) {
    auto result = (*kb)->search(question.text);
    ASSERT_TRUE(result.ok());
    const bool scope = question.label != kOutOfScopeLabel;
    if (!result->confident) ++declined;
    if (scope) {
      ++in_scope;
      if (result->confident && result->hits[0].label == question.label) ++right;
    } else {
      ++oos;
      if (!result->confident) ++recalled;
    }
  }
  EXPECT_EQ(eval->in_scope, in_scope);
  EXPECT_EQ(eval->open_set->out_of_scope, oos);
  EXPECT_EQ(eval->unknown_labels, 0);
  EXPECT_DOUBLE_EQ(eval->open_set->in_scope_accuracy, static_cast<double>(right) / in_scope);
  EXPECT_DOUBLE_EQ(eval->open_set->oos_recall, static_cast<double>(recalled) / oos);
  EXPECT_DOUBLE_EQ(eval->open_set->oos_precision,
                   declined > 0 ? static_cast<double>(recalled) / declined : 0.0);
  // The knowledge base's own threshold is a row of the table, answering what it answers.
  bool own = false;
  for (const CoveragePoint& point : eval->coverage) {
    if (point.threshold != eval->threshold) continue;
    own = true;
    EXPECT_NEAR(point.in_scope_accuracy, eval->open_set->in_scope_accuracy, 1e-9);
  }
  EXPECT_TRUE(own) << format_report(*eval);
}

}  // namespace
}  // namespace supportd::kb
