// The desk's errors: which text and which store failures become which kind (desk/intake.h,
// desk/desk_error.h), and how api/ puts each kind on the wire (api/errors.h), the same in a
// JSON response and in a streamed error event.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <string>
#include <vector>

#include "api/desk_answers.h"
#include "api/errors.h"
#include "desk/desk_error.h"
#include "desk/intake.h"

namespace supportd::desk {
namespace {
namespace json = boost::json;

DeskErrorKind kind_of(std::string_view text, std::size_t max_characters = 10) {
  auto refusal = check_message(text, max_characters);
  EXPECT_TRUE(refusal.has_value()) << text;
  return refusal ? refusal->kind : DeskErrorKind::kBusy;
}

TEST(DeskIntake, RefusesTextItCannotTake) {
  EXPECT_EQ(kind_of("\xff\xfe"), DeskErrorKind::kInvalidMessage);
  EXPECT_EQ(kind_of(" \t\r\n"), DeskErrorKind::kInvalidMessage);
  EXPECT_EQ(kind_of(std::string_view("a\0b", 3)), DeskErrorKind::kInvalidMessage);
  EXPECT_EQ(kind_of("eleven char"), DeskErrorKind::kMessageTooLong);
  EXPECT_EQ(check_message("eleven char", 10)->message,
            "the message has 11 characters; at most 10 are accepted");
}

TEST(DeskIntake, CountsCharactersNotBytes) {
  const std::string ten_chinese = "我想退货请问怎么办呢";  // 10 characters, 30 bytes
  EXPECT_FALSE(check_message(ten_chinese, 10).has_value());
  EXPECT_EQ(kind_of(ten_chinese + "？"), DeskErrorKind::kMessageTooLong);
  EXPECT_FALSE(check_message("where is my parcel?", 4000).has_value());
}

TEST(DeskErrors, StoreFailuresBecomeTheDesksOwnKinds) {
  EXPECT_EQ(session_error(Error::invalid("malformed session id", "session")).kind,
            DeskErrorKind::kInvalidSession);
  EXPECT_EQ(session_error({ErrorCode::kNotFound, "unknown session id", "session", 0}).kind,
            DeskErrorKind::kUnknownSession);
  EXPECT_EQ(append_error(Error::invalid("bad text", "text")).kind, DeskErrorKind::kInvalidMessage);
  EXPECT_EQ(append_error(Error::make(ErrorCode::kTooLarge, "too big")).kind,
            DeskErrorKind::kMessageTooLarge);
  const DeskError down = append_error(Error::make(ErrorCode::kUnavailable, "redis is down"));
  EXPECT_EQ(down.kind, DeskErrorKind::kStoreUnavailable);
  EXPECT_EQ(down.message, "your message could not be stored: redis is down");
}

struct OnTheWire {
  DeskErrorKind kind;
  int status;
  std::string code;
};

const std::vector<OnTheWire> kWire{
    {DeskErrorKind::kInvalidSession, 400, "invalid_session"},
    {DeskErrorKind::kUnknownSession, 404, "unknown_session"},
    {DeskErrorKind::kInvalidMessage, 400, "invalid_argument"},
    {DeskErrorKind::kMessageTooLong, 400, "message_too_long"},
    {DeskErrorKind::kMessageTooLarge, 400, "too_large"},
    {DeskErrorKind::kStoreUnavailable, 503, "store_unavailable"},
    {DeskErrorKind::kBusy, 503, "overloaded"},
    {DeskErrorKind::kTooManyWaiting, 429, "too_many_messages"},
    {DeskErrorKind::kInjectedFault, 503, "fault_injected"},  // no status given: 503
};

TEST(DeskErrors, ApiGivesEachKindItsStatusAndCode) {
  for (const auto& wire : kWire) {
    SCOPED_TRACE(wire.code);
    const http::Response response = api::error_response(DeskError{wire.kind, "what happened"});
    EXPECT_EQ(response.status, wire.status);
    const json::value body = json::parse(response.body);
    const json::object& error = body.at("error").as_object();
    EXPECT_EQ(error.at("code"), json::value(wire.code));
    EXPECT_EQ(error.at("message"), json::value("what happened"));
    EXPECT_EQ(error.at("type"),
              json::value(wire.status >= 500 ? "server_error" : "invalid_request_error"));
  }
}

TEST(DeskErrors, AnInjectedFaultAnswersTheStatusItWasArmedWith) {
  const auto status_of = [](int armed) {
    return api::error_response(DeskError{DeskErrorKind::kInjectedFault, "drill", armed}).status;
  };
  EXPECT_EQ(status_of(502), 502);
  EXPECT_EQ(status_of(429), 429);
  EXPECT_EQ(status_of(200), 503);  // never a success, whatever the fault says
  EXPECT_EQ(status_of(600), 503);
}

TEST(DeskErrors, AStreamedErrorCarriesTheSameStatusAndCode) {
  for (const auto& wire : kWire) {
    SCOPED_TRACE(wire.code);
    std::vector<std::string> sent;
    auto sink = api::make_answer_message_sink([&](std::string event) { sent.push_back(event); });
    sink->on_error(DeskError{wire.kind, "what happened"});
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(json::parse(sent[0]),
              json::parse(json::serialize(json::object{{"type", "error"},
                                                       {"status", wire.status},
                                                       {"code", wire.code},
                                                       {"message", "what happened"}})));
  }
}

}  // namespace
}  // namespace supportd::desk
