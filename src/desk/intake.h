// What the desk checks before it takes a customer's message: that the session id belongs to
// the caller's tenant (without touching any store), and that the text is one it accepts.
// Thread-safety: free functions, safe from any thread (Sessions::verify is).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "desk/desk_error.h"
#include "store/sessions.h"

namespace supportd::desk {

// The session's id when `session` is a valid id of `tenant`. Errors: Sessions::verify's
// (invalid_argument: malformed; not_found: forged or never issued), and not_found for another
// tenant's id (not yours to see).
Result<store::SessionId> verify_session(store::Sessions& sessions, const std::string& tenant,
                                        const std::string& session);

// Why a customer's text cannot be taken, or nullopt: kInvalidMessage when it is not UTF-8, is
// blank or holds a NUL; kMessageTooLong when it has more than `max_characters` characters
// (characters, not bytes: 4,000 Chinese characters are as long a message as 4,000 Latin ones).
std::optional<DeskError> check_message(std::string_view text, std::size_t max_characters);

}  // namespace supportd::desk
