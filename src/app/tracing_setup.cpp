// serve's tracer options from its flags and the OTEL_* variables (see tracing_setup.h).
#include "app/tracing_setup.h"

#include <algorithm>
#include <cstdlib>

#include "core/http_url.h"
#include "obs/trace/resource.h"

namespace supportd::app {
namespace {

constexpr std::string_view kVersion = "0.1.0";  // the project's version (CMakeLists.txt)

// Where spans go, and which setting said so; empty url: nowhere.
struct Endpoint {
  std::string url;
  std::string source;
};

Endpoint endpoint(const TracingConfig& config, const Environment& environment) {
  const auto joined = [](std::string base) {
    while (!base.empty() && base.back() == '/')
      base.pop_back();
    return base + "/v1/traces";
  };
  if (!config.otlp_endpoint.empty()) return {joined(config.otlp_endpoint), "--otlp-endpoint"};
  if (auto url = environment("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"); !url.empty())
    return {url, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"};
  if (auto url = environment("OTEL_EXPORTER_OTLP_ENDPOINT"); !url.empty())
    return {joined(url), "OTEL_EXPORTER_OTLP_ENDPOINT"};
  return {};
}

// A key=value list from `variable`, its errors naming the variable.
Result<std::vector<std::pair<std::string, std::string>>> pairs(const Environment& environment,
                                                               const char* variable) {
  auto parsed = obs::trace::parse_resource_attributes(environment(variable));
  if (!parsed) return Error::invalid(std::string(variable) + ": " + parsed.error().message);
  return parsed;
}

}  // namespace

std::string process_environment(std::string_view name) {
  const char* value = std::getenv(std::string(name).c_str());
  return value == nullptr ? std::string() : std::string(value);
}

Result<obs::trace::TracerOptions> tracer_options(const TracingConfig& config,
                                                 const Environment& environment) {
  obs::trace::TracerOptions options;
  options.sample_ratio = config.sample_ratio;
  options.slow_ms = config.slow_ms;
  options.ring_traces = static_cast<std::size_t>(config.ring_traces);
  auto attributes = pairs(environment, "OTEL_RESOURCE_ATTRIBUTES");
  if (!attributes) return attributes.error();
  options.resource =
      obs::trace::make_resource(environment("OTEL_SERVICE_NAME"), *attributes, kVersion);
  options.scope = {"supportd", std::string(kVersion)};

  const Endpoint where = endpoint(config, environment);
  if (where.url.empty()) return options;
  auto url = parse_http_url(where.url, where.source);
  if (!url) return url.error();
  auto headers = pairs(environment, "OTEL_EXPORTER_OTLP_HEADERS");
  if (!headers) return headers.error();
  obs::trace::ExporterOptions exporter;
  exporter.url = std::move(url).value();
  exporter.headers = std::move(headers).value();
  exporter.max_queue_spans = static_cast<std::size_t>(config.queue_spans);
  // Batches of an eighth of the queue: a few leave while the next ones fill.
  exporter.max_batch_spans =
      std::clamp<std::size_t>(exporter.max_queue_spans / 8, 1, exporter.max_batch_spans);
  options.exporter = std::move(exporter);
  return options;
}

}  // namespace supportd::app
