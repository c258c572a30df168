// The values a conversation is made of: messages, the handoff state, feedback. Plain data,
// shared by every SessionStore implementation and by the desk.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace supportd::store {

// Who wrote a message.
enum class Role : std::uint8_t {
  kUser = 0,       // the customer
  kAssistant = 1,  // the bot's answer (the only role that can be rated)
  kAgent = 2,      // a human agent after a handoff
  kSystem = 3,     // an event the desk records (handed over, closed, ...)
};
const char* role_name(Role role);
// "user", "assistant", "agent", "system"; anything else is an invalid_argument error.
Result<Role> parse_role(std::string_view name);

// A message as the caller hands it in.
struct NewMessage {
  Role role = Role::kUser;
  std::string text;  // valid UTF-8 without NUL characters, at most kMaxMessageBytes
  // What the writer wants kept beside the text (the desk: an answer's source and citations,
  // an agent's name), as a JSON object, or empty for none. Opaque to the store: it is checked
  // only as text (valid UTF-8, no NUL, at most kMaxMetaBytes) and given back byte for byte.
  std::string meta;
};
inline constexpr std::size_t kMaxMessageBytes = 64 * 1024;
inline constexpr std::size_t kMaxMetaBytes = 16 * 1024;

// A stored message. seq_id is 1, 2, 3, ... within its session, without gaps.
struct Message {
  std::int64_t seq_id = 0;
  Role role = Role::kUser;
  std::string text;
  std::int64_t created_ms = 0;  // Unix time, milliseconds
  std::string meta;             // NewMessage::meta as stored; empty for messages without
  bool operator==(const Message&) const = default;
};

// Where a conversation stands between the bot and the humans.
enum class Handoff : std::uint8_t {
  kBot = 0,      // the bot answers (the initial state, and "back to bot")
  kWaiting = 1,  // waiting for a human: listed by waiting_for_human()
  kTaken = 2,    // a human agent (Conversation::agent) answers
  kClosed = 3,   // the agent closed it; the customer writing again means back to bot or waiting
};
const char* handoff_name(Handoff state);
// "bot", "waiting", "taken", "closed"; anything else is an invalid_argument error.
Result<Handoff> parse_handoff(std::string_view name);

// A requested handoff transition. Allowed: bot->waiting, waiting->taken, waiting->bot,
// taken->bot, taken->closed, taken->taken (transfer to another agent), closed->bot,
// closed->waiting; any state to itself with the same agent is a no-op.
struct HandoffChange {
  Handoff to = Handoff::kBot;
  std::string agent;  // required for kTaken (same charset as user ids), empty otherwise
  // When set, the change applies only if the conversation is in this state (an agent taking
  // a waiting conversation passes kWaiting, so two agents cannot both take it).
  std::optional<Handoff> expected;
};

// Checks `change` against the current state and agent; the error names what is wrong.
Status check_handoff(Handoff from, const std::string& from_agent, const HandoffChange& change);

// A conversation's state: its identity, progress, handoff and satisfaction score.
struct Conversation {
  std::string session;  // the signed session id
  std::string tenant;
  std::string user;
  std::int64_t created_ms = 0;
  std::int64_t last_seq = 0;  // seq_id of the newest message, 0 when none
  Handoff handoff = Handoff::kBot;
  std::string agent;            // who took it, when kTaken or kClosed
  std::int64_t handoff_ms = 0;  // when the handoff state last changed
  std::optional<int> csat;      // 1..5 once the customer rated the conversation
  bool operator==(const Conversation&) const = default;
};

enum class Thumb : std::uint8_t { kDown = 0, kUp = 1 };

// The feedback recorded for one conversation.
struct Feedback {
  struct Rating {
    std::int64_t seq_id = 0;  // the rated assistant message
    Thumb thumb = Thumb::kUp;
    bool operator==(const Rating&) const = default;
  };
  std::vector<Rating> answers;  // ascending seq_id; the last vote on an answer wins
  std::optional<int> csat;      // 1..5
};

// Conversations waiting for a human, oldest first.
struct WaitingList {
  std::vector<Conversation> conversations;
  // True when a backend was unreachable and only this process's conversations are listed.
  bool partial = false;
};

// not_found "unknown session id" (param "session"): the error for ids no store knows.
Error unknown_session();
bool is_unknown_session(const Error& error);

// The seq_ids history(limit, before_seq) covers in a session whose newest is `last_seq`:
// the newest `limit` (0: all) below `before_seq` (0 or less: no bound). Empty when to < from.
struct SeqRange {
  std::int64_t from = 1;
  std::int64_t to = 0;
};
SeqRange history_range(std::int64_t last_seq, std::size_t limit, std::int64_t before_seq);

// waiting_for_human lists at most this many conversations, whatever the caller asks.
inline constexpr std::size_t kMaxWaitingListed = 1000;

// Validates what a caller hands in; errors name the offending field.
Status check_new_message(const NewMessage& message);
Status check_csat(int csat);

// Milliseconds since the Unix epoch.
std::int64_t unix_ms();

}  // namespace supportd::store
