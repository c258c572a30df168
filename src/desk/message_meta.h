// What the desk keeps beside a stored message's text, so that a conversation read back later
// shows what it showed live: for an answer, where it came from and the articles it cited; for
// an agent's message, who wrote it. The store holds it as an opaque JSON object
// (store::Message::meta); this file is the only place that writes or reads its fields:
//   {"source": "kb", "citations": [{"id", "title", "snippet"}, ...], "agent": "Ann"}
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "desk/answer.h"

namespace supportd::desk {

struct MessageMeta {
  std::string source;               // answer_source_name() of an answer; empty: none
  std::vector<Citation> citations;  // an answer's articles, in the order it showed them
  std::string agent;                // the agent who wrote an agent message; empty: none
};

// The JSON object for store::NewMessage::meta, or "" when `meta` holds nothing. Always at
// most store::kMaxMetaBytes: citations that do not fit are left out, last first.
std::string encode_message_meta(const MessageMeta& meta);

// What a stored value holds. Lenient, never an error: "" (messages stored without), a value
// that is not a JSON object, and fields of the wrong type read as absent, so that a message
// is always shown, at worst without its metadata.
MessageMeta decode_message_meta(std::string_view json);

}  // namespace supportd::desk
