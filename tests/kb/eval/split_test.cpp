// `kb split`: stratified per label and deterministic, bad input refused, never overwriting its
// input or losing a part.
#include "kb/eval/split.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "kb/import/csv.h"
#include "test_dir.h"

namespace supportd::kb {
namespace {

TEST(Split, StratifiesPerLabelDeterministically) {
  testing::TestDir dir("split");
  std::string content = "text,category\n";
  for (int i = 0; i < 50; ++i)
    content += "question a" + std::to_string(i) + ",alpha\n";
  for (int i = 0; i < 10; ++i)
    content += "\"question, b" + std::to_string(i) + "\",beta\n";
  content += "only one,gamma\n";
  const std::string input = dir.write("all.csv", content);
  SplitOptions options;
  options.holdout = 0.2;
  options.seed = 3;
  auto counts = split_labelled_csv(input, dir.path() + "/a.csv", dir.path() + "/b.csv", options);
  ASSERT_TRUE(counts.ok()) << counts.error().message;
  EXPECT_EQ(counts->labels, 3);
  EXPECT_EQ(counts->test, 10 + 2 + 0);  // a single row always stays in training
  EXPECT_EQ(counts->train + counts->test, 61);
  auto train = read_csv_file(dir.path() + "/a.csv");
  auto test = read_csv_file(dir.path() + "/b.csv");
  ASSERT_TRUE(train.ok() && test.ok());
  std::map<std::string, int> held;
  for (const auto& row : test->rows)
    ++held[row.fields[1]];
  EXPECT_EQ(held["alpha"], 10);
  EXPECT_EQ(held["beta"], 2);
  EXPECT_EQ(held.count("gamma"), 0u);
  // Quoted fields survive; the same seed gives the same split, another seed another.
  auto again = split_labelled_csv(input, dir.path() + "/c.csv", dir.path() + "/d.csv", options);
  ASSERT_TRUE(again.ok());
  auto test_again = read_csv_file(dir.path() + "/d.csv");
  ASSERT_TRUE(test_again.ok());
  EXPECT_EQ(test_again->rows.size(), test->rows.size());
  for (std::size_t i = 0; i < test->rows.size(); ++i) {
    EXPECT_EQ(test_again->rows[i].fields, test->rows[i].fields);
  }
  options.seed = 4;
  ASSERT_TRUE(
      split_labelled_csv(input, dir.path() + "/e.csv", dir.path() + "/f.csv", options).ok());
  auto other = read_csv_file(dir.path() + "/f.csv");
  bool differs = false;
  for (std::size_t i = 0; i < other->rows.size(); ++i) {
    differs = differs || other->rows[i].fields != test->rows[i].fields;
  }
  EXPECT_TRUE(differs);
}

TEST(Split, RejectsBadInput) {
  testing::TestDir dir("split-bad");
  const std::string input = dir.write("x.csv", "text,kind\nq,a\n");
  SplitOptions options;
  auto no_label = split_labelled_csv(input, dir.path() + "/a", dir.path() + "/b", options);
  ASSERT_FALSE(no_label.ok());
  EXPECT_NE(no_label.error().message.find("--label-col"), std::string::npos);
  options.label_column = "kind";
  options.holdout = 1.5;
  EXPECT_FALSE(split_labelled_csv(input, dir.path() + "/a", dir.path() + "/b", options).ok());
  options.holdout = 0.2;
  const std::string empty_label = dir.write("y.csv", "text,label\nq,a\nr,\n");
  options.label_column.clear();
  auto failed = split_labelled_csv(empty_label, dir.path() + "/a", dir.path() + "/b", options);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.error().message.find("y.csv:3:"), std::string::npos);
}

// An output that is the input (by name, another spelling or a link) or the other output would
// lose rows; a failed write must not leave an empty or partial file behind.
TEST(Split, NeverOverwritesItsInputOrLosesAPart) {
  testing::TestDir dir("split-same");
  std::string content = "text,label\n";
  for (int i = 0; i < 20; ++i)
    content += "question " + std::to_string(i) + "," + (i % 2 ? "a" : "b") + "\n";
  const std::string input = dir.write("in.csv", content);
  std::filesystem::create_symlink(input, dir.path() + "/link.csv");
  const std::string other = dir.path() + "/other.csv";
  const SplitOptions options;
  const std::pair<std::string, std::string> bad[] = {
      {input, other},
      {other, input},
      {dir.path() + "/./in.csv", other},
      {other, dir.path() + "/link.csv"},
      {other, other},
      {dir.path() + "/g.csv", dir.path() + "/sub/../g.csv"}};
  std::filesystem::create_directories(dir.path() + "/sub");
  for (const auto& [train, test] : bad) {
    auto result = split_labelled_csv(input, train, test, options);
    ASSERT_FALSE(result.ok()) << train << " " << test;
    EXPECT_EQ(result.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(result.error().message.find(train == other ? test : train), std::string::npos)
        << result.error().message;
  }
  auto kept = read_csv_file(input);
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->rows.size(), 20u);
  EXPECT_FALSE(std::filesystem::exists(other));
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/g.csv"));

  auto failed =
      split_labelled_csv(input, dir.path() + "/missing/k.csv", dir.path() + "/l2.csv", options);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.error().message.find("missing/k.csv"), std::string::npos);
  auto failed_test =
      split_labelled_csv(input, dir.path() + "/k2.csv", dir.path() + "/missing/l.csv", options);
  ASSERT_FALSE(failed_test.ok());
  // Nothing but the input, its link and the empty subdirectory remains.
  int files = 0;
  for (const auto& item : std::filesystem::directory_iterator(dir.path())) {
    (void)item;
    ++files;
  }
  EXPECT_EQ(files, 3);
}

}  // namespace
}  // namespace supportd::kb
