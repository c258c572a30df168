#include "api/errors.h"

namespace supportd::api {

int http_status(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument: return 400;
    case ErrorCode::kNotFound: return 404;
    case ErrorCode::kTooLarge: return 400;
    case ErrorCode::kOverloaded: return 429;
    case ErrorCode::kRateLimited: return 429;
    case ErrorCode::kUnauthenticated: return 401;
    case ErrorCode::kDeadline: return 503;
    case ErrorCode::kUnavailable: return 503;
    case ErrorCode::kCancelled: return 499;
    case ErrorCode::kUnsupported: return 400;
    case ErrorCode::kCorrupt: return 400;
    case ErrorCode::kIo: return 500;
    case ErrorCode::kInternal: return 500;
  }
  return 500;
}

http::Response error_response(const Error& error) {
  const int status = http_status(error.code);
  const char* type = status >= 500 ? "server_error" : "invalid_request_error";
  std::string code = error_code_name(error.code);
  if (error.code == ErrorCode::kTooLarge && error.param.size() > 0)
    code = "context_length_exceeded";
  if (error.code == ErrorCode::kNotFound && error.param == "model") code = "model_not_found";
  if (error.code == ErrorCode::kNotFound && error.param == "session") code = "unknown_session";
  if (error.code == ErrorCode::kOverloaded) code = "queue_full";
  if (error.code == ErrorCode::kRateLimited) code = "rate_limit_exceeded";
  if (error.code == ErrorCode::kUnauthenticated) code = "invalid_api_key";
  http::Response response = http::error_response(status, error.message, type, code, error.param);
  if (status == 401) response.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"supportd\"");
  if (error.retry_after_s > 0)
    response.headers.emplace_back("Retry-After", std::to_string(error.retry_after_s));
  return response;
}

}  // namespace supportd::api
