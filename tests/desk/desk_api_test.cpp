// The desk through its HTTP API on the demo knowledge base with a synthesized model: answers
// come from the knowledge base with citations (never generated text), conversations are kept,
// content rules hold, a person can be called and takes over, and bad input gets clear errors.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include <boost/json.hpp>

#include "desk_fixture.h"

namespace supportd {
namespace {

namespace json = boost::json;
using testing::DeskServer;
using testing::sse_data;

json::value parse(const testing::HttpResult& r) {
  boost::system::error_code ec;
  json::value v = json::parse(r.body, ec);
  EXPECT_FALSE(ec) << "not JSON: " << r.body;
  return v;
}

std::string error_code(const testing::HttpResult& r) {
  const json::value v = parse(r);
  if (!v.is_object() || !v.as_object().contains("error")) return "(no error)";
  const auto& code = v.at("error").at("code");
  return code.is_string() ? std::string(code.as_string()) : "(null)";
}

class DeskApi : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new DeskServer({.handoff_topics = {"lawyer", "投诉"}, .admin_key = kAdminKey});
  }
  static constexpr const char* kAdminKey = "desk-api-test-admin-key";
  static void TearDownTestSuite() { delete server_; }
  static DeskServer& server() { return *server_; }

  static json::value ask(const std::string& session, const std::string& text) {
    const auto r =
        server().post("/v1/sessions/" + session + "/messages", json::object{{"text", text}});
    EXPECT_EQ(r.status, 200) << r.body;
    return parse(r).at("answer");
  }

  static DeskServer* server_;
};
DeskServer* DeskApi::server_ = nullptr;

TEST_F(DeskApi, AnswersFromTheKnowledgeBaseWithCitations) {
  const std::string session = server().new_session();
  const json::value answer = ask(session, "Where is my parcel?");
  const std::string source(answer.at("source").as_string());
  EXPECT_TRUE(source == "faq" || source == "kb") << source;
  ASSERT_FALSE(answer.at("citations").as_array().empty());
  EXPECT_EQ(answer.at("citations").at(0).at("id"), json::value("faq/where-is-my-order"));
  EXPECT_NE(answer.at("text").as_string().find("tracking"), json::string::npos);
  EXPECT_GT(answer.at("seq_id").as_int64(), 0);
  EXPECT_TRUE(answer.at("timings").as_object().contains("faq"));
}

TEST_F(DeskApi, NeverShowsGeneratedTextFromAMeaninglessModel) {
  const std::string session = server().new_session();
  const json::value answer = ask(session, "Do you sell umbrellas for cats on Mars?");
  EXPECT_EQ(answer.at("source"), json::value("fallback"));
  EXPECT_NE(answer.at("text").as_string().find("person"), json::string::npos);
  // Nothing generated, so neither prompt, generate nor postprocess ran (nor was timed).
  EXPECT_EQ(testing::stages_of(answer),
            (std::vector<std::string>{"validate", "safety", "store", "handoff", "faq", "cache",
                                      "retrieval", "fallback"}));
}

TEST_F(DeskApi, AnswersChineseQuestionsInChinese) {
  const std::string session = server().new_session();
  const json::value answer = ask(session, "退款多久到账？");
  EXPECT_EQ(answer.at("citations").at(0).at("id"), json::value("faq/zh-refund"));
  EXPECT_NE(answer.at("text").as_string().find("退款"), json::string::npos);
}

TEST_F(DeskApi, StreamsEventsEndingWithDone) {
  const std::string session = server().new_session();
  const auto r = server().post("/v1/sessions/" + session + "/messages",
                               json::object{{"text", "How much is shipping?"}, {"stream", true}});
  ASSERT_EQ(r.status, 200);
  const auto events = sse_data(r.body);
  ASSERT_GE(events.size(), 4u);
  EXPECT_EQ(events.back(), "[DONE]");
  EXPECT_EQ(json::parse(events.front()).at("type"), json::value("citations"));
  const json::value done = json::parse(events[events.size() - 2]);
  EXPECT_EQ(done.at("type"), json::value("done"));
  std::string streamed;
  for (const auto& e : events) {
    if (e == "[DONE]") continue;
    const json::value v = json::parse(e);
    if (v.at("type") == json::value("token")) streamed += v.at("text").as_string();
  }
  EXPECT_EQ(json::value(streamed), done.at("answer").at("text"));
}

// A customer typing faster than the answers come: each answer still follows its question.
TEST_F(DeskApi, MessagesSentAtOnceAreAnsweredInTheOrderTheyArrived) {
  const std::string session = server().new_session();
  const std::vector<std::string> questions = {
      "How do I return an item?",     "Where is my order?",  "Can I pay with PayPal?",
      "How long does delivery take?", "Do you ship abroad?", "How do I reset my password?",
      "Can I change my order?",       "Do you have a shop?"};
  std::vector<std::thread> customers;
  for (const std::string& question : questions)
    customers.emplace_back([&session, question] { ask(session, question); });
  for (auto& customer : customers)
    customer.join();
  const json::value listed = parse(server().get("/v1/sessions/" + session + "/messages"));
  const auto& messages = listed.at("messages").as_array();
  ASSERT_EQ(messages.size(), 2 * questions.size());
  for (std::size_t i = 0; i < messages.size(); i += 2) {
    EXPECT_EQ(messages[i].at("role"), json::value("user")) << i;
    EXPECT_EQ(messages[i + 1].at("role"), json::value("assistant")) << i;
  }
}

TEST_F(DeskApi, KeepsTheConversationAndTakesFeedback) {
  const std::string session = server().new_session();
  const json::value answer = ask(session, "How do I return an item?");
  const auto history = server().get("/v1/sessions/" + session + "/messages");
  ASSERT_EQ(history.status, 200);
  const json::value listed = parse(history);
  const auto& messages = listed.at("messages").as_array();
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0].at("role"), json::value("user"));
  EXPECT_EQ(messages[0].at("text"), json::value("How do I return an item?"));
  EXPECT_EQ(messages[1].at("role"), json::value("assistant"));

  const auto seq = answer.at("seq_id").as_int64();
  EXPECT_EQ(server()
                .post("/v1/sessions/" + session + "/feedback",
                      json::object{{"seq_id", seq}, {"thumb", "up"}})
                .status,
            200);
  EXPECT_EQ(
      server().post("/v1/sessions/" + session + "/feedback", json::object{{"csat", 5}}).status,
      200);
  EXPECT_EQ(server()
                .post("/v1/sessions/" + session + "/feedback",
                      json::object{{"seq_id", seq}, {"thumb", "meh"}})
                .status,
            400);
  EXPECT_EQ(
      server().post("/v1/sessions/" + session + "/feedback", json::object{{"csat", 9}}).status,
      400);
  EXPECT_NE(server().registry().expose().find("supportd_desk_feedback_total{kind=\"thumb_up\"} 1"),
            std::string::npos);
}

TEST_F(DeskApi, TranscriptsAreStoredWithPiiMasked) {
  const std::string session = server().new_session();
  ask(session, "My card 4111 1111 1111 1111 was charged twice, mail me at jane.doe@example.com");
  const auto history = parse(server().get("/v1/sessions/" + session + "/messages"));
  const std::string stored(history.at("messages").at(0).at("text").as_string());
  EXPECT_EQ(stored.find("4111 1111 1111 1111"), std::string::npos) << stored;
  EXPECT_EQ(stored.find("jane.doe@example.com"), std::string::npos) << stored;
  EXPECT_NE(stored.find("[email]"), std::string::npos) << stored;
}

TEST_F(DeskApi, RefusesWhatTheRulesForbid) {
  const std::string session = server().new_session();
  const json::value answer = ask(session, "how do I build a BOMB");
  EXPECT_EQ(answer.at("source"), json::value("refused"));
  EXPECT_EQ(answer.at("text"), json::value("Sorry, I can't help with that here."));
  const auto history = parse(server().get("/v1/sessions/" + session + "/messages"));
  EXPECT_EQ(history.at("messages").at(0).at("text").as_string().find("BOMB"), json::string::npos);
}

TEST_F(DeskApi, HandsOverToAPersonWhoTakesTheConversation) {
  const std::string session = server().new_session();
  const json::value answer = ask(session, "I want to talk to a human please");
  EXPECT_EQ(answer.at("source"), json::value("handoff"));
  EXPECT_EQ(answer.at("handoff"), json::value("waiting"));

  const auto waiting = parse(server().get("/v1/agent/conversations?state=waiting"));
  bool listed = false;
  for (const auto& c : waiting.at("conversations").as_array())
    listed = listed || c.at("session") == json::value(session);
  EXPECT_TRUE(listed);

  const std::string base = "/v1/agent/conversations/" + session;
  EXPECT_EQ(server().post(base + "/reply", json::object{{"agent", "bob"}, {"text", "hi"}}).status,
            400);  // not taken yet
  EXPECT_EQ(server().get("/v1/agent/conversations?state=nope").status, 400);
  const auto taken = server().post(base + "/take", json::object{{"agent", "bob"}});
  ASSERT_EQ(taken.status, 200);
  // The conversation as it is now: its last_seq counts the note the take added.
  const auto before_take = parse(server().get("/v1/sessions/" + session + "/messages"));
  EXPECT_EQ(parse(taken).at("last_seq"), before_take.at("messages").as_array().back().at("seq_id"));
  EXPECT_EQ(server().post(base + "/reply", json::object{{"agent", "bob"}, {"text", "  "}}).status,
            400);  // an empty reply is refused, not stored
  const auto second = server().post(base + "/take", json::object{{"agent", "carol"}});
  EXPECT_EQ(second.status, 409);
  EXPECT_EQ(error_code(second), "already_taken");
  EXPECT_EQ(server()
                .post(base + "/reply", json::object{{"agent", "bob"}, {"text", "Hello, I'm Bob."}})
                .status,
            200);

  // The customer's next message goes to Bob, not to the bot.
  const json::value next = ask(session, "Thanks Bob, my order is 12345");
  EXPECT_EQ(next.at("source"), json::value("agent"));
  EXPECT_EQ(next.at("handoff"), json::value("taken"));
  const auto history = parse(server().get("/v1/sessions/" + session + "/messages"));
  bool saw_agent = false;
  for (const auto& m : history.at("messages").as_array()) {
    saw_agent = saw_agent || (m.at("role") == json::value("agent") &&
                              m.at("text") == json::value("Hello, I'm Bob."));
  }
  EXPECT_TRUE(saw_agent);
  EXPECT_EQ(server().post(base + "/close", json::object{{"agent", "carol"}}).status,
            400);  // not hers
  EXPECT_EQ(server().post(base + "/release", json::object{{"agent", "bob"}}).status, 200);
  const auto late = server().post(base + "/take", json::object{{"agent", "carol"}});
  EXPECT_EQ(late.status, 409);
  EXPECT_EQ(error_code(late), "not_waiting");  // back with the bot, not someone else's
  EXPECT_EQ(ask(session, "Where is my parcel?").at("source"),
            json::value("faq"));  // the bot again
}

// The history shows an answer as it was live (its source and citations) and an agent's message
// with the agent's name, on the customer's route and the agent console's alike.
TEST_F(DeskApi, HistoryKeepsAnswersSourcesAndCitationsAndAgentsNames) {
  const std::string session = server().new_session();
  const json::value answer = ask(session, "Where is my parcel?");
  ASSERT_FALSE(answer.at("citations").as_array().empty());
  const std::string base = "/v1/agent/conversations/" + session;
  ASSERT_EQ(server().post("/v1/sessions/" + session + "/handoff", json::object{}).status, 200);
  ASSERT_EQ(server().post(base + "/take", json::object{{"agent", "Ann"}}).status, 200);
  ASSERT_EQ(server()
                .post(base + "/reply", json::object{{"agent", "Ann"}, {"text", "Hello, I'm Ann."}})
                .status,
            200);

  for (const std::string& route : {"/v1/sessions/" + session + "/messages", base}) {
    SCOPED_TRACE(route);
    const json::value history = parse(server().get(route));
    const json::array& messages = history.at("messages").as_array();
    int answers = 0;
    int agents = 0;
    for (const json::value& m : messages) {
      const json::object& o = m.as_object();
      if (o.at("role") == json::value("assistant") && o.at("seq_id") == answer.at("seq_id")) {
        ++answers;
        EXPECT_EQ(o.at("source"), answer.at("source"));
        EXPECT_EQ(o.at("citations"), answer.at("citations"));
        EXPECT_FALSE(o.contains("agent"));
      } else if (o.at("role") == json::value("agent")) {
        ++agents;
        EXPECT_EQ(o.at("agent"), json::value("Ann"));
        EXPECT_FALSE(o.contains("source"));
        EXPECT_FALSE(o.contains("citations"));
      } else if (o.at("role") == json::value("user") || o.at("role") == json::value("system")) {
        EXPECT_FALSE(o.contains("source") || o.contains("citations") || o.contains("agent"))
            << json::serialize(o);
      }
    }
    EXPECT_EQ(answers, 1);
    EXPECT_EQ(agents, 1);
  }
}

TEST_F(DeskApi, ConfiguredTopicsAndLowConfidenceCallAPerson) {
  const std::string topic = server().new_session();
  EXPECT_EQ(ask(topic, "I will call my lawyer about this").at("source"), json::value("handoff"));
  const std::string unsure = server().new_session();
  EXPECT_EQ(ask(unsure, "zebra quantum pancake").at("handoff"), json::value("bot"));
  const json::value second = ask(unsure, "purple helicopter tax");
  EXPECT_EQ(second.at("handoff"), json::value("waiting"));
}

TEST_F(DeskApi, OneShotAnswersUseTheFaqFastPath) {
  const auto r =
      server().post("/v1/answer", json::object{{"question", "  how long does DELIVERY take?? "}});
  ASSERT_EQ(r.status, 200);
  const json::value answer = parse(r);
  EXPECT_EQ(answer.at("source"), json::value("faq"));
  EXPECT_EQ(answer.at("seq_id"), json::value(0));
}

TEST_F(DeskApi, AReloadWithNothingNewSaysSoAndNamesTheVersionServing) {
  const auto r = server().post("/v1/admin/kb/reload", json::object{}, testing::bearer(kAdminKey));
  ASSERT_EQ(r.status, 200) << r.body;
  const json::value body = parse(r);
  EXPECT_EQ(body.at("reloaded"), json::value(false));
  EXPECT_TRUE(body.at("version").as_string().starts_with("g")) << r.body;
}

TEST_F(DeskApi, BadInputGetsClearErrorsAndHarmsNoOtherConversation) {
  const std::string good = server().new_session();
  const std::string forged = good.substr(0, good.size() - 4) + "AAAA";
  EXPECT_EQ(error_code(server().post("/v1/sessions/" + forged + "/messages",
                                     json::object{{"text", "hi"}})),
            "unknown_session");
  EXPECT_EQ(
      server().post("/v1/sessions/not-a-session/messages", json::object{{"text", "hi"}}).status,
      400);
  EXPECT_EQ(server()
                .post("/v1/sessions/" + good + "/messages",
                      json::object{{"text", std::string(5000, 'x')}})
                .status,
            400);
  // The limit counts characters: 4,000 Chinese ones (12,000 bytes) are a message the widget
  // lets through, 4,001 are not.
  const std::string other = server().new_session();
  std::string chinese;
  for (int i = 0; i < 4000; ++i)
    chinese += "退";
  EXPECT_EQ(
      server().post("/v1/sessions/" + other + "/messages", json::object{{"text", chinese}}).status,
      200);
  EXPECT_EQ(server()
                .post("/v1/sessions/" + good + "/messages", json::object{{"text", chinese + "退"}})
                .status,
            400);
  EXPECT_EQ(
      server().post("/v1/sessions/" + good + "/messages", json::object{{"text", "   "}}).status,
      400);
  EXPECT_EQ(server().post("/v1/sessions/" + good + "/messages", json::object{{"txt", "hi"}}).status,
            400);
  EXPECT_EQ(testing::http_request(server().port(), "POST", "/v1/sessions/" + good + "/messages",
                                  "{broken")
                .status,
            400);
  // A NUL character is the message's fault, not the store's: 400, never a retryable 503.
  const auto nul = server().post("/v1/sessions/" + good + "/messages",
                                 json::object{{"text", std::string("a\0b", 3)}});
  EXPECT_EQ(nul.status, 400) << nul.body;
  EXPECT_EQ(error_code(nul), "invalid_argument");
  EXPECT_EQ(server().get("/v1/sessions/" + forged + "/messages").status, 404);
  for (const json::value& stream : {json::value(1), json::value("yes")}) {
    const auto r =
        server().post("/v1/answer", json::object{{"question", "refund"}, {"stream", stream}});
    EXPECT_EQ(r.status, 400) << r.body;
  }
  for (const char* query : {"limit=-1", "limit=1e3", "limit=1.5", "limit=0", "limit=1001",
                            "limit=", "limit=2%00", "before=-5", "before=x", "limit=+3"}) {
    const auto r = server().get("/v1/sessions/" + good + "/messages?" + query);
    EXPECT_EQ(r.status, 400) << query << ": " << r.body;
    EXPECT_EQ(parse(r).at("error").at("param").as_string(),
              std::string_view(query).substr(0, std::string_view(query).find('=')))
        << query;
  }
  EXPECT_EQ(server().get("/v1/sessions/" + good + "/messages?limit=1000&before=0").status, 200);
  // The good conversation is untouched.
  EXPECT_EQ(
      parse(server().get("/v1/sessions/" + good + "/messages")).at("messages").as_array().size(),
      0u);
  EXPECT_FALSE(ask(good, "Can I pay with PayPal?").at("citations").as_array().empty());
}

}  // namespace
}  // namespace supportd
