// Tenant isolation through the desk's HTTP API and sockets, in process with a real server and
// the API keys of two tenants whose names share a prefix ("shop" and "shop2"), each with a
// customer key (the widget's) and an agent key, plus the admin key. One tenant's keys cannot
// read, write to, rate, hand off, take, reply to, close or list the other's conversations, not
// with the other's real session ids and not with ids forged from them; the agent routes need an
// agent key and the admin routes (and the kept traces, which hold every tenant's paths) the
// admin key. No key shows in a log line or a kept trace. An answer cached for one tenant reaches
// another only through that tenant's own content rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <boost/json.hpp>

#include "demo_questions.h"
#include "desk_fixture.h"
#include "websocket_client.h"

namespace supportd {
namespace {

namespace json = boost::json;
using testing::bearer;
using testing::DeskServer;
using testing::Headers;

constexpr const char* kShop = "sk-shop-customers-000000000001";
constexpr const char* kShopAgent = "sk-shop-agents-00000000000001";
constexpr const char* kShop2 = "sk-shop2-customers-00000000001";
constexpr const char* kShop2Agent = "sk-shop2-agents-0000000000001";
constexpr const char* kAdmin = "sk-admin-desk-tenants-test-0001";

api::ApiKey key(const char* text, const char* tenant, api::KeyRole role) {
  api::ApiKey k;
  k.digest = api::KeyDigest::of(text);
  k.tenant = tenant;
  k.role = role;
  return k;
}

std::vector<api::ApiKey> keys() {
  return {key(kShop, "shop", api::KeyRole::kCustomer),
          key(kShopAgent, "shop", api::KeyRole::kAgent),
          key(kShop2, "shop2", api::KeyRole::kCustomer),
          key(kShop2Agent, "shop2", api::KeyRole::kAgent)};
}

std::string error_code(const testing::HttpResult& r) {
  boost::system::error_code ec;
  const json::value v = json::parse(r.body, ec);
  if (ec || !v.is_object() || !v.as_object().contains("error")) return "(no error) " + r.body;
  const json::value& code = v.at("error").at("code");
  return code.is_string() ? std::string(code.as_string()) : "(null)";
}

// The sessions of a waiting list.
std::vector<std::string> sessions_in(const json::value& list) {
  std::vector<std::string> sessions;
  for (const auto& c : list.at("conversations").as_array())
    sessions.emplace_back(c.at("session").as_string());
  return sessions;
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

class DeskTenants : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new DeskServer({.keys = keys(), .admin_key = kAdmin}); }
  static void TearDownTestSuite() { delete server_; }
  static DeskServer& server() { return *server_; }

  // A conversation of shop's, waiting for a person, whose customer said `text`.
  static std::string waiting_shop_session(const std::string& user) {
    const std::string session = server().new_session(bearer(kShop), user);
    const auto said = server().post("/v1/sessions/" + session + "/messages",
                                    json::object{{"text", "Where is my parcel?"}}, bearer(kShop));
    EXPECT_EQ(said.status, 200) << said.body;
    const auto handed =
        server().post("/v1/sessions/" + session + "/handoff", json::object{}, bearer(kShop));
    EXPECT_EQ(handed.status, 200) << handed.body;
    return session;
  }

  // Every customer and agent route on `session`, called with `headers`: each must be refused as
  // an unknown session, and say nothing of the conversation (its user's name).
  static void expect_unknown_everywhere(const std::string& session, const Headers& customer,
                                        const Headers& agent, const std::string& user) {
    const std::string path = "/v1/sessions/" + session;
    const std::string agent_path = "/v1/agent/conversations/" + session;
    const std::vector<std::pair<std::string, testing::HttpResult>> answers = {
        {"history", server().get(path + "/messages", customer)},
        {"message", server().post(path + "/messages", json::object{{"text", "hi"}}, customer)},
        {"thumb", server().post(path + "/feedback", json::object{{"seq_id", 2}, {"thumb", "down"}},
                                customer)},
        {"csat", server().post(path + "/feedback", json::object{{"csat", 1}}, customer)},
        {"handoff", server().post(path + "/handoff", json::object{}, customer)},
        {"socket", server().get("/v1/ws?session=" + session, customer)},
        {"agent history", server().get(agent_path, agent)},
        {"take", server().post(agent_path + "/take", json::object{{"agent", "eve"}}, agent)},
        {"reply", server().post(agent_path + "/reply",
                                json::object{{"agent", "eve"}, {"text", "hello"}}, agent)},
        {"close", server().post(agent_path + "/close", json::object{{"agent", "eve"}}, agent)},
        {"release", server().post(agent_path + "/release", json::object{{"agent", "eve"}}, agent)},
    };
    for (const auto& [what, r] : answers) {
      SCOPED_TRACE(what + " on " + session);
      EXPECT_EQ(r.status, 404) << r.body;
      EXPECT_EQ(error_code(r), "unknown_session");
      EXPECT_EQ(r.body.find(user), std::string::npos) << r.body;
    }
  }

  static DeskServer* server_;
};
DeskServer* DeskTenants::server_ = nullptr;

TEST_F(DeskTenants, AnotherTenantsKeysCannotReachAConversation) {
  const std::string session = waiting_shop_session("alice-of-shop");
  expect_unknown_everywhere(session, bearer(kShop2), bearer(kShop2Agent), "alice-of-shop");

  // Its own tenant still has it, untouched: one handoff note, no rating, waiting, listed.
  const auto history = server().get("/v1/agent/conversations/" + session, bearer(kShopAgent));
  ASSERT_EQ(history.status, 200) << history.body;
  const json::value document = json::parse(history.body);
  EXPECT_EQ(document.at("handoff"), json::value("waiting"));
  for (const auto& m : document.at("messages").as_array()) {
    EXPECT_NE(m.at("text"), json::value("hi")) << "another tenant's message was stored";
    EXPECT_NE(m.at("text"), json::value("hello")) << "another tenant's reply was stored";
  }
  const auto mine = server().get("/v1/agent/conversations?state=waiting", bearer(kShopAgent));
  ASSERT_EQ(mine.status, 200) << mine.body;
  EXPECT_TRUE(contains(sessions_in(json::parse(mine.body)), session));
  const auto taken = server().post("/v1/agent/conversations/" + session + "/take",
                                   json::object{{"agent", "ann"}}, bearer(kShopAgent));
  EXPECT_EQ(taken.status, 200) << taken.body;
}

TEST_F(DeskTenants, ForgedIdsReachNothing) {
  const std::string session = waiting_shop_session("bob-of-shop");
  const std::string theirs = server().new_session(bearer(kShop2), "mallory");
  // "tenant.user.nonce.mac": shop's id relabelled as shop2's, shop2's id with shop's signature,
  // shop's id with its signature changed, and one made up whole.
  const auto parts = [](const std::string& id) {
    std::vector<std::string> out;
    std::stringstream in(id);
    for (std::string part; std::getline(in, part, '.');)
      out.push_back(part);
    return out;
  };
  const std::vector<std::string> shop = parts(session);
  const std::vector<std::string> shop2 = parts(theirs);
  ASSERT_EQ(shop.size(), 4u) << session;
  ASSERT_EQ(shop2.size(), 4u) << theirs;
  std::string changed_mac = shop[3];
  changed_mac[0] = changed_mac[0] == 'A' ? 'B' : 'A';
  const std::vector<std::string> forged = {
      "shop2." + shop[1] + "." + shop[2] + "." + shop[3],
      "shop2.mallory." + shop[2] + "." + shop[3],
      shop2[0] + "." + shop2[1] + "." + shop2[2] + "." + shop[3],
      shop[0] + "." + shop[1] + "." + shop[2] + "." + changed_mac,
      "shop2.bob-of-shop." + shop[2] + "." + shop2[3],
      "shop2.mallory." + std::string(shop[2].size(), 'A') + "." + std::string(shop[3].size(), 'A'),
  };
  for (const std::string& id : forged)
    expect_unknown_everywhere(id, bearer(kShop2), bearer(kShop2Agent), "bob-of-shop");
  // Shop's own keys with a forged id of shop's are refused the same way.
  expect_unknown_everywhere(forged[3], bearer(kShop), bearer(kShopAgent), "bob-of-shop");
}

TEST_F(DeskTenants, EachTenantsAgentsListAndHearOnlyTheirOwn) {
  const auto wait_for_a_person = [](const std::string& user) {
    const std::string session = server().new_session(bearer(kShop2), user);
    EXPECT_EQ(server()
                  .post("/v1/sessions/" + session + "/handoff", json::object{}, bearer(kShop2))
                  .status,
              200);
    return session;
  };
  const std::string first = wait_for_a_person("dave-of-shop2");
  // An agent's socket opens with its tenant's waiting list (so it is watching from then on).
  testing::WebSocketClient shop2_agents(server().port(), "/v1/agent/ws", bearer(kShop2Agent));
  const json::value opening = shop2_agents.receive();
  ASSERT_EQ(opening.at("type"), json::value("waiting")) << json::serialize(opening);
  EXPECT_TRUE(contains(sessions_in(opening), first));

  const std::string shops = waiting_shop_session("carol-of-shop");
  const std::string second = wait_for_a_person("dora-of-shop2");

  const auto list = server().get("/v1/agent/conversations?state=waiting", bearer(kShop2Agent));
  ASSERT_EQ(list.status, 200) << list.body;
  const std::vector<std::string> listed = sessions_in(json::parse(list.body));
  EXPECT_TRUE(contains(listed, first));
  EXPECT_TRUE(contains(listed, second));
  EXPECT_FALSE(contains(listed, shops));
  for (const std::string& session : listed)
    EXPECT_TRUE(session.starts_with("shop2.")) << session;

  // What the socket hears, up to the list with shop2's second conversation, never names shop's.
  bool heard_second = false;
  for (int i = 0; i < 20 && !heard_second; ++i) {
    const json::value event = shop2_agents.receive();
    const std::string text = json::serialize(event);
    EXPECT_EQ(text.find("carol-of-shop"), std::string::npos) << text;
    EXPECT_EQ(text.find(shops), std::string::npos) << text;
    if (event.at("type") == json::value("waiting"))
      heard_second = contains(sessions_in(event), second);
  }
  EXPECT_TRUE(heard_second);
}

TEST_F(DeskTenants, TheAgentRoutesNeedAnAgentKey) {
  const std::string session = waiting_shop_session("erin-of-shop");
  const std::string agent_path = "/v1/agent/conversations/" + session;
  for (const Headers& customer : {bearer(kShop), Headers{{"X-Api-Key", kShop}}}) {
    const std::vector<testing::HttpResult> refused = {
        server().get("/v1/agent/conversations?state=waiting", customer),
        server().get(agent_path, customer),
        server().post(agent_path + "/take", json::object{{"agent", "eve"}}, customer),
        server().post(agent_path + "/release", json::object{{"agent", "eve"}}, customer),
        server().get("/v1/agent/ws", customer),
    };
    for (const auto& r : refused) {
      EXPECT_EQ(r.status, 403) << r.body;
      EXPECT_EQ(error_code(r), "permission_denied");
      EXPECT_EQ(r.body.find("erin-of-shop"), std::string::npos);
    }
  }
  for (const Headers& nobody : {Headers{}, bearer("sk-shop-agents-00000000000002")}) {
    const auto r = server().get("/v1/agent/conversations?state=waiting", nobody);
    EXPECT_EQ(r.status, 401) << r.body;
    EXPECT_EQ(error_code(r), "invalid_api_key");
  }
  EXPECT_EQ(server().get("/v1/agent/conversations?state=waiting", bearer(kShopAgent)).status, 200);
}

TEST_F(DeskTenants, TheAdminRoutesNeedTheAdminKey) {
  for (const Headers& other : {Headers{}, bearer(kShop), bearer(kShopAgent), bearer(kShop2Agent)}) {
    const auto reload = server().post("/v1/admin/kb/reload", json::object{}, other);
    EXPECT_EQ(reload.status, 401) << reload.body;
    const auto faults = server().get("/admin/faults", other);
    EXPECT_EQ(faults.status, 401) << faults.body;
  }
  const auto reload = server().post("/v1/admin/kb/reload", json::object{}, bearer(kAdmin));
  EXPECT_EQ(reload.status, 200) << reload.body;
  // The admin key is nobody's API key.
  EXPECT_EQ(server().post("/v1/sessions", json::object{}, bearer(kAdmin)).status, 401);
}

// Every log line (at trace level) and every kept trace of requests carrying keys, right and
// wrong, in either header: none holds a key.
TEST(DeskKeys, NoKeyInAnyLogLineOrTrace) {
  std::ostringstream log;
  const auto previous = spdlog::default_logger();
  auto logger = std::make_shared<spdlog::logger>(
      "keys", std::make_shared<spdlog::sinks::ostream_sink_mt>(log));
  logger->set_level(spdlog::level::trace);
  spdlog::set_default_logger(logger);
  const std::string wrong = std::string(kShop).substr(0, std::string(kShop).size() - 1) + "9";
  std::string traces;
  {
    obs::trace::TracerOptions options;
    options.slow_ms = 1e-6;  // every request that succeeds is "slow": each logs its line
    obs::trace::Tracer tracer(options, nullptr);
    DeskServer server({.tracer = &tracer, .keys = keys(), .admin_key = kAdmin});
    const std::string session = server.new_session(bearer(kShop), "frank");
    const std::string path = "/v1/sessions/" + session + "/messages";
    EXPECT_EQ(
        server.post(path, json::object{{"text", "Where is my parcel?"}}, {{"X-Api-Key", kShop}})
            .status,
        200);
    EXPECT_EQ(server.get(path, bearer(wrong)).status, 401);
    EXPECT_EQ(server.get(path, {{"X-Api-Key", wrong}}).status, 401);
    EXPECT_EQ(server.get("/v1/agent/conversations", bearer(kShop)).status, 403);
    EXPECT_EQ(server.get("/v1/agent/conversations", bearer(kShopAgent)).status, 200);
    EXPECT_EQ(server.get("/admin/faults", bearer(wrong)).status, 401);
    EXPECT_EQ(server.post("/v1/admin/kb/reload", json::object{}, bearer(kAdmin)).status, 200);
    // The kept traces hold every tenant's paths (session ids): the admin key's only.
    for (const Headers& other : {Headers{}, bearer(kShop), bearer(kShopAgent), bearer(wrong)})
      EXPECT_EQ(server.get("/v1/traces", other).status, 401);
    const auto kept = server.get("/v1/traces", bearer(kAdmin));
    EXPECT_EQ(kept.status, 200) << kept.body;
    traces = kept.body;
    std::string message_trace;
    for (const json::value& trace :
         kept.status == 200 ? json::parse(kept.body).at("traces").as_array() : json::array{}) {
      if (trace.at("name") == json::value("POST /v1/sessions/{session}/messages"))
        message_trace = trace.at("trace_id").as_string();
    }
    // (No ASSERT in this scope: the default logger writes to `log` until the end of the test.)
    EXPECT_FALSE(message_trace.empty()) << kept.body;
    EXPECT_EQ(server.get("/v1/traces/" + message_trace, bearer(kShop)).status, 401);
    const auto whole = server.get("/v1/traces/" + message_trace, bearer(kAdmin));
    EXPECT_EQ(whole.status, 200) << whole.body;
    EXPECT_NE(whole.body.find(path), std::string::npos) << whole.body;  // why it is the admin's
    traces += whole.body;
    server.stop();
  }
  spdlog::set_default_logger(previous);
  const std::string text = log.str();
  // The log has the requests' lines (so the check below has something to check).
  EXPECT_NE(text.find("slow request POST /v1/sessions/{session}/messages"), std::string::npos)
      << text;
  EXPECT_NE(traces.find("/v1/agent/conversations"), std::string::npos) << traces;
  for (const std::string& secret : {std::string(kShop), std::string(kShopAgent), wrong,
                                    std::string(kAdmin), std::string(kShop).substr(3, 16)}) {
    EXPECT_EQ(text.find(secret), std::string::npos) << secret << " in the log:\n" << text;
    EXPECT_EQ(traces.find(secret), std::string::npos) << secret << " in a trace:\n" << traces;
  }
}

// Answers are cached across tenants (they share the knowledge base), but what one tenant's
// customers read passes that tenant's content rules, cached or not: shop2 refuses every
// generated character, so the answer kept for shop must not reach shop2 from the cache.
TEST(DeskTenantRules, AnAnswerKeptForOneTenantReachesAnotherOnlyThroughItsRules) {
  DeskServer server({.generate = true,
                     .keys = keys(),
                     .tenant_rules = {{"shop2",
                                       "notice: shop2 does not say that.\n"
                                       "refuse everything output regex: .\n"}}});
  const std::string question = testing::uncovered_question("brother");
  const auto first = server.post("/v1/answer", json::object{{"question", question}}, bearer(kShop));
  ASSERT_EQ(first.status, 200) << first.body;
  const json::value generated = json::parse(first.body);
  ASSERT_EQ(generated.at("source"), json::value("model")) << first.body;
  const std::string kept(generated.at("text").as_string());
  ASSERT_FALSE(kept.empty()) << first.body;
  const auto again = server.post("/v1/answer", json::object{{"question", question}}, bearer(kShop));
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(json::parse(again.body).at("source"), json::value("cache")) << again.body;

  // Both ways shop2 can ask: the one-shot answer (its in-process cache path on the HTTP thread)
  // and a conversation (the cache stage of a turn).
  const auto one_shot =
      server.post("/v1/answer", json::object{{"question", question}}, bearer(kShop2));
  const std::string session = server.new_session(bearer(kShop2), "bob");
  const auto in_session = server.post("/v1/sessions/" + session + "/messages",
                                      json::object{{"text", question}}, bearer(kShop2));
  ASSERT_EQ(one_shot.status, 200) << one_shot.body;
  ASSERT_EQ(in_session.status, 200) << in_session.body;
  for (const json::value& answer :
       {json::parse(one_shot.body), json::parse(in_session.body).at("answer")}) {
    EXPECT_NE(answer.at("source"), json::value("cache")) << answer;
    const std::string text(answer.at("text").as_string());
    EXPECT_EQ(text.find(kept), std::string::npos) << answer;
    EXPECT_NE(text.find("shop2 does not say that."), std::string::npos) << answer;
  }
}

}  // namespace
}  // namespace supportd
