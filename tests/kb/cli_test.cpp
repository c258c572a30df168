// The `supportd kb` verbs as a user runs them: exit codes, messages naming file and line, and
// the JSON that scripts read.
#include <gtest/gtest.h>
#include <boost/json.hpp>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "supportd_command.h"
#include "test_dir.h"
#include "test_paths.h"

namespace supportd::kb {
namespace {

const std::string kData = supportd::testing::source_dir() + "/tests/kb/data";

using supportd::testing::CommandRun;

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

// Runs `supportd kb ARGS`.
CommandRun supportd_kb(const testing::TestDir&, std::vector<std::string> args) {
  args.insert(args.begin(), "kb");
  return supportd::testing::run_supportd(args);
}

TEST(KbCli, MalformedFilesExitWithFileAndLine) {
  testing::TestDir dir("cli-bad");
  const std::string labelled = dir.write("labels.csv", "text,label\nhello,greet\nbye,\n");
  CommandRun run = supportd_kb(dir, {"import", "--kb", dir.path() + "/kb", labelled, "--text-col",
                                     "text", "--label-col", "label", "--no-encoder"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find(labelled + ":3: the label is empty"), std::string::npos) << run.err;

  const std::string markdown = dir.write("help.md", "# Title\ntext\n```\nunclosed\n");
  run = supportd_kb(dir, {"import", "--kb", dir.path() + "/kb", markdown, "--no-encoder"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find(markdown + ":3:"), std::string::npos) << run.err;

  const std::string json = dir.write("faq.json", "[{\"question\": \"a\", \"answer\": \"b\"},\n{]");
  run = supportd_kb(dir, {"import", "--kb", dir.path() + "/kb", json, "--no-encoder"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find(json + ":2: invalid JSON"), std::string::npos) << run.err;

  run = supportd_kb(
      dir, {"import", "--kb", dir.path() + "/kb", dir.write("notes.txt", "x"), "--no-encoder"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("unknown file type"), std::string::npos);

  run = supportd_kb(dir, {"search", "--kb", dir.path() + "/none", "refund", "--no-encoder"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find(dir.path() + "/none"), std::string::npos) << run.err;
}

TEST(KbCli, ImportSearchEvalAndSplit) {
  testing::TestDir dir("cli");
  const std::string kb_dir = dir.path() + "/kb";
  CommandRun run =
      supportd_kb(dir, {"import", "--kb", kb_dir, kData + "/store-help.md",
                        kData + "/store-faq.csv", kData + "/store-faq-zh.json", "--no-encoder"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("34 entries"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("version g1-"), std::string::npos) << run.out;

  run = supportd_kb(
      dir, {"search", "--kb", kb_dir, "How long do refunds take?", "--json", "--no-encoder"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const boost::json::value result = boost::json::parse(run.out);
  const auto& hit = result.at("hits").at(0).as_object();
  EXPECT_EQ(hit.at("id").as_string(), "store-help/refund-timing");
  EXPECT_EQ(hit.at("title").as_string(), "Returns and refunds \xE2\x80\xBA Refund timing");
  EXPECT_FALSE(hit.at("snippet").as_string().empty());
  EXPECT_TRUE(result.at("version").as_string().starts_with("g1-"));

  run = supportd_kb(
      dir, {"eval", "--kb", kb_dir, kData + "/store-questions-zh.csv", "--json", "--no-encoder"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const boost::json::value report = boost::json::parse(run.out);
  for (const char* key : {"top1", "top3", "n", "p50_ms", "p99_ms", "components", "confusions"}) {
    EXPECT_TRUE(report.as_object().contains(key)) << key;
  }
  EXPECT_EQ(report.at("n").as_int64(), 40);
  EXPECT_GE(report.at("top1").as_double(), 0.5);

  run =
      supportd_kb(dir, {"eval", "--kb", kb_dir, kData + "/store-questions-en.csv", "--no-encoder"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("BM25 nearest neighbour"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("fused ranking"), std::string::npos);
  EXPECT_NE(run.out.find("p99"), std::string::npos);

  // Questions the knowledge base does not cover: labelled `oos`, or with a label no entry has.
  const std::string mixed =
      dir.write("mixed.csv", read_all(kData + "/store-questions-en.csv") +
                                 "What is the capital of Mongolia?,oos\n"
                                 "zxqv plorf wibble,oos\n"
                                 "Can you recommend a lasagne recipe?,recipes\n");
  run = supportd_kb(dir, {"eval", "--kb", kb_dir, mixed, "--json", "--no-encoder"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const boost::json::object open_set = boost::json::parse(run.out).as_object();
  EXPECT_EQ(open_set.at("n").as_int64(), 31);
  EXPECT_EQ(open_set.at("in_scope").as_int64(), 28);
  EXPECT_EQ(open_set.at("out_of_scope").as_int64(), 3);
  EXPECT_EQ(open_set.at("unknown_labels").as_int64(), 1);  // `recipes`; `oos` is no typo
  for (const char* key : {"in_scope_accuracy", "oos_recall", "oos_precision"}) {
    const double value = open_set.at(key).as_double();
    EXPECT_GE(value, 0.0) << key;
    EXPECT_LE(value, 1.0) << key;
  }
  // The gibberish shares no word with the knowledge base: it is declined whatever the threshold.
  EXPECT_GE(open_set.at("oos_recall").as_double(), 1.0 / 3);
  const auto& coverage = open_set.at("coverage").as_array();
  ASSERT_GE(coverage.size(), 12u);
  EXPECT_TRUE(coverage.at(0).as_object().contains("oos_recall"));
  run = supportd_kb(dir, {"eval", "--kb", kb_dir, mixed, "--no-encoder"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("28 in scope, 3 out of scope"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("OOS recall"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("<- the knowledge base's"), std::string::npos) << run.out;

  const std::string labelled = kData + "/store-questions-en.csv";
  for (const char* name : {"a", "b"}) {
    run = supportd_kb(dir, {"split", labelled, "--holdout", "0.5", "--seed", "9", "--out-train",
                            dir.path() + "/train-" + name + ".csv", "--out-test",
                            dir.path() + "/test-" + name + ".csv"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
  }
  EXPECT_EQ(read_all(dir.path() + "/test-a.csv"), read_all(dir.path() + "/test-b.csv"));
  EXPECT_NE(read_all(dir.path() + "/test-a.csv").find("text,label\n"), std::string::npos);
}

// Labelled questions small enough to import in a moment.
std::string small_labelled(const testing::TestDir& dir) {
  return dir.write("labels.csv",
                   "text,label\nwhere is my card,card\nmy card has not arrived,card\n"
                   "how do I top up,top-up\ntop up by bank transfer,top-up\n");
}

// A precision outside (0, 1] would publish a threshold that means nothing: refused before
// anything is written.
TEST(KbCli, RefusesATargetPrecisionOutsideZeroToOne) {
  testing::TestDir dir("cli-precision");
  const std::string kb_dir = dir.path() + "/kb";
  const std::string labelled = small_labelled(dir);
  for (const char* precision : {"2", "nan", "-1", "0", "1.0001"}) {
    const CommandRun run =
        supportd_kb(dir, {"import", "--kb", kb_dir, labelled, "--text-col", "text", "--label-col",
                          "label", "--target-precision", precision, "--no-encoder"});
    EXPECT_EQ(run.exit_code, 2) << precision << "\n" << run.err;
    EXPECT_NE(run.err.find("--target-precision"), std::string::npos) << run.err;
    EXPECT_FALSE(std::filesystem::exists(kb_dir + "/CURRENT")) << precision;
  }
  EXPECT_EQ(supportd_kb(dir, {"import", "--kb", kb_dir, labelled, "--text-col", "text",
                              "--label-col", "label", "--target-precision", "1", "--no-encoder"})
                .exit_code,
            0);
}

// A model the user named that does not load is an error naming the flag and the file, for
// import, search and eval alike; only the default encoder falls back to lexical with a warning.
TEST(KbCli, RefusesANamedModelThatDoesNotLoad) {
  testing::TestDir dir("cli-models");
  const std::string kb_dir = dir.path() + "/kb";
  const std::string labelled = small_labelled(dir);
  const std::vector<std::string> import = {"import",     "--kb", kb_dir,        labelled,
                                           "--text-col", "text", "--label-col", "label"};
  const std::string missing = dir.path() + "/missing.bin";
  const std::vector<std::pair<std::string, std::string>> models = {{"--encoder-model", missing},
                                                                   {"--embedding-model", missing},
                                                                   {"--embedding-model", labelled}};
  for (const auto& [flag, file] : models) {
    std::vector<std::string> args = import;
    args.insert(args.end(), {flag, file});
    const CommandRun run = supportd_kb(dir, args);
    EXPECT_EQ(run.exit_code, 2) << flag << " " << file << "\n" << run.err;
    EXPECT_NE(run.err.find(flag + ": "), std::string::npos) << run.err;
    EXPECT_NE(run.err.find(file), std::string::npos) << run.err;
    EXPECT_FALSE(std::filesystem::exists(kb_dir + "/CURRENT")) << flag;
  }
  std::vector<std::string> args = import;
  args.push_back("--no-encoder");
  ASSERT_EQ(supportd_kb(dir, args).exit_code, 0);
  for (const auto& [flag, file] : models) {
    CommandRun run = supportd_kb(dir, {"search", "--kb", kb_dir, "card", flag, file});
    EXPECT_EQ(run.exit_code, 2) << "search " << flag << "\n" << run.err;
    EXPECT_NE(run.err.find(flag + ": "), std::string::npos) << run.err;
    run = supportd_kb(dir, {"eval", "--kb", kb_dir, labelled, flag, file});
    EXPECT_EQ(run.exit_code, 2) << "eval " << flag << "\n" << run.err;
    EXPECT_NE(run.err.find(flag + ": "), std::string::npos) << run.err;
  }
}

}  // namespace
}  // namespace supportd::kb
