// A drill's faults on the desk's own stages, through the HTTP API: an abort at retrieval answers
// the status it was armed with (code "fault_injected") and stops once disarmed; a delay at the
// store holds that stage at least as long as asked while the turn is still answered; a fault
// bound to another tenant leaves this one alone.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "desk_fixture.h"
#include "obs/faults/fault_injector.h"

namespace supportd {
namespace {

namespace json = boost::json;
namespace faults = obs::faults;
using testing::DeskServer;
using testing::HttpResult;

// Not an FAQ question word for word: the turn reaches retrieval.
const char* const kQuestion = "when do i get my money back";

// One desk for the suite (importing the demo knowledge base takes a while); each test arms
// its own faults and disarms them all at the end.
class DeskFaultsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    injector_ = new faults::FaultInjector();
    server_ = new DeskServer({.faults = injector_});
  }
  static void TearDownTestSuite() {
    delete server_;
    delete injector_;
  }
  void TearDown() override { injector_->clear(); }

  HttpResult ask(const std::string& session) {
    return server_->post("/v1/sessions/" + session + "/messages",
                         json::object{{"text", kQuestion}});
  }

  static inline faults::FaultInjector* injector_ = nullptr;
  static inline DeskServer* server_ = nullptr;
};

TEST_F(DeskFaultsTest, AnAbortAtRetrievalAnswersItsOwnStatusUntilDisarmed) {
  faults::FaultSpec spec;
  spec.stage = faults::Stage::kRetrieval;
  spec.kind = faults::Kind::kAbort;
  spec.status = 502;
  auto armed = injector_->add(spec);
  ASSERT_TRUE(armed.ok()) << armed.error().message;

  const std::string session = server_->new_session();
  const HttpResult refused = ask(session);
  EXPECT_EQ(refused.status, 502) << refused.body;
  const json::value error = json::parse(refused.body).at("error");
  EXPECT_EQ(error.at("code").as_string(), "fault_injected");
  EXPECT_NE(std::string(error.at("message").as_string()).find("retrieval"), std::string::npos)
      << refused.body;
  EXPECT_EQ(injector_->list().at(0).injected, 1);

  ASSERT_TRUE(injector_->remove(armed->id));
  const HttpResult answered = ask(session);
  EXPECT_EQ(answered.status, 200) << answered.body;
}

TEST_F(DeskFaultsTest, ADelayAtTheStoreHoldsThatStageAndTheTurnIsStillAnswered) {
  faults::FaultSpec spec;
  spec.stage = faults::Stage::kStore;
  spec.kind = faults::Kind::kDelay;
  spec.delay = std::chrono::milliseconds(150);
  ASSERT_TRUE(injector_->add(spec).ok());

  const std::string session = server_->new_session();
  const HttpResult answered = ask(session);
  ASSERT_EQ(answered.status, 200) << answered.body;
  // The stage's own timing: a lower bound, whatever the machine's speed.
  const json::value answer = json::parse(answered.body).at("answer");
  EXPECT_GE(answer.at("timings").at("store").to_number<double>(), 150.0) << answered.body;
}

TEST_F(DeskFaultsTest, AFaultBoundToAnotherTenantLeavesThisOneAlone) {
  faults::FaultSpec spec;
  spec.stage = faults::Stage::kRetrieval;
  spec.kind = faults::Kind::kAbort;
  spec.tenant = "another-shop";
  ASSERT_TRUE(injector_->add(spec).ok());

  const HttpResult answered = ask(server_->new_session());
  EXPECT_EQ(answered.status, 200) << answered.body;
  EXPECT_EQ(injector_->list().at(0).injected, 0);
}

}  // namespace
}  // namespace supportd
