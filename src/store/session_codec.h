// The MessagePack form of a SessionView, as cached in Redis under "session:{key}".
// The value is one array: [1, token, tenant, user, created_ms, last_seq, handoff, agent,
// handoff_ms, state_version, csat or nil, [message, ...]], a message being
// [seq, role, text, created_ms] or, when it has metadata, [seq, role, text, created_ms, meta].
// Copies written before messages had metadata (always 4 elements) decode with empty meta.
// Element 6 (last_seq) is read by a Lua script in Redis (cmsgpack): keep it in place.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"
#include "store/session_view.h"

namespace supportd::store {

std::string encode_session(const SessionView& view);

// Any malformed, truncated or foreign value is a kCorrupt error, never a crash.
Result<SessionView> decode_session(std::string_view bytes);

}  // namespace supportd::store
