// The desk's A/B figures behind a model router of two versions split 50/50, sticky: every turn
// counts for the version arm its conversation is on, whatever answered it (the FAQ table, a
// handoff, the model), and that arm is the version that generates for the conversation (its
// desk turns and a completion with its session id as x-session-id alike); a conversation's
// handoff and CSAT count for its arm even when no version ever generated in it; the arms'
// turns add up to the desk's.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <map>
#include <string>
#include <vector>

#include "demo_questions.h"
#include "desk_fixture.h"

namespace supportd {
namespace {

namespace json = boost::json;
using testing::DeskServer;

const std::string kFaq = "Where is my parcel?";  // an FAQ question of the demo knowledge base
// Questions nothing in the knowledge base answers (so the model is asked), each another cache
// key (the servers have no encoder, so no semantic cache).
const std::vector<std::string> kOpen = {
    testing::uncovered_question("friend"),
    testing::uncovered_question("sister"),
    testing::uncovered_question("brother"),
    testing::uncovered_question("mother"),
};

json::object desk_stats(DeskServer& server) {
  const auto r = server.get("/v1/stats");
  EXPECT_EQ(r.status, 200) << r.body;
  return json::parse(r.body).at("desk").as_object();
}

// `figure` of `arm` in desk.versions (answers.SOURCE, handoffs, csat.count ...); 0 when absent.
std::int64_t arm_figure(const json::object& desk, const std::string& arm,
                        const std::vector<std::string>& figure) {
  const json::value* at = desk.at("versions").as_object().if_contains(arm);
  for (const std::string& key : figure) {
    if (at == nullptr) return 0;
    at = at->as_object().if_contains(key);
  }
  return at == nullptr ? 0 : at->to_number<std::int64_t>();
}

std::string ask(DeskServer& server, const std::string& session, const std::string& text) {
  const auto r = server.post("/v1/sessions/" + session + "/messages", json::object{{"text", text}});
  EXPECT_EQ(r.status, 200) << r.body;
  if (r.status != 200) return {};
  return std::string(json::parse(r.body).at("answer").at("source").as_string());
}

class DeskVersions : public ::testing::Test {
 protected:
  void SetUp() override {
    engine::router::Split split;
    split.shares = {{"a", 50}, {"b", 50}};
    split.sticky = true;
    ASSERT_TRUE(server_.router()->set_route("default", split, "test").ok());
    // New conversations until each arm has two (session ids are random: 64 at most).
    for (int i = 0; i < 64 && (on_arm("a").size() < 2 || on_arm("b").size() < 2); ++i) {
      const std::string session = server_.new_session();
      sessions_[server_.router()->version_for("", session)].push_back(session);
    }
    ASSERT_GE(on_arm("a").size(), 2u);
    ASSERT_GE(on_arm("b").size(), 2u);
  }
  const std::vector<std::string>& on_arm(const std::string& arm) { return sessions_[arm]; }

  // Short generated answers: which version wrote them is what counts here, not their text.
  DeskServer server_{{.generate = true, .versions = {"a", "b"}, .max_answer_tokens = 8}};
  std::map<std::string, std::vector<std::string>> sessions_;  // by the arm the router names
};

TEST_F(DeskVersions, FaqTurnsCountForTheArmThatGeneratesForTheConversation) {
  std::size_t asked = 0;
  int generated = 0;  // turns the model answered
  for (const std::string arm : {"a", "b"}) {
    const std::string other = arm == "a" ? "b" : "a";
    for (std::size_t i = 0; i < 2; ++i) {  // two conversations per arm: kOpen's four questions
      const std::string session = on_arm(arm)[i];
      const json::object before = desk_stats(server_);
      ASSERT_EQ(ask(server_, session, kFaq), "faq");
      const std::string open = ask(server_, session, kOpen[asked++]);
      generated += open == "model" ? 1 : 0;
      const json::object after = desk_stats(server_);
      // The FAQ turn, which no version generated, and the open question's (a generated one's
      // version is the one the router's submit placed it on), both on the arm version_for
      // named for the conversation.
      for (const std::string& source : {std::string("faq"), open}) {
        EXPECT_EQ(arm_figure(after, arm, {"answers", source}),
                  arm_figure(before, arm, {"answers", source}) + 1)
            << session << " " << source << ": " << json::serialize(after.at("versions"));
        EXPECT_EQ(arm_figure(after, other, {"answers", source}),
                  arm_figure(before, other, {"answers", source}));
      }
      // A completion carrying the conversation's id goes to the same version.
      const auto completion = server_.post(
          "/v1/chat/completions",
          json::object{
              {"messages", json::array{json::object{{"role", "user"}, {"content", "Hello"}}}},
              {"max_tokens", 2}},
          {{"x-session-id", session}});
      ASSERT_EQ(completion.status, 200) << completion.body;
      EXPECT_EQ(json::parse(completion.body).at("model"), json::value(arm)) << session;
    }
  }
  EXPECT_GE(generated,
            1);  // an uncovered question is generated (as in DeskStats' per-version test)
  const json::object desk = desk_stats(server_);
  EXPECT_EQ(arm_figure(desk, "a", {"answers_total"}) + arm_figure(desk, "b", {"answers_total"}),
            desk.at("answers_total").as_int64())
      << json::serialize(desk);
}

TEST_F(DeskVersions, HandoffsCsatAndOneShotAnswersCountForAnArm) {
  // One conversation per arm asks for a person at once: no version ever generated in it.
  ASSERT_EQ(ask(server_, on_arm("a")[0], "I want to talk to a human please"), "handoff");
  ASSERT_EQ(ask(server_, on_arm("b")[0], "I want to talk to a human please"), "handoff");
  // CSAT on conversations answered from the FAQ table only: 2 on a, 5 on b.
  ASSERT_EQ(ask(server_, on_arm("a")[1], kFaq), "faq");
  ASSERT_EQ(ask(server_, on_arm("b")[1], kFaq), "faq");
  ASSERT_EQ(server_.post("/v1/sessions/" + on_arm("a")[1] + "/feedback", json::object{{"csat", 2}})
                .status,
            200);
  ASSERT_EQ(server_.post("/v1/sessions/" + on_arm("b")[1] + "/feedback", json::object{{"csat", 5}})
                .status,
            200);
  // One-shot questions (the fast path, no conversation): each counts for one arm.
  for (int i = 0; i < 4; ++i)
    ASSERT_EQ(server_.post("/v1/answer", json::object{{"question", kFaq}}).status, 200);

  const json::object desk = desk_stats(server_);
  for (const std::string arm : {"a", "b"}) {
    EXPECT_EQ(arm_figure(desk, arm, {"handoffs"}), 1) << arm << ": " << json::serialize(desk);
    EXPECT_EQ(arm_figure(desk, arm, {"answers", "handoff"}), 1) << arm;
    EXPECT_EQ(arm_figure(desk, arm, {"csat", "count"}), 1) << arm;
  }
  EXPECT_EQ(desk.at("versions").at("a").at("csat").at("mean"), json::value(2.0));
  EXPECT_EQ(desk.at("versions").at("b").at("csat").at("mean"), json::value(5.0));
  EXPECT_EQ(arm_figure(desk, "a", {"answers", "faq"}) + arm_figure(desk, "b", {"answers", "faq"}),
            2 + 4);
  EXPECT_EQ(arm_figure(desk, "a", {"answers_total"}) + arm_figure(desk, "b", {"answers_total"}),
            desk.at("answers_total").as_int64());
  const std::string metrics = server_.registry().expose();
  EXPECT_NE(metrics.find("supportd_desk_version_handoffs_total{version=\"a\"} 1\n"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("supportd_desk_version_csat_count{version=\"b\"} 1\n"), std::string::npos);
}

}  // namespace
}  // namespace supportd
