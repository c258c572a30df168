// /v1/stats' `desk` object on a fresh desk: a knowledge-base answer, a handoff and a CSAT score
// are counted there exactly as /metrics counts them, the conversation waiting for a person is
// counted until an agent takes it, and an FAQ answer counts once; behind a model router, every
// turn, handoff and CSAT score per version too (desk_versions_test.cpp: two versions).
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "demo_questions.h"
#include "desk_fixture.h"

namespace supportd {
namespace {

namespace json = boost::json;
using testing::DeskServer;

json::object desk_stats(DeskServer& server) {
  const auto r = server.get("/v1/stats");
  EXPECT_EQ(r.status, 200) << r.body;
  const json::value doc = json::parse(r.body);
  EXPECT_TRUE(doc.as_object().contains("desk")) << r.body;
  return doc.at("desk").as_object();
}

json::value ask(DeskServer& server, const std::string& session, const std::string& text) {
  const auto r = server.post("/v1/sessions/" + session + "/messages", json::object{{"text", text}});
  EXPECT_EQ(r.status, 200) << r.body;
  return json::parse(r.body).at("answer");
}

TEST(DeskStats, CountsAKnowledgeBaseAnswerAHandoffAndTheWaiting) {
  DeskServer server;
  const json::object before = desk_stats(server);
  EXPECT_EQ(before.at("answers").at("kb"), json::value(0));
  EXPECT_EQ(before.at("answers_total"), json::value(0));
  EXPECT_EQ(before.at("waiting_for_human"), json::value(0));
  EXPECT_TRUE(before.at("csat").at("mean").is_null());

  const std::string customer = server.new_session();
  const json::value answer = ask(server, customer, "Can I track my package somehow?");
  ASSERT_EQ(answer.at("source"), json::value("kb")) << json::serialize(answer);
  EXPECT_EQ(server.post("/v1/sessions/" + customer + "/feedback", json::object{{"csat", 4}}).status,
            200);
  const std::string impatient = server.new_session();
  ASSERT_EQ(ask(server, impatient, "I want to talk to a human please").at("source"),
            json::value("handoff"));

  const json::object after = desk_stats(server);
  EXPECT_EQ(after.at("answers").at("kb"), json::value(1));
  EXPECT_EQ(after.at("answers").at("handoff"), json::value(1));
  EXPECT_EQ(after.at("answers_total"), json::value(2));
  EXPECT_EQ(after.at("handoffs").at("asked"), json::value(1));
  EXPECT_EQ(after.at("handoffs_total"), json::value(1));
  EXPECT_EQ(after.at("waiting_for_human"), json::value(1));
  EXPECT_EQ(after.at("waiting_partial"), json::value(false));
  EXPECT_EQ(after.at("feedback").at("csat"), json::value(1));
  EXPECT_EQ(after.at("csat").at("count"), json::value(1));
  EXPECT_EQ(after.at("csat").at("mean"), json::value(4.0));
  EXPECT_EQ(after.at("csat").at("scores").at("4"), json::value(1));
  EXPECT_EQ(after.at("csat").at("scores").at("5"), json::value(0));
  // The KB answer went through retrieval, which was timed.
  const json::object& retrieval = after.at("stages").at("retrieval").as_object();
  EXPECT_GE(retrieval.at("count").to_number<std::int64_t>(), 1);
  EXPECT_GT(retrieval.at("p50_ms").to_number<double>(), 0);
  // The same counters as /metrics.
  const std::string metrics = server.registry().expose();
  EXPECT_NE(metrics.find("supportd_desk_answers_total{source=\"kb\"} 1\n"), std::string::npos);
  EXPECT_NE(metrics.find("supportd_desk_handoffs_total{reason=\"asked\"} 1\n"), std::string::npos);

  // An agent takes the conversation: nobody waits any more.
  ASSERT_EQ(
      server.post("/v1/agent/conversations/" + impatient + "/take", json::object{{"agent", "bob"}})
          .status,
      200);
  EXPECT_EQ(desk_stats(server).at("waiting_for_human"), json::value(0));
}

TEST(DeskStats, CountsAnswersHandoffsAndCsatPerModelVersion) {
  DeskServer server({.generate = true, .versions = {"v7"}, .max_answer_tokens = 8});
  const std::string customer = server.new_session();
  // Nothing in the knowledge base answers this confidently: the version is asked.
  const json::value answer = ask(server, customer, testing::uncovered_question());
  ASSERT_EQ(answer.at("source"), json::value("model")) << json::serialize(answer);
  EXPECT_EQ(server.post("/v1/sessions/" + customer + "/feedback", json::object{{"csat", 2}}).status,
            200);
  ASSERT_EQ(ask(server, customer, "I want to talk to a human please").at("source"),
            json::value("handoff"));
  // A conversation no version generated in is on the version's arm all the same.
  const std::string other = server.new_session();
  ASSERT_EQ(ask(server, other, "Can I track my package somehow?").at("source"), json::value("kb"));
  EXPECT_EQ(server.post("/v1/sessions/" + other + "/feedback", json::object{{"csat", 5}}).status,
            200);

  const json::object stats = desk_stats(server);
  const json::object& versions = stats.at("versions").as_object();
  ASSERT_EQ(versions.size(), 1u) << json::serialize(stats);
  const json::object& v7 = versions.at("v7").as_object();
  EXPECT_EQ(v7.at("answers").at("model"), json::value(1)) << json::serialize(v7);
  EXPECT_EQ(v7.at("answers").at("handoff"), json::value(1));
  EXPECT_EQ(v7.at("answers").at("kb"), json::value(1));
  EXPECT_EQ(v7.at("answers_total"), json::value(3));
  EXPECT_EQ(v7.at("handoffs"), json::value(1));
  EXPECT_EQ(v7.at("csat").at("count"), json::value(2));
  EXPECT_EQ(v7.at("csat").at("mean"), json::value(3.5));
  EXPECT_EQ(stats.at("csat").at("count"), json::value(2));
  const std::string metrics = server.registry().expose();
  EXPECT_NE(
      metrics.find("supportd_desk_version_answers_total{version=\"v7\",source=\"model\"} 1\n"),
      std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("supportd_desk_version_answers_total{version=\"v7\",source=\"kb\"} 1\n"),
            std::string::npos);
  EXPECT_NE(metrics.find("supportd_desk_version_handoffs_total{version=\"v7\"} 1\n"),
            std::string::npos);
  EXPECT_NE(metrics.find("supportd_desk_version_csat_count{version=\"v7\"} 2\n"),
            std::string::npos);
}

// An exact FAQ question in a session is one answer (and one faq stage), in /metrics as in
// /v1/stats; the one-shot fast path (/v1/answer) counts its own.
TEST(DeskStats, AnFaqAnswerIsCountedOnce) {
  DeskServer server;
  const std::string session = server.new_session();
  ASSERT_EQ(ask(server, session, "Where is my parcel?").at("source"), json::value("faq"));
  json::object stats = desk_stats(server);
  EXPECT_EQ(stats.at("answers").at("faq"), json::value(1));
  EXPECT_EQ(stats.at("answers_total"), json::value(1));
  EXPECT_EQ(stats.at("stages").at("faq").at("count"), json::value(1));
  EXPECT_NE(server.registry().expose().find("supportd_desk_answers_total{source=\"faq\"} 1\n"),
            std::string::npos);

  ASSERT_EQ(server.post("/v1/answer", json::object{{"question", "Where is my parcel?"}}).status,
            200);
  stats = desk_stats(server);
  EXPECT_EQ(stats.at("answers").at("faq"), json::value(2));
  EXPECT_EQ(stats.at("stages").at("faq").at("count"), json::value(2));
}

}  // namespace
}  // namespace supportd
