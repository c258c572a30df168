// Loading serve's model versions into the router, at start and at run time (see
// router_setup.h).
#include "app/router_setup.h"

#include <cctype>
#include <filesystem>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "app/version_name.h"
#include "core/http_url.h"
#include "engine/llama/compute_gate.h"
#include "engine/llama/llama_engine.h"
#include "engine/upstream/upstream_engine.h"
#include "model/fingerprint.h"

namespace supportd::app {

engine::router::VersionLoader version_loader(const ServeConfig& config,
                                             const ModelVersion& version) {
  engine::router::VersionLoader loader;
  if (!version.upstream.empty()) {
    // An upstream has no file: its facts are its URL; its engine forwards (serve's
    // --upstream-api-key and --upstream-timeout, its own model or serve's --upstream-model).
    loader.inspect = [version]() -> Result<engine::router::VersionFacts> {
      engine::router::VersionFacts facts;
      facts.path = version.upstream;
      return facts;
    };
    loader.create = [&config, version]() -> Result<std::unique_ptr<engine::Engine>> {
      engine::upstream::UpstreamOptions options = config.upstream;
      options.url = version.upstream;
      if (!version.upstream_model.empty()) options.model = version.upstream_model;
      auto engine = engine::upstream::UpstreamEngine::create(options);
      if (!engine) return engine.error();
      return std::unique_ptr<engine::Engine>(std::move(engine).value());
    };
    return loader;
  }
  loader.inspect = [version]() -> Result<engine::router::VersionFacts> {
    // Hashed in turns with the engines serving meanwhile (compute_gate.h), a piece a turn.
    engine::llama::SharedWork work(engine::llama::process_compute_gate());
    auto print = model::fingerprint_model(version.path, [&work] { work.yield(); });
    if (!print) return print.error();
    return engine::router::VersionFacts{print->path,
                                        print->sha256,
                                        print->bytes,
                                        print->architecture,
                                        print->quantization,
                                        print->chat_template_sha256,
                                        version.expected_sha256};
  };
  loader.create = [&config, version]() -> Result<std::unique_ptr<engine::Engine>> {
    engine::llama::EngineOptions options = config.engine;
    options.model_path = version.path;
    options.alias = version.name;
    if (version.parallel > 0) options.parallel = version.parallel;
    if (version.context_cells > 0) options.context_cells = version.context_cells;
    auto engine = engine::llama::LlamaEngine::create(options);
    if (!engine) return engine.error();
    return std::unique_ptr<engine::Engine>(std::move(engine).value());
  };
  return loader;
}

Result<std::unique_ptr<engine::router::RouterEngine>> build_router(const ServeConfig& config) {
  auto router = std::make_unique<engine::router::RouterEngine>();
  for (const ModelVersion& version : config.models) {
    const auto failed = [&version](const Error& error) {
      return Error{error.code,
                   "model version '" + version.name + "' (" + version.where + "): " + error.message,
                   {},
                   0};
    };
    spdlog::info("model version {}: {} {}", version.name,
                 version.upstream.empty() ? "checking" : "forwarding to",
                 version.upstream.empty() ? version.path : version.upstream);
    const engine::router::VersionLoader loader = version_loader(config, version);
    auto facts = loader.inspect();
    if (!facts) return failed(facts.error());
    auto engine = loader.create();
    if (!engine) return failed(engine.error());
    if (Status added =
            router->add_version(version.name, std::move(engine).value(), std::move(facts).value());
        !added) {
      return failed(added.error());
    }
  }
  for (const std::string& problem : router->problems())
    spdlog::error("{}", problem);
  return router;
}

Result<std::unique_ptr<store::RouteHistory>> keep_route_history(
    engine::router::RouterEngine& router, const std::filesystem::path& path) {
  auto history = store::RouteHistory::open(path);
  if (!history) return history.error();
  auto records = (*history)->recent(1000);
  if (!records)
    return Error::make(records.error().code, path.string() + ": " + records.error().message);
  std::vector<engine::router::RouteChange> earlier;
  for (const store::RouteRecord& record : *records) {
    auto before = engine::router::decode_split(record.before);
    auto after = engine::router::decode_split(record.after);
    if (!before || !after) {
      spdlog::warn("{}: a route change of {} cannot be read; skipped", path.string(),
                   record.deployment);
      continue;
    }
    earlier.push_back(
        engine::router::RouteChange{record.deployment, record.action, std::move(before).value(),
                                    std::move(after).value(), record.who, record.unix_ms});
  }
  router.restore_routes(earlier);
  store::RouteHistory* kept_in = history->get();
  router.keep_history(
      std::move(earlier), [kept_in, path](const engine::router::RouteChange& change) {
        const Status kept = kept_in->append(store::RouteRecord{
            change.deployment, change.action, engine::router::encode_split(change.before),
            engine::router::encode_split(change.after), change.who, change.unix_ms});
        if (!kept)
          spdlog::error("{}: the route change of {} was not kept: {}", path.string(),
                        change.deployment, kept.error().message);
      });
  return std::move(history).value();
}

namespace {

// An error of POST /admin/models's field `field`: kInvalidArgument, param `field`.
Error field_error(const std::string& field, const std::string& message) {
  return Error::invalid(fmt::format("'{}' {}", field, message), field);
}

// `spec` as a version of an upstream server: its URL checked as --upstream's is; a file's
// settings refused.
Result<ModelVersion> upstream_version(const engine::router::VersionSpec& spec) {
  if (auto url = parse_http_url(spec.upstream, "upstream"); !url)
    return field_error("upstream", fmt::format("'{}': {}", spec.upstream, url.error().message));
  if (!spec.expected_sha256.empty())
    return field_error("sha256", "is a model file's: an upstream has none");
  if (spec.parallel != 0) return field_error("parallel", "is a model file's: an upstream has none");
  if (spec.context_cells != 0)
    return field_error("ctx_size", "is a model file's: an upstream has none");
  ModelVersion version;
  version.upstream = spec.upstream;
  version.upstream_model = spec.upstream_model;
  return version;
}

// `spec` as a version of a model file: a regular file there, its settings in range.
Result<ModelVersion> file_version(const engine::router::VersionSpec& spec) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(spec.path, error)) {
    return field_error("path", fmt::format("names no model file: '{}'{}{}", spec.path,
                                           error ? ": " : "", error ? error.message() : ""));
  }
  if (!spec.upstream_model.empty())
    return field_error("upstream_model", "needs an upstream (the server to ask)");
  ModelVersion version;
  version.path = spec.path;
  version.expected_sha256 = spec.expected_sha256;
  for (char& c : version.expected_sha256)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!version.expected_sha256.empty() && !model::is_sha256_hex(version.expected_sha256))
    return field_error("sha256", "must be 64 hex digits");
  if (spec.parallel != 0 && (spec.parallel < 1 || spec.parallel > 128))
    return field_error("parallel", "must be between 1 and 128");
  if (spec.context_cells != 0 && spec.context_cells < 256)
    return field_error("ctx_size", "must be at least 256");
  version.parallel = spec.parallel;
  version.context_cells = spec.context_cells;
  return version;
}

}  // namespace

Status load_at_run_time(const ServeConfig& config, engine::router::RouterEngine& router,
                        const engine::router::VersionSpec& spec) {
  if (!is_version_name(spec.name))
    return field_error("name",
                       fmt::format("'{}' breaks the rule: {}", spec.name, kVersionNameRule));
  if (!spec.path.empty() && !spec.upstream.empty()) {
    return field_error("upstream",
                       "and 'path' exclude each other: a version is a model file or an "
                       "upstream server");
  }
  if (spec.path.empty() && spec.upstream.empty()) {
    return field_error("path",
                       "is required: the model file (or 'upstream': an OpenAI-compatible "
                       "server's URL)");
  }
  auto version = spec.upstream.empty() ? file_version(spec) : upstream_version(spec);
  if (!version) return version.error();
  version->name = spec.name;
  version->where = "POST /admin/models";
  // The loader built as at start: an upstream's engine answers its model list first (as
  // build_router's does), then the router warms and checks it like any version.
  return router.load_version(version->name,
                             spec.upstream.empty() ? version->path : version->upstream,
                             version_loader(config, *version));
}

}  // namespace supportd::app
