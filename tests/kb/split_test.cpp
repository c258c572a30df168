#include "kb/split.h"

#include <gtest/gtest.h>

#include <map>

#include "kb/csv.h"
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

}  // namespace
}  // namespace supportd::kb
