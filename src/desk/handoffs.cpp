// Moving conversations between the assistant and people, and telling who watches (see
// handoffs.h).
#include "desk/handoffs.h"

#include <boost/json.hpp>

#include "desk/intake.h"

namespace supportd::desk {
namespace json = boost::json;

Result<store::Conversation> Handoffs::request_human(const std::string& tenant,
                                                    const std::string& session,
                                                    HandoffReason reason) {
  // The id is checked first: another tenant's conversation, already waiting, is not the
  // caller's to see (nor is a forged id a reason to read the store).
  if (auto id = verify_session(sessions_, tenant, session); !id) return id.error();
  auto current = sessions_.conversation(session);
  if (current && (current->handoff == store::Handoff::kWaiting ||
                  current->handoff == store::Handoff::kTaken)) {
    return current;  // already with (or waiting for) a person
  }
  auto changed = change(tenant, session, {store::Handoff::kWaiting, "", std::nullopt},
                        std::string("waiting for a person (") + handoff_reason_name(reason) + ")");
  if (changed) metrics_.handed_off(handoff_reason_name(reason), session);
  return changed;
}

Result<store::Conversation> Handoffs::change(const std::string& tenant, const std::string& session,
                                             const store::HandoffChange& change,
                                             const std::string& note) {
  if (auto id = verify_session(sessions_, tenant, session); !id) return id.error();
  auto conversation = sessions_.change_handoff(session, change);
  if (!conversation) return conversation;
  if (!note.empty()) {
    auto seq = sessions_.append(session, {store::Role::kSystem, note});
    if (seq) conversation->last_seq = *seq;  // the answer shows the note it just added
  }
  hub_.to_session(
      session, json::serialize(json::object{{"type", "handoff"},
                                            {"state", store::handoff_name(conversation->handoff)},
                                            {"agent", conversation->agent}}));
  publish_waiting(tenant);
  return conversation;
}

void Handoffs::publish_waiting(const std::string& tenant) {
  const std::string message = waiting_message(tenant);
  if (!message.empty()) hub_.to_agents(tenant, message);
}

std::string Handoffs::waiting_message(const std::string& tenant) {
  auto list = sessions_.waiting_for_human(tenant, waiting_listed_);
  if (!list) return {};
  json::array conversations;
  for (const auto& c : list->conversations) {
    conversations.push_back(json::object{{"session", c.session},
                                         {"user", c.user},
                                         {"handoff", store::handoff_name(c.handoff)},
                                         {"agent", c.agent},
                                         {"waiting_since_ms", c.handoff_ms},
                                         {"last_seq", c.last_seq}});
  }
  return json::serialize(json::object{{"type", "waiting"},
                                      {"conversations", std::move(conversations)},
                                      {"partial", list->partial}});
}

}  // namespace supportd::desk
