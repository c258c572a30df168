// The checks at the desk's door (see intake.h).
#include "desk/intake.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/utf8.h"

namespace supportd::desk {

Result<store::SessionId> verify_session(store::Sessions& sessions, const std::string& tenant,
                                        const std::string& session) {
  auto id = sessions.verify(session);
  if (!id) return id.error();
  if (id->tenant() != tenant)
    return store::unknown_session();  // another tenant's id: not yours to see
  return id;
}

std::optional<DeskError> check_message(std::string_view text, std::size_t max_characters) {
  if (!is_valid_utf8(text))
    return DeskError{DeskErrorKind::kInvalidMessage, "the message is not valid UTF-8"};
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return DeskError{DeskErrorKind::kInvalidMessage, "the message is empty"};
  if (text.find('\0') != std::string_view::npos)
    return DeskError{DeskErrorKind::kInvalidMessage, "the message contains a NUL character"};
  const auto characters =
      static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
      }));
  if (characters > max_characters) {
    return DeskError{DeskErrorKind::kMessageTooLong,
                     fmt::format("the message has {} characters; at most {} are accepted",
                                 characters, max_characters)};
  }
  return std::nullopt;
}

}  // namespace supportd::desk
