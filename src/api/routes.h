// The route table: every endpoint supportd serves, in one ordered list (routes.cpp).
#pragma once

#include "http/router.h"

namespace supportd::engine {
class Engine;
}

namespace supportd::api {

// What the handlers need; owned by the caller and outliving the router.
struct Services {
  engine::Engine* engine = nullptr;
};

http::Router make_router(Services& services);

}  // namespace supportd::api
