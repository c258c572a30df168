// `supportd anomaly score` as a user runs it: a score per row in order, the same scores for a
// prefix of the file, and exit code 2 with the file and line for bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "scratch_files.h"
#include "series.h"
#include "supportd_command.h"

namespace supportd::obs {
namespace {

using supportd::testing::run_supportd;

std::string series_csv(const std::vector<double>& values, std::size_t count) {
  std::string text = "timestamp,value\n";
  for (std::size_t t = 0; t < count; ++t)
    text += std::to_string(1420070400 + 300 * static_cast<long>(t)) + "," +
            std::to_string(values[t]) + "\n";
  return text;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

TEST(AnomalyCli, WritesAScoreForEveryRowInOrder) {
  testing::ScratchFiles files;
  std::vector<double> values = testing::wave(1200, 1);
  values[1000] = 40;
  const auto input = files.write("in.csv", series_csv(values, values.size()));
  const auto run = run_supportd({"anomaly", "score", "--input", input, "--output",
                                 files.path("out.csv"), "--set", "sample-size=256"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("1200 rows scored"), std::string::npos) << run.err;
  const auto out = lines_of(files.read("out.csv"));
  ASSERT_EQ(out.size(), 1201u);
  EXPECT_EQ(out[0], "timestamp,anomaly_score");
  double spike = 0, highest_other = 0;
  for (std::size_t t = 0; t < values.size(); ++t) {
    const auto comma = out[t + 1].find(',');
    ASSERT_EQ(out[t + 1].substr(0, comma), std::to_string(1420070400 + 300 * static_cast<long>(t)));
    const double score = std::stod(out[t + 1].substr(comma + 1));
    ASSERT_GE(score, 0.0);
    ASSERT_LE(score, 1.0);
    if (t == 1000)
      spike = score;
    else if (t > 300)
      highest_other = std::max(highest_other, score);
  }
  EXPECT_GT(spike, highest_other);
}

TEST(AnomalyCli, ScoresAPrefixOfAFileAsTheFirstRowsOfTheWhole) {
  testing::ScratchFiles files;
  std::vector<double> values = testing::wave(1500, 2);
  values[1100] = -30;
  const auto whole = files.write("whole.csv", series_csv(values, 1500));
  const auto prefix = files.write("prefix.csv", series_csv(values, 1150));
  ASSERT_EQ(run_supportd({"anomaly", "score", "--quiet", "--input", whole, "--output",
                          files.path("whole.out")})
                .exit_code,
            0);
  const auto run =
      run_supportd({"anomaly", "score", "--quiet", "--input", prefix, "--output", "-"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err, "");
  const auto whole_lines = lines_of(files.read("whole.out"));
  const auto prefix_lines = lines_of(run.out);  // --output - writes to stdout
  ASSERT_EQ(prefix_lines.size(), 1151u);
  for (std::size_t i = 0; i < prefix_lines.size(); ++i)
    ASSERT_EQ(prefix_lines[i], whole_lines[i]) << i;
}

TEST(AnomalyCli, BadInputExitsTwoNamingFileAndLine) {
  testing::ScratchFiles files;
  struct Case {
    std::string content, message;
  };
  const std::vector<Case> cases = {
      {"", ":1: the file is empty"},
      {"2020-01-01,1\n2020-01-02,2\n", ":1: expected a header naming the columns timestamp,value"},
      {"timestamp,value\n2020-01-01,1\n2020-01-02,x\n", ":3: \"x\" is not a finite number"},
      {"timestamp,value\n2020-01-03,1\n2020-01-01,2\n", ":3: timestamp 2020-01-01 is earlier"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto input = files.write("bad" + std::to_string(i) + ".csv", cases[i].content);
    const auto output = files.path("bad" + std::to_string(i) + ".out");
    const auto run = run_supportd({"anomaly", "score", "--input", input, "--output", output});
    EXPECT_EQ(run.exit_code, 2) << i;
    EXPECT_NE(run.err.find("error: " + input + cases[i].message), std::string::npos)
        << i << ": " << run.err;
    EXPECT_FALSE(std::filesystem::exists(output)) << i;  // no partial output
  }
}

TEST(AnomalyCli, UsageErrorsExitTwo) {
  testing::ScratchFiles files;
  const auto input = files.write("in.csv", "timestamp,value\n2020-01-01,1\n");
  const auto out = files.path("out.csv");
  const auto missing =
      run_supportd({"anomaly", "score", "--input", files.path("none.csv"), "--output", out});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("cannot open " + files.path("none.csv")), std::string::npos);
  EXPECT_EQ(run_supportd({"anomaly", "score", "--input", input}).exit_code, 2);  // no --output
  EXPECT_EQ(
      run_supportd({"anomaly", "score", "--input", input, "--output", out, "--bogus"}).exit_code,
      2);
  const auto setting =
      run_supportd({"anomaly", "score", "--input", input, "--output", out, "--set", "trees=lots"});
  EXPECT_EQ(setting.exit_code, 2);
  EXPECT_NE(setting.err.find("--set trees: \"lots\" is not a whole number"), std::string::npos)
      << setting.err;
  EXPECT_EQ(run_supportd({"anomaly", "score", "--input", input, "--output", out, "--set", "trees"})
                .exit_code,
            2);
  EXPECT_EQ(run_supportd({"anomaly"}).exit_code, 2);  // a verb is needed
}

TEST(AnomalyCli, AnUnwritableOutputExitsOne) {
  testing::ScratchFiles files;
  const auto input = files.write("in.csv", "timestamp,value\n2020-01-01,1\n");
  const auto run = run_supportd(
      {"anomaly", "score", "--input", input, "--output", files.path("no/such/dir/out.csv")});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("error: "), std::string::npos);
}

TEST(AnomalyCli, HelpDescribesTheFormatAndTheParameters) {
  const auto run = run_supportd({"anomaly", "score", "--help"});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_NE(run.out.find("timestamp,value"), std::string::npos);
  EXPECT_NE(run.out.find("timestamp,anomaly_score"), std::string::npos);
  EXPECT_NE(run.out.find("onset-window"), std::string::npos);
  EXPECT_NE(run.out.find("sample-size"), std::string::npos);
}

}  // namespace
}  // namespace supportd::obs
