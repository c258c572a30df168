// `supportd serve --show-synthesized-text`, through the built binary: with the flag, a desk on a
// synthesized model generates answers to questions the knowledge base cannot answer and caches
// them, so the same question asked again is answered from the answer cache; without it, the
// same desk never generates (what customers get from a synthesized model).
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "command_line.h"
#include "demo_questions.h"
#include "http_client.h"
#include "serve_process.h"
#include "supportd_command.h"
#include "test_model.h"

namespace supportd {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using testing::ConfigFile;

using testing::ServeProcess;

// The answer to a one-shot question (POST /v1/answer).
json::value ask(const ServeProcess& server, const std::string& question) {
  const auto r = testing::http_request(server.port(), "POST", "/v1/answer",
                                       json::serialize(json::object{{"question", question}}));
  EXPECT_EQ(r.status, 200) << r.body;
  return r.status == 200 ? json::parse(r.body) : json::value();
}

// Nothing in the demo help centre answers this with confidence, and it is no FAQ question.
const std::string kQuestion = testing::uncovered_question();

// The flags both servers share: the tiny synthesized model, no sentence encoder (so a repeat can
// only come from the exact answer cache, not the semantic one), short answers.
std::vector<std::string> common_flags(const std::string& answer_tokens = "8") {
  return {"--model", testing::synthesized_model(), "--encoder",
          "off",     "--answer-max-tokens",        answer_tokens};
}

TEST(DeskServeFlags, ShowSynthesizedTextGeneratesAndCachesRepeatedQuestions) {
  std::vector<std::string> flags = common_flags();
  flags.push_back("--show-synthesized-text");
  ServeProcess server(flags);
  std::string why;
  ASSERT_TRUE(server.wait_ready(why)) << why;
  EXPECT_NE(server.log().find("--show-synthesized-text is on"), std::string::npos) << server.log();

  const json::value first = ask(server, kQuestion);
  ASSERT_TRUE(first.is_object());
  EXPECT_EQ(first.at("source"), json::value("model")) << json::serialize(first);
  EXPECT_FALSE(first.at("text").as_string().empty());
  EXPECT_TRUE(first.at("timings").as_object().contains("generate"));

  for (int repeat = 0; repeat < 2; ++repeat) {
    const json::value again = ask(server, kQuestion);
    ASSERT_TRUE(again.is_object());
    EXPECT_EQ(again.at("source"), json::value("cache")) << json::serialize(again);
    EXPECT_EQ(again.at("text"), first.at("text"));
    EXPECT_FALSE(again.at("timings").as_object().contains("generate"));
  }
  // A different question is not a cache hit.
  const json::value other = ask(server, testing::uncovered_question("sister"));
  ASSERT_TRUE(other.is_object());
  EXPECT_EQ(other.at("source"), json::value("model")) << json::serialize(other);
}

TEST(DeskServeFlags, WithoutTheFlagASynthesizedModelNeverAnswers) {
  ServeProcess server(common_flags());
  std::string why;
  ASSERT_TRUE(server.wait_ready(why)) << why;
  for (int attempt = 0; attempt < 2; ++attempt) {
    const json::value answer = ask(server, kQuestion);
    ASSERT_TRUE(answer.is_object());
    EXPECT_EQ(answer.at("source"), json::value("fallback")) << json::serialize(answer);
  }
}

// Why `supportd serve` with `flags` does not become ready (its error output).
std::string refusal(const std::vector<std::string>& flags) {
  ServeProcess server(flags);
  std::string why;
  EXPECT_FALSE(server.wait_ready(why));
  return why;
}

// `flags` plus `flag value`.
std::vector<std::string> with(std::vector<std::string> flags, const std::string& flag,
                              const std::string& value) {
  flags.insert(flags.end(), {flag, value});
  return flags;
}

TEST(DeskServeFlags, AnswerMaxTokensMustBePositive) {
  const std::string why = refusal(common_flags("0"));
  EXPECT_NE(why.find("--answer-max-tokens must be at least 1"), std::string::npos) << why;
}

TEST(DeskServeFlags, AnUnknownKvLayoutIsRefused) {
  const std::string why = refusal(with(common_flags(), "--kv-layout", "sideways"));
  EXPECT_NE(why.find("--kv-layout must be unified or per-sequence"), std::string::npos) << why;
}

TEST(DeskServeFlags, AnUnknownAttentionKernelIsRefused) {
  const std::string why = refusal(with(common_flags(), "--flash-attn", "sometimes"));
  EXPECT_NE(why.find("--flash-attn must be auto, on or off"), std::string::npos) << why;
}

TEST(DeskServeFlags, AnUnknownKvNumberFormatIsRefused) {
  const std::string why = refusal(with(common_flags(), "--kv-key-type", "q4_0"));
  EXPECT_NE(why.find("--kv-key-type must be f16 or q8_0"), std::string::npos) << why;
}

TEST(DeskServeFlags, QuantizedValuesWithPlainAttentionAreRefused) {
  const std::string why =
      refusal(with(with(common_flags(), "--kv-value-type", "q8_0"), "--flash-attn", "off"));
  EXPECT_NE(why.find("--kv-value-type q8_0 needs flash attention"), std::string::npos) << why;
}

TEST(DeskServeFlags, ACorsOriginThatIsNoOriginIsRefusedByName) {
  const std::string why =
      refusal(with(common_flags(), "--cors-origins", "https://shop.example.com,shop.example.org"));
  EXPECT_NE(why.find("--cors-origins: 'shop.example.org' is not an origin"), std::string::npos)
      << why;
}

TEST(DeskServeFlags, AKeysTenantThatCannotNameConversationsIsRefusedAtStart) {
  const ConfigFile config(
      "[[api_keys]]\nkey = \"sk-a\"\ntenant = \"shop\"\n\n"
      "[[api_keys]]\nkey = \"sk-dot\"\ntenant = \"sh.op\"\n");
  const std::string why = refusal(with(common_flags(), "--config", config.path()));
  EXPECT_NE(why.find(config.path() + ":5: api_keys.tenant 'sh.op': tenant may contain only"),
            std::string::npos)
      << why;
}

TEST(DeskServeFlags, ValuesThatWouldStopTheServerFromWorkingAreRefusedByName) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--idle-timeout", "0"}, "--idle-timeout must be at least 1"},
      {{"--read-timeout", "-1"}, "--read-timeout must be at least 1"},
      {{"--max-connections", "0"}, "--max-connections must be at least 1"},
      {{"--desk-workers", "0"}, "--desk-workers must be between 1 and 64"},
      {{"--queue-limit-low", "-1"}, "--queue-limit-low must not be negative"},
      {{"--shutdown-grace", "-1"}, "--shutdown-grace must not be negative"},
      {{"--threads", "1000"}, "--threads 1000 is more than twice"},
      {{"--host", "999.1.1.1"}, "--host 999.1.1.1 is not an IP address"},
  };
  for (const auto& [extra, message] : cases) {
    std::vector<std::string> flags = common_flags();
    flags.insert(flags.end(), extra.begin(), extra.end());
    const std::string why = refusal(flags);
    EXPECT_NE(why.find(message), std::string::npos) << extra.front() << ": " << why;
  }
}

TEST(DeskServeFlags, ASentenceEncoderNamedButMissingIsRefusedNotSkipped) {
  const std::string why =
      refusal({"--model", testing::synthesized_model(), "--encoder", "/nonexistent/encoder.bin"});
  EXPECT_NE(why.find("--encoder /nonexistent/encoder.bin: "), std::string::npos) << why;
}

TEST(DeskServeFlags, AConfigValueItsSettingCannotHoldIsRefusedNotWrapped) {
  // An int setting given more than an int, a byte count given a negative number.
  for (const std::string setting : {"http-threads = 4294967297", "body-limit = -5"}) {
    const ConfigFile config("[http]\n" + setting + "\n");
    const std::string key = "'http." + setting.substr(0, setting.find(' ')) + "'";
    const std::string why = refusal(with(common_flags(), "--config", config.path()));
    EXPECT_NE(why.find(config.path() + ":2: " + key + " has the wrong type or is out of range"),
              std::string::npos)
        << why;
  }
}

TEST(DeskServeFlags, AnUnknownLogLevelOrAnEmptyDataDirIsRefusedBeforeAnythingStarts) {
  const auto level = testing::run_supportd({"serve", "--log-level", "bogus"});
  EXPECT_EQ(level.exit_code, 2) << level.err;
  EXPECT_NE(level.err.find("--log-level must be trace, debug, info, warn, error or off"),
            std::string::npos)
      << level.err;
  const auto directory = testing::run_supportd({"serve", "--data-dir", ""});
  EXPECT_EQ(directory.exit_code, 2) << directory.err;
  EXPECT_NE(directory.err.find("--data-dir must name a directory"), std::string::npos)
      << directory.err;
}

TEST(DeskServeFlags, AKeyGivenTwiceIsRefusedAtStart) {
  const ConfigFile config(
      "[[api_keys]]\nkey = \"sk-a\"\ntenant = \"shop\"\n\n"
      "[[api_keys]]\nkey = \"sk-a\"\ntenant = \"other\"\n");
  const std::string why = refusal(with(common_flags(), "--config", config.path()));
  EXPECT_NE(why.find(config.path() + ":5: this api_keys key is already given"), std::string::npos)
      << why;
}

}  // namespace
}  // namespace supportd
