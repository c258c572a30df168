// Reading [[api_keys]] tables from the TOML config file (see api_keys_file.h).
#include "app/api_keys_file.h"

#include <fmt/format.h>

#include "app/toml_file.h"
#include "store/session_id.h"

namespace supportd::app {
namespace {

// The entry's setting `name` into `key`: false when its type or value is wrong. An unknown
// name is the caller's to refuse.
bool read_setting(const std::string& name, const toml::node& value, api::ApiKey& key) {
  if (name == "key") return toml_value(value, key.key);
  if (name == "tenant") return toml_value(value, key.tenant);
  if (name == "priority") {
    std::string text;
    if (!toml_value(value, text)) return false;
    const auto priority = sched::parse_priority(text);
    if (priority) key.priority = *priority;
    return priority.has_value();
  }
  if (name == "weight") return toml_value(value, key.weight) && key.weight > 0;
  if (name == "requests_per_second") {
    return toml_value(value, key.limit.requests_per_second) && key.limit.requests_per_second >= 0;
  }
  if (name == "burst")
    return toml_value(value, key.limit.burst_requests) && key.limit.burst_requests >= 0;
  if (name == "tokens_per_minute") {
    return toml_value(value, key.limit.tokens_per_minute) && key.limit.tokens_per_minute >= 0;
  }
  return false;
}

bool known_setting(const std::string& name) {
  for (const char* known : {"key", "tenant", "priority", "weight", "requests_per_second", "burst",
                            "tokens_per_minute"}) {
    if (name == known) return true;
  }
  return false;
}

// One [[api_keys]] table, checked against the keys before it.
Result<api::ApiKey> read_entry(const toml::node& entry, const std::string& file,
                               const std::vector<api::ApiKey>& earlier) {
  const int line = static_cast<int>(entry.source().begin.line);
  const toml::table* table = entry.as_table();
  if (table == nullptr)
    return Error::invalid(fmt::format("{}:{}: each api_keys entry must be a table", file, line));
  api::ApiKey key;
  for (const auto& [name, value] : *table) {
    const std::string setting(name.str());
    const auto setting_line = value.source().begin.line;
    if (!known_setting(setting)) {
      return Error::invalid(
          fmt::format("{}:{}: unknown api_keys setting '{}'", file, setting_line, setting));
    }
    if (!read_setting(setting, value, key)) {
      return Error::invalid(
          fmt::format("{}:{}: api_keys.{} has a wrong type or value", file, setting_line, setting));
    }
  }
  if (key.key.empty())
    return Error::invalid(fmt::format("{}:{}: an api_keys entry needs a key", file, line));
  if (!key.tenant.empty()) {
    // Tenants name conversations in session ids and stores: refused here rather than on every
    // desk call made with the key.
    if (Status name = store::check_name(key.tenant, "tenant"); !name) {
      return Error::invalid(fmt::format("{}:{}: api_keys.tenant '{}': {}", file, line, key.tenant,
                                        name.error().message));
    }
  }
  for (const api::ApiKey& other : earlier) {
    if (other.key == key.key) {
      return Error::invalid(
          fmt::format("{}:{}: this api_keys key is already given by an earlier entry", file, line));
    }
  }
  return key;
}

}  // namespace

Result<std::vector<api::ApiKey>> read_api_keys(const std::string& file) {
  Result<toml::table> parsed = parse_toml_file(file);
  if (!parsed) return parsed.error();
  const toml::table& table = *parsed;
  std::vector<api::ApiKey> keys;
  const toml::node* node = table.get("api_keys");
  if (node == nullptr) return keys;
  const toml::array* array = node->as_array();
  if (array == nullptr) {
    return Error::invalid(fmt::format("{}:{}: api_keys must be an array of tables ([[api_keys]])",
                                      file, node->source().begin.line));
  }
  for (const toml::node& entry : *array) {
    auto key = read_entry(entry, file, keys);
    if (!key) return key.error();
    keys.push_back(std::move(key).value());
  }
  return keys;
}

}  // namespace supportd::app
