// A request body read as one JSON object, with errors that say where and what: the byte
// offset of a syntax error, the nesting limit, the first ill-formed UTF-8 byte.
// Thread-safety: a free function.
#pragma once

#include <string_view>

#include <boost/json/object.hpp>

#include "core/status.h"

namespace supportd::api {

// Objects nested deeper than this are refused (no OpenAI or desk request comes close).
inline constexpr std::size_t kMaxJsonDepth = 32;

// `text` as a JSON object. An empty (or all-whitespace) body is an error unless
// `empty_is_object`, when it reads as {}. Errors are invalid_argument with no param.
Result<boost::json::object> parse_json_object(std::string_view text, bool empty_is_object);

}  // namespace supportd::api
