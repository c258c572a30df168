// The conversation's values (session_types.h): role and handoff names, the handoff transitions
// allowed, a new message's checks, the unknown-session error.
#include "store/session_types.h"

#include <algorithm>
#include <chrono>

#include "core/utf8.h"
#include "store/session_id.h"

namespace supportd::store {

const char* role_name(Role role) {
  switch (role) {
    case Role::kUser: return "user";
    case Role::kAssistant: return "assistant";
    case Role::kAgent: return "agent";
    case Role::kSystem: return "system";
  }
  return "user";
}

Result<Role> parse_role(std::string_view name) {
  for (Role role : {Role::kUser, Role::kAssistant, Role::kAgent, Role::kSystem}) {
    if (name == role_name(role)) return role;
  }
  return Error::invalid("role must be one of user, assistant, agent, system", "role");
}

const char* handoff_name(Handoff state) {
  switch (state) {
    case Handoff::kBot: return "bot";
    case Handoff::kWaiting: return "waiting";
    case Handoff::kTaken: return "taken";
    case Handoff::kClosed: return "closed";
  }
  return "bot";
}

Result<Handoff> parse_handoff(std::string_view name) {
  for (Handoff state : {Handoff::kBot, Handoff::kWaiting, Handoff::kTaken, Handoff::kClosed}) {
    if (name == handoff_name(state)) return state;
  }
  return Error::invalid("handoff state must be one of bot, waiting, taken, closed", "handoff");
}

Status check_handoff(Handoff from, const std::string& from_agent, const HandoffChange& change) {
  if (change.expected && *change.expected != from) {
    std::string message = std::string("the conversation is ") + handoff_name(from);
    if (from == Handoff::kTaken) message += " by agent " + from_agent;
    return Error::invalid(message + ", not " + handoff_name(*change.expected), "handoff");
  }
  if (change.to == Handoff::kTaken) {
    if (Status name = check_name(change.agent, "agent"); !name) return name;
  } else if (!change.agent.empty()) {
    return Error::invalid("only a taken conversation has an agent", "agent");
  }
  if (from == change.to && (from != Handoff::kTaken || from_agent == change.agent)) return {};
  const auto allowed = [&] {
    switch (from) {
      case Handoff::kBot: return change.to == Handoff::kWaiting;
      case Handoff::kWaiting: return change.to == Handoff::kTaken || change.to == Handoff::kBot;
      case Handoff::kTaken:
        return change.to == Handoff::kBot || change.to == Handoff::kClosed ||
               change.to == Handoff::kTaken;
      case Handoff::kClosed: return change.to == Handoff::kBot || change.to == Handoff::kWaiting;
    }
    return false;
  }();
  if (!allowed) {
    return Error::invalid(std::string("a conversation cannot go from ") + handoff_name(from) +
                              " to " + handoff_name(change.to),
                          "handoff");
  }
  return {};
}

Status check_new_message(const NewMessage& message) {
  if (static_cast<int>(message.role) > static_cast<int>(Role::kSystem))
    return Error::invalid("unknown role", "role");
  if (message.text.size() > kMaxMessageBytes) {
    return Error{ErrorCode::kTooLarge,
                 "a message is at most " + std::to_string(kMaxMessageBytes) + " bytes", "text"};
  }
  if (!is_valid_utf8(message.text)) return Error::invalid("text is not valid UTF-8", "text");
  if (message.text.find('\0') != std::string::npos)
    return Error::invalid("text contains a NUL character", "text");
  if (message.meta.size() > kMaxMetaBytes) {
    return Error{ErrorCode::kTooLarge,
                 "a message's metadata is at most " + std::to_string(kMaxMetaBytes) + " bytes",
                 "meta"};
  }
  if (!is_valid_utf8(message.meta)) return Error::invalid("meta is not valid UTF-8", "meta");
  if (message.meta.find('\0') != std::string::npos)
    return Error::invalid("meta contains a NUL character", "meta");
  return {};
}

Error unknown_session() {
  return {ErrorCode::kNotFound, "unknown session id", "session"};
}

bool is_unknown_session(const Error& error) {
  return error.code == ErrorCode::kNotFound && error.param == "session";
}

Status check_csat(int csat) {
  if (csat < 1 || csat > 5) return Error::invalid("csat must be between 1 and 5", "csat");
  return {};
}

SeqRange history_range(std::int64_t last_seq, std::size_t limit, std::int64_t before_seq) {
  SeqRange range;
  range.to = before_seq > 0 ? std::min(before_seq - 1, last_seq) : last_seq;
  if (limit > 0 && static_cast<std::uint64_t>(range.to) > limit)
    range.from = range.to - static_cast<std::int64_t>(limit) + 1;
  return range;
}

std::int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace supportd::store
