// serve's tracing, from its flags and the standard OpenTelemetry environment variables:
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (the whole URL), OTEL_EXPORTER_OTLP_ENDPOINT (a base URL,
// "/v1/traces" appended), OTEL_EXPORTER_OTLP_HEADERS ("key=value,..."), OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES. --otlp-endpoint wins over both endpoint variables.
// Pure function of its arguments: safe from any thread.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "app/serve_config.h"
#include "core/status.h"
#include "obs/trace/tracer.h"

namespace supportd::app {

// An environment variable's value, or empty when it is not set.
using Environment = std::function<std::string(std::string_view name)>;
// The process's environment.
std::string process_environment(std::string_view name);

// The tracer's options. invalid_argument naming the flag or the variable when an endpoint is
// not an http URL or a key=value list is malformed.
Result<obs::trace::TracerOptions> tracer_options(const TracingConfig& config,
                                                 const Environment& environment);

}  // namespace supportd::app
