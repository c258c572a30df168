// The model router of `supportd serve` with several named versions (--model NAME=PATH, or
// [[models]] tables): each version's engine loaded and warmed up, its file fingerprinted, its
// expected SHA-256 checked, all in one engine::router::RouterEngine; the versions
// POST /admin/models loads into it at run time, the same way; its route history on disk.
#pragma once

#include <filesystem>
#include <memory>

#include "app/model_versions.h"
#include "app/serve_config.h"
#include "core/status.h"
#include "engine/router/router_engine.h"
#include "store/route_history.h"

namespace supportd::app {

// How `version` is checked (fingerprinted, with its expected SHA-256) and loaded (serve's
// engine options, its own parallel and ctx-size when given). `config` must outlive it.
engine::router::VersionLoader version_loader(const ServeConfig& config,
                                             const ModelVersion& version);

// Loads every version of `config.models` in order. A version whose file does not have its
// expected SHA-256 is loaded but kept out of traffic (the router says why). Errors: a version
// that cannot be read or loaded, naming it and where it was given.
// REQUIRES: config.models is not empty.
Result<std::unique_ptr<engine::router::RouterEngine>> build_router(const ServeConfig& config);

// The route history kept in `path` (a SQLite file, store/route_history.h): the last 1000
// changes read back into `router` (GET /admin/routes shows them), each deployment's last split
// put back when every version it names is loaded (RouterEngine::restore_routes; a warning
// naming the missing version otherwise), and every change from now on appended. A change the store
// cannot take is logged, not refused. Errors: the file cannot be opened or read (naming it). The
// result must outlive the router's changes.
Result<std::unique_ptr<store::RouteHistory>> keep_route_history(
    engine::router::RouterEngine& router, const std::filesystem::path& path);

// POST /admin/models: checks `spec` and starts loading it into `router` in the background
// (RouterEngine::load_version), with the loader version_loader makes at start: a model file,
// or an upstream server (whose engine answers its model list first, as at start; then the
// router's warm-up and check request, as for any version). Errors (kInvalidArgument, the field
// as param): a name that breaks the rule or is used ("name"); both a path and an upstream
// ("upstream") or neither ("path"); no regular file at the path ("path"); an upstream URL that
// is not http:// ("upstream"); a SHA-256 that is not 64 hex digits ("sha256"), parallel
// outside 1..128 ("parallel"), ctx_size under 256 ("ctx_size"), or any of these three for an
// upstream; an upstream_model without an upstream ("upstream_model"). A file that exists but
// cannot be loaded, or an upstream that does not answer, is not an error here: the version
// ends failed with the reason. `config` must outlive the load.
Status load_at_run_time(const ServeConfig& config, engine::router::RouterEngine& router,
                        const engine::router::VersionSpec& spec);

}  // namespace supportd::app
