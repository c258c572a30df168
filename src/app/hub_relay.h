// The desk's live events across gateways: every event a gateway's ConversationHub sends (an
// agent's message, a handoff change, the waiting list) is published on core NATS, and every
// other gateway delivers it to the sockets it holds. So an agent connected to gateway B
// reaches a customer whose WebSocket is on gateway A. Delivery is core NATS: at most once, in
// order per gateway; a socket that misses a push (NATS away) still finds the message in the
// conversation's history, which is in the shared store.
// Thread-safety: immutable after start(); its handlers run on libnats threads.
#pragma once

#include <memory>
#include <string>

#include "bus/connection.h"
#include "core/status.h"
#include "desk/conversation_hub.h"

namespace supportd::app {

class HubRelay {
 public:
  // Subscribes to the other gateways' events and relays `hub`'s own. Fails (kUnavailable) when
  // the subscription cannot be made. REQUIRES: `connection` and `hub` outlive the relay.
  static Result<std::unique_ptr<HubRelay>> start(bus::Connection& connection,
                                                 desk::ConversationHub& hub);
  // Stops relaying both ways; returns once no handler runs any more.
  ~HubRelay();
  HubRelay(const HubRelay&) = delete;
  HubRelay& operator=(const HubRelay&) = delete;

  const std::string& origin() const { return origin_; }

 private:
  HubRelay(bus::Connection& connection, desk::ConversationHub& hub);
  void publish(desk::ConversationHub::Scope scope, const std::string& key, const std::string& json);
  void receive(const bus::Message& message);

  bus::Connection& connection_;
  desk::ConversationHub& hub_;
  const std::string origin_;  // this process, so it skips its own events
  std::unique_ptr<bus::Subscription> subscription_;
};

}  // namespace supportd::app
