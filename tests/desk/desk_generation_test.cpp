// The desk's generation path, exercised with a synthesized model whose text is meaningless but
// whose mechanics are real: prompt with retrieved articles, streaming, caching, content rules on
// the output. (A desk serving a synthesized model normally never shows generated text.)
#include <gtest/gtest.h>

#include <functional>

#include <boost/json.hpp>

#include "demo_questions.h"
#include "desk_fixture.h"

namespace supportd {
namespace {

namespace json = boost::json;
using testing::DeskServer;

TEST(DeskGeneration, GeneratesGroundedAnswersAndCachesThem) {
  DeskServer server({.generate = true});
  const std::string session = server.new_session();
  // Nothing in the knowledge base answers this confidently: the model is asked.
  const std::string question = testing::uncovered_question();
  const auto first =
      server.post("/v1/sessions/" + session + "/messages", json::object{{"text", question}});
  ASSERT_EQ(first.status, 200) << first.body;
  const json::value answer = json::parse(first.body).at("answer");
  EXPECT_EQ(answer.at("source"), json::value("model"));
  EXPECT_FALSE(answer.at("citations").as_array().empty());  // the articles the model was given
  EXPECT_TRUE(answer.at("timings").as_object().contains("generate"));
  EXPECT_GT(answer.at("seq_id").as_int64(), 0);
  // Every stage ran, in pipeline order; fallback, after an answer, did not.
  EXPECT_EQ(testing::stages_of(answer),
            (std::vector<std::string>{"validate", "safety", "store", "handoff", "faq", "cache",
                                      "retrieval", "prompt", "generate", "postprocess"}))
      << first.body;

  // The same question again comes from the answer cache.
  const std::string other = server.new_session();
  const auto second =
      server.post("/v1/sessions/" + other + "/messages", json::object{{"text", question}});
  ASSERT_EQ(second.status, 200);
  const json::value cached = json::parse(second.body).at("answer");
  EXPECT_EQ(cached.at("source"), json::value("cache"));
  EXPECT_EQ(cached.at("text"), answer.at("text"));
}

TEST(DeskGeneration, AQuestionDeclinedAsOutOfScopeIsNotGivenToTheModel) {
  DeskServer server({.generate = true});
  // The shop sells clothes: no word of these but function words is in its help centre.
  for (const char* question : {"Do you sell bicycles?", "今天天气怎么样？"}) {
    const std::string session = server.new_session();
    const auto r =
        server.post("/v1/sessions/" + session + "/messages", json::object{{"text", question}});
    ASSERT_EQ(r.status, 200) << r.body;
    const json::value answer = json::parse(r.body).at("answer");
    EXPECT_EQ(answer.at("source"), json::value("fallback")) << question << ": " << r.body;
    EXPECT_TRUE(answer.at("citations").as_array().empty()) << r.body;
    // Retrieval declined it; the prompt and the model were skipped; fallback said so.
    EXPECT_EQ(testing::stages_of(answer),
              (std::vector<std::string>{"validate", "safety", "store", "handoff", "faq", "cache",
                                        "retrieval", "fallback"}))
        << question << ": " << r.body;
  }
}

TEST(DeskGeneration, OneShotCacheHitsAnswerWithoutTheWorkersAndStreamsStillWork) {
  DeskServer server({.generate = true});
  const std::string question = testing::uncovered_question("sister");
  const auto first = server.post("/v1/answer", json::object{{"question", question}});
  ASSERT_EQ(first.status, 200) << first.body;
  const json::value answer = json::parse(first.body);
  EXPECT_EQ(answer.at("source"), json::value("model"));

  // Again: straight from the in-process cache on the HTTP thread (one stage, "cache").
  const auto second = server.post("/v1/answer", json::object{{"question", question}});
  ASSERT_EQ(second.status, 200) << second.body;
  const json::value cached = json::parse(second.body);
  EXPECT_EQ(cached.at("source"), json::value("cache"));
  EXPECT_EQ(cached.at("text"), answer.at("text"));
  EXPECT_EQ(cached.at("citations").as_array().size(), answer.at("citations").as_array().size());
  const auto& timings = cached.at("timings").as_object();
  EXPECT_EQ(timings.size(), 1u) << second.body;
  EXPECT_TRUE(timings.contains("cache"));

  // Streamed, the same question runs the whole pipeline on a worker and still hits the cache.
  const auto streamed =
      server.post("/v1/answer", json::object{{"question", question}, {"stream", true}});
  ASSERT_EQ(streamed.status, 200) << streamed.body;
  bool done = false;
  for (const std::string& data : testing::sse_data(streamed.body)) {
    if (data == "[DONE]") continue;
    const json::value event = json::parse(data);
    if (event.at("type") != json::value("done")) continue;
    done = true;
    EXPECT_EQ(event.at("answer").at("source"), json::value("cache")) << data;
    EXPECT_TRUE(event.at("answer").at("timings").as_object().contains("validate"));
  }
  EXPECT_TRUE(done) << streamed.body;

  // An empty question is still refused clearly, not answered from anything.
  const auto empty = server.post("/v1/answer", json::object{{"question", "   "}});
  EXPECT_EQ(empty.status, 400) << empty.body;
}

// Engine options giving each request `cells` KV cells (a buffer per sequence, four of them).
std::function<void(engine::llama::EngineOptions&)> cells_per_request(int cells) {
  return [cells](engine::llama::EngineOptions& options) {
    options.kv_layout = engine::llama::EngineOptions::KvLayout::kPerSequence;
    options.context_cells = 4 * cells;
  };
}

TEST(DeskGeneration, AConversationTooLongForTheModelIsStillAnsweredByIt) {
  // 1,024 cells per request: the prompt with the articles and one message of 1,900 bytes fits,
  // with one more such message in the history it does not. The desk asks again with less
  // history (none, if need be) instead of giving up on generating.
  DeskServer server({.generate = true, .configure_engine = cells_per_request(1024)});
  const std::string session = server.new_session();
  std::string long_message;
  while (long_message.size() < 1900)
    long_message += testing::uncovered_question() + " ";
  for (int turn = 0; turn < 4; ++turn) {
    const auto r = server.post("/v1/sessions/" + session + "/messages",
                               json::object{{"text", long_message + std::to_string(turn)}});
    ASSERT_EQ(r.status, 200) << r.body;
    const auto answer = json::parse(r.body).at("answer");
    ASSERT_EQ(answer.at("source"), json::value("model")) << "turn " << turn << ": " << r.body;
    // The history budget (4,000 bytes) holds the previous message and answer: they were not
    // all given.
    if (turn > 0) {
      EXPECT_LT(answer.at("history_messages").to_number<int>(), 2) << r.body;
    }
  }
}

TEST(DeskGeneration, AConversationTooLongForTheModelKeepsItsNewestMessagesThatFit) {
  // 1,024 cells per request: the articles and a few of the earlier messages fit, the whole
  // history budget (4,000 bytes, newest first) does not. The desk halves the history until the
  // prompt fits, so the model still sees the newest messages, not none.
  DeskServer server({.generate = true, .configure_engine = cells_per_request(1024)});
  const std::string session = server.new_session();
  std::string message = "my parcel";
  while (message.size() < 300)
    message += " has not arrived, please check where it is";
  std::vector<std::string> said;  // the conversation so far, oldest first
  int shortened = 0;
  for (int turn = 0; turn < 8; ++turn) {
    const std::string text = message + " " + std::to_string(turn);
    const auto r =
        server.post("/v1/sessions/" + session + "/messages", json::object{{"text", text}});
    ASSERT_EQ(r.status, 200) << r.body;
    const auto answer = json::parse(r.body).at("answer");
    ASSERT_EQ(answer.at("source"), json::value("model")) << "turn " << turn << ": " << r.body;
    // What the whole budget holds: the newest messages up to 4,000 bytes.
    int budget_holds = 0;
    std::size_t spent = 0;
    for (auto it = said.rbegin(); it != said.rend() && spent + it->size() <= 4000; ++it) {
      spent += it->size();
      ++budget_holds;
    }
    const int given = answer.at("history_messages").to_number<int>();
    EXPECT_LE(given, budget_holds);
    // Shortened, yet not emptied (the newest messages alone may still be too long).
    if (given < budget_holds && given > 0) ++shortened;
    said.push_back(text);
    said.push_back(std::string(answer.at("text").as_string()));
  }
  EXPECT_GT(shortened, 0) << "every too-long prompt dropped the whole conversation";
}

}  // namespace
}  // namespace supportd
