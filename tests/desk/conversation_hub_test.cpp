// The hub's relay (what carries live events to other gateways): every event also goes to the
// relay after this process's listeners, a relayed event reaches local listeners only (so it is
// never sent back out), and clearing the relay stops it.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "desk/conversation_hub.h"

namespace supportd::desk {
namespace {

class Collect : public Listener {
 public:
  void deliver(const std::string& json) override { received.push_back(json); }
  std::vector<std::string> received;
};

using Scope = ConversationHub::Scope;
using Relayed = std::tuple<Scope, std::string, std::string>;

TEST(ConversationHub, EveryEventAlsoGoesToTheRelay) {
  ConversationHub hub;
  std::vector<Relayed> relayed;
  hub.set_relay([&](Scope scope, const std::string& key, const std::string& json) {
    relayed.emplace_back(scope, key, json);
  });
  auto customer = std::make_shared<Collect>();
  hub.watch_session("s1", customer);
  hub.to_session("s1", R"({"type":"agent_message"})");
  hub.to_session("s2", R"({"type":"handoff"})");  // nobody here: still relayed
  hub.to_agents("shop", R"({"type":"waiting"})");
  EXPECT_EQ(customer->received, std::vector<std::string>{R"({"type":"agent_message"})"});
  const std::vector<Relayed> expected = {{Scope::kSession, "s1", R"({"type":"agent_message"})"},
                                         {Scope::kSession, "s2", R"({"type":"handoff"})"},
                                         {Scope::kAgents, "shop", R"({"type":"waiting"})"}};
  EXPECT_EQ(relayed, expected);
}

TEST(ConversationHub, ARelayedEventReachesLocalListenersOnly) {
  ConversationHub hub;
  int relayed = 0;
  hub.set_relay([&](Scope, const std::string&, const std::string&) { ++relayed; });
  auto customer = std::make_shared<Collect>();
  auto agent = std::make_shared<Collect>();
  auto other_tenant = std::make_shared<Collect>();
  hub.watch_session("s1", customer);
  hub.watch_tenant_agents("shop", agent);
  hub.watch_tenant_agents("bank", other_tenant);
  hub.deliver_relayed(Scope::kSession, "s1", "to the customer");
  hub.deliver_relayed(Scope::kAgents, "shop", "to the agents");
  EXPECT_EQ(customer->received, std::vector<std::string>{"to the customer"});
  EXPECT_EQ(agent->received, std::vector<std::string>{"to the agents"});
  EXPECT_TRUE(other_tenant->received.empty());
  EXPECT_EQ(relayed, 0);
}

TEST(ConversationHub, ClearingTheRelayStopsIt) {
  ConversationHub hub;
  int relayed = 0;
  hub.set_relay([&](Scope, const std::string&, const std::string&) { ++relayed; });
  hub.to_agents("shop", "one");
  hub.set_relay(nullptr);
  hub.to_agents("shop", "two");
  EXPECT_EQ(relayed, 1);
}

}  // namespace
}  // namespace supportd::desk
