// The OpenAI request parser: a chat call parsed whole, and every bad field refused with a message
// naming it.
#include "api/openai_request.h"

#include <gtest/gtest.h>

namespace supportd::api {
namespace {

TEST(OpenAiRequest, ParsesAChatCall) {
  auto call = parse_completion_call(R"({
    "model": "m", "stream": true, "stream_options": {"include_usage": true},
    "messages": [{"role": "system", "content": "be brief"},
                 {"role": "user", "content": [{"type": "text", "text": "hi"}]}],
    "max_tokens": 12, "temperature": 0, "seed": 7, "stop": ["\n"], "ignore_eos": true})",
                                    true);
  ASSERT_TRUE(call.ok()) << call.error().message;
  EXPECT_EQ(call->model, "m");
  EXPECT_TRUE(call->stream);
  EXPECT_TRUE(call->include_usage);
  ASSERT_EQ(call->request.messages.size(), 2u);
  EXPECT_EQ(call->request.messages[1].content, "hi");
  EXPECT_EQ(call->request.max_tokens, 12);
  EXPECT_EQ(call->request.sampling.temperature, 0.0f);
  EXPECT_EQ(call->request.sampling.seed, 7u);
  EXPECT_EQ(call->request.stop, std::vector<std::string>{"\n"});
  EXPECT_TRUE(call->request.ignore_eos);
}

struct Bad {
  const char* body;
  bool chat;
  const char* param;
};

class OpenAiRequestRejects : public testing::TestWithParam<Bad> {};

TEST_P(OpenAiRequestRejects, WithAMessageNamingTheField) {
  auto call = parse_completion_call(GetParam().body, GetParam().chat);
  ASSERT_FALSE(call.ok());
  EXPECT_EQ(call.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(call.error().param, GetParam().param) << call.error().message;
  EXPECT_FALSE(call.error().message.empty());
}

INSTANTIATE_TEST_SUITE_P(
    BadBodies, OpenAiRequestRejects,
    testing::Values(
        Bad{"{not json", true, ""}, Bad{"[1,2]", true, ""},
        Bad{R"({"messages": "hi"})", true, "messages"},
        Bad{R"({"messages": []})", true, "messages"}, Bad{R"({})", true, "messages"},
        Bad{R"({"messages": [{"role": "wizard", "content": "x"}]})", true, "messages[0].role"},
        Bad{R"({"messages": [{"role": "user", "content": 5}]})", true, "messages[0].content"},
        Bad{R"({"messages": [{"role": "user", "content": null}]})", true, "messages[0].content"},
        Bad{R"({"messages": [{"role": "user", "content": "x"}], "temperature": "hot"})", true,
            "temperature"},
        Bad{R"({"messages": [{"role": "user", "content": "x"}], "temperature": 9})", true,
            "temperature"},
        Bad{R"({"messages": [{"role": "user", "content": "x"}], "max_tokens": 0})", true,
            "max_tokens"},
        Bad{R"({"messages": [{"role": "user", "content": "x"}], "max_tokens": 1.5})", true,
            "max_tokens"},
        Bad{R"({"messages": [{"role": "user", "content": "x"}], "n": 2})", true, "n"},
        Bad{R"({"messages": [{"role": "user", "content": "x"}], "stop": [1]})", true, "stop"},
        Bad{R"({"prompt": 42})", false, "prompt"}, Bad{"{\"prompt\": \"\xff\"}", false, ""}));

}  // namespace
}  // namespace supportd::api
