// Names of the request and response types' enums, for logs and the API (see request.h).
#include "engine/request.h"

namespace supportd::engine {

const char* finish_reason_name(FinishReason reason) {
  switch (reason) {
    case FinishReason::kStop: return "stop";
    case FinishReason::kLength: return "length";
    case FinishReason::kCancelled: return "cancelled";
    case FinishReason::kDeadline: return "deadline";
    case FinishReason::kError: return "error";
  }
  return "error";
}

}  // namespace supportd::engine
