// The desk's WebSocket endpoints (/v1/ws, /v1/agent/ws) driven by a WebSocket client
// against the in-process desk: streamed answers, agent messages pushed to the customer, the
// waiting list pushed to agents, and garbage answered with an error that harms nothing else.
#include <gtest/gtest.h>

#include <boost/beast/core.hpp>
#include <boost/json.hpp>
#include <string>

#include "desk_fixture.h"
#include "websocket_client.h"

namespace supportd::testing {
namespace {
namespace beast = boost::beast;
namespace json = boost::json;

using Socket = WebSocketClient;

class DeskSocket : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new DeskServer(); }
  static void TearDownTestSuite() { delete server_; }
  static DeskServer& server() { return *server_; }
  static DeskServer* server_;
};
DeskServer* DeskSocket::server_ = nullptr;

std::string type_of(const json::value& v) {
  return std::string(v.at("type").as_string());
}

TEST_F(DeskSocket, StreamsTheAnswerWithCitationsThenDone) {
  const std::string session = server().new_session();
  Socket socket(server().port(), "/v1/ws?session=" + session);
  socket.send(R"({"type":"message","text":"Where is my parcel?"})");
  const auto messages = socket.receive_until("done");
  ASSERT_EQ(type_of(messages.back()), "done");
  EXPECT_EQ(type_of(messages.front()), "citations");
  std::string streamed;
  for (const auto& m : messages) {
    if (type_of(m) == "token") streamed += m.at("text").as_string();
  }
  const json::value& answer = messages.back().at("answer");
  EXPECT_EQ(json::value(streamed), answer.at("text"));
  EXPECT_EQ(answer.at("citations").at(0).at("id"), json::value("faq/where-is-my-order"));
}

TEST_F(DeskSocket, GarbageGetsAnErrorAndTheSocketKeepsWorking) {
  const std::string session = server().new_session();
  Socket socket(server().port(), "/v1/ws?session=" + session);
  for (const std::string garbage :
       {"not json at all", "[1,2,3]", R"({"type":"message"})", R"({"type":"fly","text":"x"})"}) {
    socket.send(garbage);
    const json::value reply = socket.receive();
    EXPECT_EQ(type_of(reply), "error") << garbage;
    EXPECT_EQ(reply.at("code"), json::value("invalid_message")) << garbage;
  }
  socket.send(R"({"type":"ping"})");
  EXPECT_EQ(type_of(socket.receive()), "pong");
  socket.send(R"({"type":"message","text":"   "})");
  const json::value empty = socket.receive();
  EXPECT_EQ(type_of(empty), "error");
  EXPECT_EQ(empty.at("status"), json::value(400));
  // The same socket still answers, and another conversation was never touched.
  socket.send(R"({"type":"message","text":"How do I return an item?"})");
  EXPECT_EQ(type_of(socket.receive_until("done").back()), "done");
}

TEST_F(DeskSocket, InvalidUtf8IsAProtocolErrorForThatSocketOnly) {
  const std::string session = server().new_session();
  Socket bystander(server().port(), "/v1/ws?session=" + server().new_session());
  Socket socket(server().port(), "/v1/ws?session=" + session);
  socket.send("\xff\xfe{");
  EXPECT_THROW(socket.receive(), beast::system_error);
  EXPECT_EQ(socket.close_code(), 1007);  // RFC 6455: invalid frame payload data
  bystander.send(R"({"type":"message","text":"Where is my parcel?"})");
  EXPECT_EQ(type_of(bystander.receive_until("done").back()), "done");
}

TEST_F(DeskSocket, RefusesUnknownAndForgedSessionsBeforeUpgrading) {
  EXPECT_THROW(Socket(server().port(), "/v1/ws?session=not-a-session"), beast::system_error);
  EXPECT_THROW(Socket(server().port(), "/v1/ws"), beast::system_error);
  const auto plain = server().get("/v1/ws?session=" + server().new_session());
  EXPECT_EQ(plain.status, 426);  // a plain GET is told to upgrade
}

TEST_F(DeskSocket, AHandshakeBeastRefusesIsAJsonError) {
  // The raw handshake to the customers' socket, with `fields` for the version and key.
  auto handshake = [&](const std::string& fields) {
    testing::Connection c(server().port());
    c.send("GET /v1/ws?session=" + server().new_session() + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
           "Connection: Upgrade\r\nUpgrade: websocket\r\n" + fields + "\r\n");
    return c.read_response();
  };
  const auto old_version =
      handshake("Sec-WebSocket-Version: 8\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n");
  EXPECT_EQ(old_version.status, 426);
  EXPECT_EQ(old_version.header("sec-websocket-version"), "13");  // RFC 6455 4.4
  EXPECT_EQ(old_version.header("content-type"), "application/json");
  EXPECT_EQ(json::parse(old_version.body).at("error").at("code"),
            json::value("unsupported_websocket_version"));
  const auto no_key = handshake("Sec-WebSocket-Version: 13\r\n");
  EXPECT_EQ(no_key.status, 400);
  EXPECT_EQ(no_key.header("content-type"), "application/json");
  const json::value error = json::parse(no_key.body).at("error");
  EXPECT_EQ(error.at("code"), json::value("bad_websocket_handshake"));
  EXPECT_NE(std::string(error.at("message").as_string()).find("Sec-WebSocket-Key"),
            std::string::npos)
      << no_key.body;
}

TEST_F(DeskSocket, TheAgentSocketAnswersOnlyARealPing) {
  Socket agents(server().port(), "/v1/agent/ws");
  // Skips pushes of the waiting list (other tests' conversations may be waiting).
  auto next_reply = [&] {
    for (;;) {
      json::value reply = agents.receive();
      if (type_of(reply) != "waiting") return reply;
    }
  };
  agents.send(R"({"type":"ping"})");
  EXPECT_EQ(type_of(next_reply()), "pong");
  // A message that merely mentions "ping" is not one.
  agents.send(R"({"type":"message","text":"ping"})");
  const json::value reply = next_reply();
  EXPECT_EQ(type_of(reply), "error");
  EXPECT_EQ(reply.at("code"), json::value("invalid_message"));
  agents.send("not json");
  EXPECT_EQ(type_of(next_reply()), "error");
}

TEST_F(DeskSocket, AgentsSeeTheWaitingListAndCustomersSeeTheAgent) {
  Socket agents(server().port(), "/v1/agent/ws");
  const std::string session = server().new_session();
  Socket customer(server().port(), "/v1/ws?session=" + session);
  customer.send(R"({"type":"message","text":"I want to talk to a human please"})");
  const auto answer = customer.receive_until("done");
  EXPECT_EQ(answer.back().at("answer").at("source"), json::value("handoff"));

  // The agents' socket is told the conversation waits.
  bool listed = false;
  for (int i = 0; i < 20 && !listed; ++i) {
    const json::value update = agents.receive();
    if (type_of(update) != "waiting") continue;
    for (const auto& c : update.at("conversations").as_array()) {
      listed = listed || c.at("session") == json::value(session);
    }
  }
  EXPECT_TRUE(listed);

  const std::string base = "/v1/agent/conversations/" + session;
  ASSERT_EQ(server().post(base + "/take", json::object{{"agent", "bob"}}).status, 200);
  ASSERT_EQ(server()
                .post(base + "/reply", json::object{{"agent", "bob"}, {"text", "Hi, Bob here."}})
                .status,
            200);
  // The customer is told a person joined, then gets Bob's words.
  bool joined = false;
  std::string said;
  for (int i = 0; i < 20 && said.empty(); ++i) {
    const json::value pushed = customer.receive();
    if (type_of(pushed) == "handoff" && pushed.at("state") == json::value("taken")) joined = true;
    if (type_of(pushed) == "agent_message") said = pushed.at("text").as_string();
  }
  EXPECT_TRUE(joined);
  EXPECT_EQ(said, "Hi, Bob here.");
  EXPECT_EQ(server().post(base + "/release", json::object{{"agent", "bob"}}).status, 200);
}

}  // namespace
}  // namespace supportd::testing
