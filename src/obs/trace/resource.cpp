// The resource spans are exported with (see resource.h).
#include "obs/trace/resource.h"

#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

#include "core/text.h"
#include "obs/trace/ids.h"

namespace supportd::obs::trace {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Result<std::string> percent_decode(std::string_view text, std::string_view member) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    const bool whole = i + 2 < text.size();
    const int high = whole ? hex_digit(text[i + 1]) : -1;
    const int low = whole ? hex_digit(text[i + 2]) : -1;
    if (high < 0 || low < 0) {
      return Error::invalid(fmt::format("bad %XX escape in \"{}\"", member));
    }
    out.push_back(static_cast<char>(high << 4 | low));
    i += 2;
  }
  return out;
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "localhost";
  return name;
}

}  // namespace

std::string Resource::text(std::string_view key) const {
  for (const auto& [name, value] : attributes) {
    if (name == key) {
      if (const auto* s = value.if_text()) return *s;
    }
  }
  return {};
}

Result<std::vector<std::pair<std::string, std::string>>> parse_resource_attributes(
    std::string_view text) {
  std::vector<std::pair<std::string, std::string>> pairs;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string_view member = trim(text.substr(at, comma - at));
    at = comma + 1;
    if (member.empty()) continue;
    const std::size_t equals = member.find('=');
    if (equals == std::string_view::npos || trim(member.substr(0, equals)).empty()) {
      return Error::invalid(fmt::format("\"{}\" is not key=value", member));
    }
    auto key = percent_decode(trim(member.substr(0, equals)), member);
    if (!key) return key.error();
    auto value = percent_decode(trim(member.substr(equals + 1)), member);
    if (!value) return value.error();
    pairs.emplace_back(std::move(key).value(), std::move(value).value());
  }
  return pairs;
}

Resource make_resource(std::string_view service_name,
                       const std::vector<std::pair<std::string, std::string>>& attributes,
                       std::string_view version) {
  std::string service(service_name);
  if (service.empty()) {
    for (const auto& [key, value] : attributes)
      if (key == "service.name") service = value;
  }
  if (service.empty()) service = "supportd";
  Resource resource;
  auto& a = resource.attributes;
  a.emplace_back("service.name", AttributeValue::of(service));
  a.emplace_back("service.version", AttributeValue::of(std::string(version)));
  a.emplace_back("service.instance.id", AttributeValue::of(random_trace_id().hex()));
  a.emplace_back("host.name", AttributeValue::of(host_name()));
  a.emplace_back("process.pid", AttributeValue::of(static_cast<std::int64_t>(getpid())));
  a.emplace_back("process.executable.name", AttributeValue::of(std::string("supportd")));
  a.emplace_back("telemetry.sdk.name", AttributeValue::of(std::string("supportd")));
  a.emplace_back("telemetry.sdk.language", AttributeValue::of(std::string("cpp")));
  a.emplace_back("telemetry.sdk.version", AttributeValue::of(std::string(version)));
  for (const auto& [key, value] : attributes) {
    if (key == "service.name") continue;  // decided above
    auto same = std::find_if(a.begin(), a.end(), [&](const auto& p) { return p.first == key; });
    if (same != a.end()) {
      same->second = AttributeValue::of(value);  // the user's value wins over the detected one
    } else {
      a.emplace_back(key, AttributeValue::of(value));
    }
  }
  return resource;
}

}  // namespace supportd::obs::trace
