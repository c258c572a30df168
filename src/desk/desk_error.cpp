// How the stores' errors become the desk's own (see desk_error.h).
#include "desk/desk_error.h"

namespace supportd::desk {

DeskError session_error(const Error& error) {
  const bool malformed = error.code == ErrorCode::kInvalidArgument;
  return {malformed ? DeskErrorKind::kInvalidSession : DeskErrorKind::kUnknownSession,
          error.message};
}

DeskError append_error(const Error& error) {
  switch (error.code) {
    case ErrorCode::kInvalidArgument: return {DeskErrorKind::kInvalidMessage, error.message};
    case ErrorCode::kTooLarge: return {DeskErrorKind::kMessageTooLarge, error.message};
    default:
      return {DeskErrorKind::kStoreUnavailable,
              "your message could not be stored: " + error.message};
  }
}

}  // namespace supportd::desk
