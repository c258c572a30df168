// Turns module errors into HTTP answers, once, at the edge: status code, OpenAI error JSON.
#pragma once

#include "core/status.h"
#include "http/message.h"

namespace supportd::api {

int http_status(ErrorCode code);
http::Response error_response(const Error& error);

}  // namespace supportd::api
