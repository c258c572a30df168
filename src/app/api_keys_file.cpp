// Reading [[api_keys]] tables from the TOML config file (see api_keys_file.h).
#include "app/api_keys_file.h"

#include <optional>

#include <fmt/format.h>

#include "app/toml_file.h"
#include "store/session_id.h"

namespace supportd::app {
namespace {

// A setting named by a word (`parse` gives its value, or nullopt for an unknown word) into `out`.
template <typename T, typename Parse>
bool read_named(const toml::node& value, Parse parse, T& out) {
  std::string text;
  if (!toml_value(value, text)) return false;
  const std::optional<T> parsed = parse(text);
  if (parsed) out = *parsed;
  return parsed.has_value();
}

// The entry's setting `name` into `key`: false when its type or value is wrong. An unknown
// name is the caller's to refuse.
bool read_setting(const std::string& name, toml::node& value, api::ApiKey& key) {
  if (name == "key") {
    // Digested where toml++ holds it, then wiped there: no copy of the key is made.
    toml::value<std::string>* text = value.as_string();
    if (text == nullptr) return false;
    if (text->get().empty()) return true;  // refused below: the entry needs a key
    key.digest = api::KeyDigest::of(text->get());
    api::wipe(text->get());
    return true;
  }
  if (name == "tenant") return toml_value(value, key.tenant);
  if (name == "role") return read_named(value, api::parse_key_role, key.role);
  if (name == "priority") return read_named(value, sched::parse_priority, key.priority);
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
  for (const char* known : {"key", "tenant", "role", "priority", "weight", "requests_per_second",
                            "burst", "tokens_per_minute"}) {
    if (name == known) return true;
  }
  return false;
}

// One [[api_keys]] table, checked against the keys before it.
Result<api::ApiKey> read_entry(toml::node& entry, const std::string& file,
                               const std::vector<api::ApiKey>& earlier) {
  const int line = static_cast<int>(entry.source().begin.line);
  toml::table* table = entry.as_table();
  if (table == nullptr)
    return Error::invalid(fmt::format("{}:{}: each api_keys entry must be a table", file, line));
  api::ApiKey key;
  for (auto&& [name, value] : *table) {
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
  if (key.digest.empty())
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
    if (other.digest.matches(key.digest)) {
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
  toml::table& table = *parsed;
  std::vector<api::ApiKey> keys;
  toml::node* node = table.get("api_keys");
  if (node == nullptr) return keys;
  toml::array* array = node->as_array();
  if (array == nullptr) {
    return Error::invalid(fmt::format("{}:{}: api_keys must be an array of tables ([[api_keys]])",
                                      file, node->source().begin.line));
  }
  for (toml::node& entry : *array) {
    auto key = read_entry(entry, file, keys);
    if (!key) return key.error();
    keys.push_back(std::move(key).value());
  }
  return keys;
}

}  // namespace supportd::app
