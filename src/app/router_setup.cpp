// Loading serve's model versions into the router (see router_setup.h).
#include "app/router_setup.h"

#include <spdlog/spdlog.h>

#include "engine/llama/llama_engine.h"
#include "model/fingerprint.h"

namespace supportd::app {

Result<std::unique_ptr<engine::router::RouterEngine>> build_router(const ServeConfig& config) {
  auto router = std::make_unique<engine::router::RouterEngine>();
  for (const ModelVersion& version : config.models) {
    const auto failed = [&version](const Error& error) {
      return Error{error.code,
                   "model version '" + version.name + "' (" + version.where + "): " + error.message,
                   {},
                   0};
    };
    spdlog::info("model version {}: checking {}", version.name, version.path);
    auto print = model::fingerprint_model(version.path);
    if (!print) return failed(print.error());
    engine::llama::EngineOptions options = config.engine;
    options.model_path = version.path;
    options.alias = version.name;
    if (version.parallel > 0) options.parallel = version.parallel;
    if (version.context_cells > 0) options.context_cells = version.context_cells;
    auto engine = engine::llama::LlamaEngine::create(options);
    if (!engine) return failed(engine.error());
    engine::router::VersionFacts facts{print->path,
                                       print->sha256,
                                       print->bytes,
                                       print->architecture,
                                       print->quantization,
                                       print->chat_template_sha256,
                                       version.expected_sha256};
    if (Status added =
            router->add_version(version.name, std::move(engine).value(), std::move(facts));
        !added) {
      return failed(added.error());
    }
  }
  for (const std::string& problem : router->problems())
    spdlog::error("{}", problem);
  return router;
}

}  // namespace supportd::app
