// A request body as one JSON object, with errors that say where and what (see json_body.h).
#include "api/json_body.h"

#include <fmt/format.h>
#include <boost/json/error.hpp>
#include <boost/json/stream_parser.hpp>

#include "core/utf8.h"

namespace supportd::api {

Result<boost::json::object> parse_json_object(std::string_view text, bool empty_is_object) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    if (empty_is_object) return boost::json::object{};
    return Error::invalid("request body is empty: send a JSON object");
  }
  if (const std::size_t at = first_invalid_utf8(text); at != text.size()) {
    return Error::invalid(fmt::format("request body is not valid UTF-8 (byte {})", at));
  }
  boost::json::parse_options options;
  options.max_depth = kMaxJsonDepth;
  boost::json::stream_parser parser({}, options);
  boost::system::error_code ec;
  const std::size_t consumed = parser.write(text.data(), text.size(), ec);
  if (!ec) parser.finish(ec);
  if (ec) {
    if (ec == boost::json::error::too_deep) {
      return Error::invalid(fmt::format("request body nests deeper than {} levels (byte {})",
                                        kMaxJsonDepth, consumed));
    }
    if (ec == boost::json::error::incomplete) {
      return Error::invalid("request body is not valid JSON: it ends before the JSON does");
    }
    return Error::invalid(
        fmt::format("request body is not valid JSON at byte {}: {}", consumed, ec.message()));
  }
  boost::json::value value = parser.release();
  if (!value.is_object()) return Error::invalid("request body must be a JSON object");
  return std::move(value.as_object());
}

}  // namespace supportd::api
