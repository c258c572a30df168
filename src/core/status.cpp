// The names of the error codes (core/status.h), as logs and error bodies show them.
#include "core/status.h"

namespace supportd {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument: return "invalid_argument";
    case ErrorCode::kNotFound: return "not_found";
    case ErrorCode::kTooLarge: return "too_large";
    case ErrorCode::kOverloaded: return "overloaded";
    case ErrorCode::kRateLimited: return "rate_limited";
    case ErrorCode::kUnauthenticated: return "unauthenticated";
    case ErrorCode::kDeadline: return "deadline_exceeded";
    case ErrorCode::kUnavailable: return "unavailable";
    case ErrorCode::kCancelled: return "cancelled";
    case ErrorCode::kUnsupported: return "unsupported";
    case ErrorCode::kCorrupt: return "corrupt";
    case ErrorCode::kIo: return "io_error";
    case ErrorCode::kInternal: return "internal";
  }
  return "internal";
}

}  // namespace supportd
