// Handlers of the OpenAI-compatible endpoints.
#pragma once

#include "api/routes.h"
#include "http/message.h"

namespace supportd::api {

http::Response list_models(Services& services, http::Request& request);
// GET /v1/models/{model}: the model object, or 404 model_not_found.
http::Response retrieve_model(Services& services, http::Request& request);
// `chat`: /v1/chat/completions, else /v1/completions.
http::Response create_completion(Services& services, http::Request& request, bool chat);
http::Response health(Services& services, http::Request& request);
http::Response ready(Services& services, http::Request& request);

}  // namespace supportd::api
