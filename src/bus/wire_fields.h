// Reads the typed fields of one JSON object of the wire format (bus/wire.cpp), keeping the first
// problem, named ("work order: \"max_tokens\" must be an integer within range"): a field of the
// wrong type or out of its type's range makes the message bad; it is never converted.
// Thread-safety: an instance is used by one thread; it reads an object it does not own.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <fmt/format.h>
#include <boost/json.hpp>

#include "core/status.h"

namespace supportd::bus {

class FieldReader {
 public:
  FieldReader(const boost::json::object& object, std::string what)
      : object_(object), what_(std::move(what)) {}

  // An integer field takes an integer within T's range; a floating-point one any finite number
  // within T's range. Anything else is a bad message (converting it would be undefined).
  template <typename T>
  T number(std::string_view key, T fallback = T{}) {
    const boost::json::value* v = object_.if_contains(key);
    if (v == nullptr || v->is_null()) return fallback;
    if constexpr (std::is_integral_v<T>) {
      if (v->is_int64() && std::in_range<T>(v->get_int64())) return static_cast<T>(v->get_int64());
      if (v->is_uint64() && std::in_range<T>(v->get_uint64()))
        return static_cast<T>(v->get_uint64());
      fail(key, "an integer within range");
    } else {
      if (v->is_number()) {
        const double value = v->to_number<double>();
        if (std::isfinite(value) && std::fabs(value) <= std::numeric_limits<T>::max())
          return static_cast<T>(value);
      }
      fail(key, "a finite number");
    }
    return fallback;
  }
  std::optional<std::int64_t> optional_integer(std::string_view key) {
    const boost::json::value* v = object_.if_contains(key);
    if (v == nullptr || v->is_null()) return std::nullopt;
    if (v->is_int64()) return v->get_int64();
    // A uint64 is past int64's range (Boost.JSON parses what fits as int64): never wrapped.
    fail(key, v->is_uint64() ? "an integer within range" : "an integer");
    return std::nullopt;
  }
  bool boolean(std::string_view key) {
    const boost::json::value* v = object_.if_contains(key);
    if (v == nullptr || v->is_null()) return false;
    if (!v->is_bool()) fail(key, "true or false");
    return v->is_bool() && v->get_bool();
  }
  std::string text(std::string_view key) {
    const boost::json::value* v = object_.if_contains(key);
    if (v == nullptr || v->is_null()) return {};
    if (!v->is_string()) {
      fail(key, "a string");
      return {};
    }
    return std::string(v->get_string());
  }
  const boost::json::object* object(std::string_view key) {
    const boost::json::value* v = object_.if_contains(key);
    if (v == nullptr || v->is_null()) return nullptr;
    if (!v->is_object()) fail(key, "an object");
    return v->if_object();
  }
  const boost::json::array* array(std::string_view key) {
    const boost::json::value* v = object_.if_contains(key);
    if (v == nullptr || v->is_null()) return nullptr;
    if (!v->is_array()) fail(key, "an array");
    return v->if_array();
  }
  void fail(std::string_view key, std::string_view expected) {
    if (!problem_) problem_ = fmt::format("{}: \"{}\" must be {}", what_, key, expected);
  }
  void fail_value(std::string_view key, std::string_view value) {
    if (!problem_)
      problem_ = fmt::format("{}: \"{}\" has an unknown value '{}'", what_, key, value);
  }
  // Takes the first problem of a nested object's reader.
  void absorb(const FieldReader& inner) {
    if (!problem_ && inner.problem_) problem_ = inner.problem_;
  }
  Status status() const {
    if (problem_) return Error::make(ErrorCode::kCorrupt, *problem_);
    return {};
  }

 private:
  const boost::json::object& object_;
  std::string what_;
  std::optional<std::string> problem_;
};

}  // namespace supportd::bus
