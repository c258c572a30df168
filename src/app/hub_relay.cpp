// HubRelay (hub_relay.h): an event travels as "origin\nkey\njson" on the subject of its scope;
// the receiver skips its own and hands the rest to its hub's local listeners.
#include "app/hub_relay.h"

#include <spdlog/spdlog.h>

#include "bus/node_id.h"
#include "bus/subjects.h"

namespace supportd::app {
namespace {

using Scope = desk::ConversationHub::Scope;

std::string_view subject_of(Scope scope) {
  return scope == Scope::kSession ? bus::subjects::kDeskSessionEvents
                                  : bus::subjects::kDeskAgentEvents;
}

}  // namespace

HubRelay::HubRelay(bus::Connection& connection, desk::ConversationHub& hub)
    : connection_(connection), hub_(hub), origin_(bus::unique_node_id()) {}

Result<std::unique_ptr<HubRelay>> HubRelay::start(bus::Connection& connection,
                                                  desk::ConversationHub& hub) {
  std::unique_ptr<HubRelay> relay(new HubRelay(connection, hub));
  auto subscription = connection.subscribe(
      bus::subjects::kDeskEvents, [r = relay.get()](const bus::Message& m) { r->receive(m); });
  if (!subscription) return subscription.error();
  relay->subscription_ = std::move(subscription).value();
  hub.set_relay([r = relay.get()](Scope scope, const std::string& key, const std::string& json) {
    r->publish(scope, key, json);
  });
  return relay;
}

HubRelay::~HubRelay() {
  hub_.set_relay(nullptr);
  subscription_.reset();  // waits for a handler still running
}

void HubRelay::publish(Scope scope, const std::string& key, const std::string& json) {
  std::string data;
  data.reserve(origin_.size() + key.size() + json.size() + 2);
  data.append(origin_).append(1, '\n').append(key).append(1, '\n').append(json);
  if (Status sent = connection_.publish(subject_of(scope), data); !sent) {
    spdlog::warn("desk: a live event for {} reaches this gateway's sockets only: {}", key,
                 sent.error().message);
  }
}

void HubRelay::receive(const bus::Message& message) {
  const std::string_view data = message.data;
  const std::size_t first = data.find('\n');
  const std::size_t second = first == std::string_view::npos ? first : data.find('\n', first + 1);
  if (second == std::string_view::npos) return;  // not ours
  if (data.substr(0, first) == origin_) return;  // delivered here already
  const std::string key(data.substr(first + 1, second - first - 1));
  const std::string json(data.substr(second + 1));
  if (message.subject == bus::subjects::kDeskSessionEvents) {
    hub_.deliver_relayed(Scope::kSession, key, json);
  } else if (message.subject == bus::subjects::kDeskAgentEvents) {
    hub_.deliver_relayed(Scope::kAgents, key, json);
  }
}

}  // namespace supportd::app
