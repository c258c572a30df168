// What produced the spans (OTLP's Resource): service.name and the rest of the OpenTelemetry
// resource conventions, from OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES as the
// OpenTelemetry SDK specification reads them ("key=value,key=value", values percent-encoded;
// OTEL_SERVICE_NAME wins over a service.name there).
// Pure functions on plain values: safe from any thread.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"
#include "obs/trace/span.h"

namespace supportd::obs::trace {

struct Resource {
  std::vector<std::pair<std::string, AttributeValue>> attributes;
  // The value of `key`, or empty.
  std::string text(std::string_view key) const;
};

// A "key=value,key=value" list (OTEL_RESOURCE_ATTRIBUTES', OTEL_EXPORTER_OTLP_HEADERS') as
// pairs. invalid_argument naming the member (not the variable: the caller knows it)
// when one is not key=value, has an empty key, or a bad %XX escape.
Result<std::vector<std::pair<std::string, std::string>>> parse_resource_attributes(
    std::string_view text);

// service.name (`service_name` when not empty, else the attributes' service.name, else
// "supportd"), service.version, service.instance.id (random per process), host.name,
// process.pid, process.executable.name, telemetry.sdk.{name,language,version}, and every
// pair of `attributes`.
Resource make_resource(std::string_view service_name,
                       const std::vector<std::pair<std::string, std::string>>& attributes,
                       std::string_view version);

}  // namespace supportd::obs::trace
