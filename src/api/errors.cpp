// Where errors become HTTP: status codes and error bodies for the modules' errors and the desk's
// (see errors.h).
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

std::string_view error_type(int status) {
  return status >= 500 ? "server_error" : "invalid_request_error";
}

http::Response error_response(const Error& error) {
  const int status = http_status(error.code);
  const std::string_view type = error_type(status);
  std::string code = error_code_name(error.code);
  if (error.code == ErrorCode::kTooLarge && error.param.size() > 0)
    code = "context_length_exceeded";
  if (error.code == ErrorCode::kNotFound && error.param == "model") code = "model_not_found";
  if (error.code == ErrorCode::kNotFound && error.param == "session") code = "unknown_session";
  if (error.code == ErrorCode::kOverloaded) code = "queue_full";
  if (error.code == ErrorCode::kRateLimited) code = "rate_limit_exceeded";
  if (error.code == ErrorCode::kUnauthenticated) code = "invalid_api_key";
  // Known credentials that do not allow this (a customer key on an agent route).
  const bool forbidden = error.code == ErrorCode::kUnauthenticated && error.param == "role";
  if (forbidden) {
    return http::error_response(403, error.message, "invalid_request_error", "permission_denied",
                                error.param);
  }
  http::Response response = http::error_response(status, error.message, type, code, error.param);
  if (status == 401) response.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"supportd\"");
  if (error.retry_after_s > 0)
    response.headers.emplace_back("Retry-After", std::to_string(error.retry_after_s));
  return response;
}

int http_status(const desk::DeskError& error) {
  switch (error.kind) {
    case desk::DeskErrorKind::kInvalidSession: return 400;
    case desk::DeskErrorKind::kUnknownSession: return 404;
    case desk::DeskErrorKind::kInvalidMessage: return 400;
    case desk::DeskErrorKind::kMessageTooLong: return 400;
    case desk::DeskErrorKind::kMessageTooLarge: return 400;
    case desk::DeskErrorKind::kStoreUnavailable: return 503;
    case desk::DeskErrorKind::kBusy: return 503;
    case desk::DeskErrorKind::kTooManyWaiting: return 429;
    case desk::DeskErrorKind::kInjectedFault:
      return error.injected_status >= 400 && error.injected_status <= 599 ? error.injected_status
                                                                          : 503;
  }
  return 500;
}

std::string_view error_code(desk::DeskErrorKind kind) {
  switch (kind) {
    case desk::DeskErrorKind::kInvalidSession: return "invalid_session";
    case desk::DeskErrorKind::kUnknownSession: return "unknown_session";
    case desk::DeskErrorKind::kInvalidMessage: return "invalid_argument";
    case desk::DeskErrorKind::kMessageTooLong: return "message_too_long";
    case desk::DeskErrorKind::kMessageTooLarge: return "too_large";
    case desk::DeskErrorKind::kStoreUnavailable: return "store_unavailable";
    case desk::DeskErrorKind::kBusy: return "overloaded";
    case desk::DeskErrorKind::kTooManyWaiting: return "too_many_messages";
    case desk::DeskErrorKind::kInjectedFault: return "fault_injected";
  }
  return "internal";
}

http::Response error_response(const desk::DeskError& error) {
  const int status = http_status(error);
  return http::error_response(status, error.message, error_type(status), error_code(error.kind));
}

}  // namespace supportd::api
