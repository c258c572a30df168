// Field access into a JSON object that names the file and the key in its errors, for the
// knowledge-base files (manifest.json, entries.jsonl). Thread-safe (reads a const object).
#pragma once

#include <boost/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "core/status.h"

namespace supportd::kb {

class JsonReader {
 public:
  JsonReader(const boost::json::object& object, std::string where)
      : object_(&object), where_(std::move(where)) {}

  const boost::json::value* find(std::string_view key) const { return object_->if_contains(key); }

  Result<double> number(std::string_view key) const {
    const boost::json::value* value = find(key);
    if (value == nullptr || !value->is_number()) return missing(key, "a number");
    return value->to_number<double>();
  }
  Result<int> integer(std::string_view key) const {
    const boost::json::value* value = find(key);
    if (value == nullptr || !value->is_int64() || !std::in_range<int>(value->get_int64())) {
      return missing(key, "an integer within range");  // never converted out of range
    }
    return static_cast<int>(value->get_int64());
  }
  Result<std::int64_t> integer64(std::string_view key) const {
    const boost::json::value* value = find(key);
    if (value == nullptr || !value->is_int64()) return missing(key, "a 64-bit integer");
    return value->as_int64();
  }
  Result<bool> boolean(std::string_view key) const {
    const boost::json::value* value = find(key);
    if (value == nullptr || !value->is_bool()) return missing(key, "true or false");
    return value->as_bool();
  }
  Result<std::string> string(std::string_view key) const {
    const boost::json::value* value = find(key);
    if (value == nullptr || !value->is_string()) return missing(key, "a string");
    return std::string(value->as_string());
  }
  Result<JsonReader> object(std::string_view key) const {
    const boost::json::value* value = find(key);
    if (value == nullptr || !value->is_object()) return missing(key, "an object");
    return JsonReader(value->as_object(), where_ + "." + std::string(key));
  }
  Result<const boost::json::array*> array(std::string_view key) const {
    const boost::json::value* value = find(key);
    if (value == nullptr || !value->is_array()) return missing(key, "an array");
    return &value->as_array();
  }
  const std::string& where() const { return where_; }

 private:
  Error missing(std::string_view key, const char* what) const {
    return Error::make(ErrorCode::kCorrupt,
                       where_ + ": '" + std::string(key) + "' is missing or not " + what);
  }

  const boost::json::object* object_;
  std::string where_;
};

// Unwraps a Result into `target` or returns its error from the enclosing function.
#define KB_READ(target, expression)                 \
  do {                                              \
    auto read_result_ = (expression);               \
    if (!read_result_) return read_result_.error(); \
    target = std::move(*read_result_);              \
  } while (false)

}  // namespace supportd::kb
