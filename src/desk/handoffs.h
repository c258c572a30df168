// Moving a conversation between the assistant, the waiting list and a person, and telling
// whoever watches: the customer's sockets get the new state, the tenant's agents the waiting
// list. (When to call a person is HandoffPolicy's decision, not this.)
// Thread-safety: every method may be called from any thread.
#pragma once

#include <cstddef>
#include <string>

#include "core/status.h"
#include "desk/conversation_hub.h"
#include "desk/desk_metrics.h"
#include "desk/handoff_policy.h"
#include "store/sessions.h"

namespace supportd::desk {

class Handoffs {
 public:
  // `waiting_listed`: conversations in the waiting-list message. REQUIRES: every reference
  // outlives this.
  Handoffs(store::Sessions& sessions, ConversationHub& hub, DeskMetrics& metrics,
           std::size_t waiting_listed)
      : sessions_(sessions), hub_(hub), metrics_(metrics), waiting_listed_(waiting_listed) {}

  // Puts `session` in the waiting list for `reason` (counted), unless it is already waiting for
  // or with a person: then its conversation as it is. Fails like change().
  Result<store::Conversation> request_human(const std::string& tenant, const std::string& session,
                                            HandoffReason reason);
  // Applies `change` to `tenant`'s `session`, appends `note` as a system message (when not
  // empty), and tells the customer's sockets and the tenant's agents. Fails with the session
  // check's errors (verify_session) or the store's (invalid_argument, param "handoff", for a
  // change the conversation's state does not allow).
  Result<store::Conversation> change(const std::string& tenant, const std::string& session,
                                     const store::HandoffChange& change, const std::string& note);
  // Sends the waiting list to `tenant`'s agents (nothing when the store cannot list it).
  void publish_waiting(const std::string& tenant);
  // The waiting list as the agents' socket message ({"type": "waiting", ...}); empty when the
  // store cannot list it.
  std::string waiting_message(const std::string& tenant);

 private:
  store::Sessions& sessions_;
  ConversationHub& hub_;
  DeskMetrics& metrics_;
  const std::size_t waiting_listed_;
};

}  // namespace supportd::desk
