// Turns the layers' errors into HTTP answers, once, at the edge: a status code and an error body
// in OpenAI's shape ({"error": {"message", "type", "code", "param"?}}). Nothing below api/
// decides an HTTP status. Pure functions: safe from any thread.
#pragma once

#include <string_view>

#include "core/status.h"
#include "desk/desk_error.h"
#include "http/message.h"

namespace supportd::api {

// A module error (core/status.h): its status, and its response with Retry-After when the error
// says when to retry and WWW-Authenticate on 401.
int http_status(ErrorCode code);
http::Response error_response(const Error& error);

// Why a desk turn could not run: its status (400 malformed or too long, 404 unknown session,
// 429 too many waiting, 503 busy or store down, an injected fault's own status), the body's
// "code" the widget and clients key on (e.g. "unknown_session", "message_too_long",
// "fault_injected"), and "server_error" or "invalid_request_error" as the body's type.
int http_status(const desk::DeskError& error);
std::string_view error_code(desk::DeskErrorKind kind);
std::string_view error_type(int status);
http::Response error_response(const desk::DeskError& error);

}  // namespace supportd::api
