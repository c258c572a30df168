// Reading model versions from --model NAME=PATH flags and [[models]] tables (see
// model_versions.h).
#include "app/model_versions.h"

#include <cctype>

#include <fmt/format.h>

#include "app/toml_file.h"
#include "app/version_name.h"
#include "core/http_url.h"
#include "model/fingerprint.h"

namespace supportd::app {
namespace {

bool is_http_url(const std::string& text) {
  return parse_http_url(text, "upstream").ok();
}

// The entry's setting `name` into `version`: false when its type or value is wrong; an unknown
// name is the caller's to refuse.
bool read_setting(const std::string& name, const toml::node& value, ModelVersion& version) {
  if (name == "name") return toml_value(value, version.name);
  if (name == "path") return toml_value(value, version.path) && !version.path.empty();
  if (name == "upstream")
    return toml_value(value, version.upstream) && is_http_url(version.upstream);
  if (name == "upstream-model")
    return toml_value(value, version.upstream_model) && !version.upstream_model.empty();
  if (name == "sha256") {
    if (!toml_value(value, version.expected_sha256)) return false;
    for (char& c : version.expected_sha256)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return model::is_sha256_hex(version.expected_sha256);
  }
  if (name == "parallel")
    return toml_value(value, version.parallel) && version.parallel >= 1 && version.parallel <= 128;
  if (name == "ctx-size")
    return toml_value(value, version.context_cells) && version.context_cells >= 256;
  return false;
}

Result<ModelVersion> read_entry(const toml::node& entry, const std::string& file) {
  const int line = static_cast<int>(entry.source().begin.line);
  const toml::table* table = entry.as_table();
  if (table == nullptr)
    return Error::invalid(fmt::format("{}:{}: each models entry must be a table", file, line));
  ModelVersion version;
  version.where = fmt::format("{}:{}", file, line);
  for (const auto& [key, value] : *table) {
    const std::string setting(key.str());
    const auto setting_line = value.source().begin.line;
    if (setting != "name" && setting != "path" && setting != "upstream" &&
        setting != "upstream-model" && setting != "sha256" && setting != "parallel" &&
        setting != "ctx-size") {
      return Error::invalid(
          fmt::format("{}:{}: unknown models setting '{}' (name, path, upstream, upstream-model, "
                      "sha256, parallel, ctx-size)",
                      file, setting_line, setting));
    }
    if (!read_setting(setting, value, version)) {
      return Error::invalid(fmt::format("{}:{}: models.{} has a wrong type or value{}", file,
                                        setting_line, setting,
                                        setting == "sha256"     ? " (64 hex digits)"
                                        : setting == "upstream" ? " (http://host:port[/prefix])"
                                                                : ""));
    }
  }
  if (version.name.empty() || (version.path.empty() && version.upstream.empty())) {
    return Error::invalid(
        fmt::format("{}:{}: a models entry needs a name and a path (or an upstream)", file, line));
  }
  if (!version.path.empty() && !version.upstream.empty()) {
    return Error::invalid(
        fmt::format("{}:{}: a models entry has a path or an upstream, not both", file, line));
  }
  if (!version.upstream.empty() &&
      (!version.expected_sha256.empty() || version.parallel != 0 || version.context_cells != 0)) {
    return Error::invalid(
        fmt::format("{}:{}: sha256, parallel and ctx-size are a model file's: an upstream has none",
                    file, line));
  }
  if (!version.upstream_model.empty() && version.upstream.empty()) {
    return Error::invalid(
        fmt::format("{}:{}: upstream-model needs an upstream (the server to ask)", file, line));
  }
  if (!is_version_name(version.name)) {
    return Error::invalid(
        fmt::format("{}:{}: models.name '{}': {}", file, line, version.name, kVersionNameRule));
  }
  return version;
}

}  // namespace

Result<std::vector<ModelVersion>> read_model_versions(const std::string& file) {
  Result<toml::table> parsed = parse_toml_file(file);
  if (!parsed) return parsed.error();
  std::vector<ModelVersion> versions;
  const toml::node* node = parsed->get("models");
  if (node == nullptr) return versions;
  const toml::array* array = node->as_array();
  if (array == nullptr) {
    return Error::invalid(fmt::format("{}:{}: models must be an array of tables ([[models]])", file,
                                      node->source().begin.line));
  }
  for (const toml::node& entry : *array) {
    auto version = read_entry(entry, file);
    if (!version) return version.error();
    versions.push_back(std::move(version).value());
  }
  if (Status unique = check_unique_names(versions); !unique) return unique.error();
  return versions;
}

Result<ModelVersion> parse_model_flag(const std::string& text) {
  const auto equals = text.find('=');
  if (equals == std::string::npos)
    return Error::invalid("--model " + text + ": name each of several models: --model NAME=PATH");
  ModelVersion version;
  version.name = text.substr(0, equals);
  version.path = text.substr(equals + 1);
  version.where = "--model";
  if (!is_version_name(version.name))
    return Error::invalid(fmt::format("--model {}: {}", text, kVersionNameRule));
  if (version.path.empty()) return Error::invalid("--model " + text + ": the path is empty");
  return version;
}

Result<ModelVersion> parse_upstream_flag(const std::string& text) {
  const auto equals = text.find('=');
  if (equals == std::string::npos || !names_a_version(text))
    return Error::invalid("--upstream " + text + ": a version is named --upstream NAME=URL");
  ModelVersion version;
  version.name = text.substr(0, equals);
  version.upstream = text.substr(equals + 1);
  version.where = "--upstream";
  if (auto url = parse_http_url(version.upstream, "--upstream"); !url)
    return Error{url.error().code, "--upstream " + text + ": " + url.error().message, {}, 0};
  return version;
}

Status check_unique_names(const std::vector<ModelVersion>& versions) {
  for (std::size_t i = 0; i < versions.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (versions[i].name == versions[j].name) {
        return Error::invalid(fmt::format("{}: the model version name '{}' is given twice",
                                          versions[i].where, versions[i].name));
      }
    }
  }
  return {};
}

}  // namespace supportd::app
