// The model router of `supportd serve` with several named versions (--model NAME=PATH, or
// [[models]] tables): each version's engine loaded and warmed up, its file fingerprinted, its
// expected SHA-256 checked, all in one engine::router::RouterEngine.
#pragma once

#include <memory>

#include "app/serve_config.h"
#include "core/status.h"
#include "engine/router/router_engine.h"

namespace supportd::app {

// Loads every version of `config.models` in order (each with serve's engine options, its own
// parallel and ctx-size when given). A version whose file does not have its expected SHA-256
// is loaded but kept out of traffic (the router says why). Errors: a version that cannot be
// read or loaded, naming it and where it was given.
// REQUIRES: config.models is not empty.
Result<std::unique_ptr<engine::router::RouterEngine>> build_router(const ServeConfig& config);

}  // namespace supportd::app
