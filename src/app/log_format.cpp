// serve's log line formats, text and JSON, with the current request's ids (see log_format.h).
#include "app/log_format.h"

#include <chrono>
#include <ctime>

#include <fmt/format.h>
#include <spdlog/details/os.h>
#include <spdlog/spdlog.h>
#include <boost/json.hpp>

#include "filter/pii_log_formatter.h"
#include "filter/pii_masker.h"
#include "obs/trace/current.h"

namespace supportd::app {
namespace {

namespace trace = obs::trace;

std::string_view payload(const spdlog::details::log_msg& message) {
  return {message.payload.data(), message.payload.size()};
}

// "2026-12-04T17:02:02.123Z".
std::string utc_time(std::chrono::system_clock::time_point at) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(at.time_since_epoch());
  const std::time_t seconds = static_cast<std::time_t>(ms.count() / 1000);
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &parts);
  return fmt::format("{}.{:03}Z", text, ms.count() % 1000);
}

// spdlog's default line, its message masked as the JSON line's is, with the request's ids
// before its end of line.
class TextFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& message, spdlog::memory_buf_t& out) override {
    inner_.format(message, out);
    const trace::Current& current = trace::current();
    if (current.trace == nullptr) return;
    const std::string_view eol = spdlog::details::os::default_eol;
    if (out.size() >= eol.size()) out.resize(out.size() - eol.size());
    fmt::format_to(std::back_inserter(out), " [trace {} request {}]{}",
                   current.trace->trace_id().hex(), current.trace->request_id(), eol);
  }
  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<TextFormatter>();
  }

 private:
  filter::PiiMaskingFormatter inner_;  // spdlog's default pattern over the masked message
};

class JsonFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& message, spdlog::memory_buf_t& out) override {
    boost::json::object line;
    line["time"] = utc_time(message.time);
    const auto level = spdlog::level::to_string_view(message.level);
    line["level"] = std::string_view(level.data(), level.size());
    line["message"] = filter::mask_pii(payload(message));
    if (message.logger_name.size() > 0)
      line["logger"] = std::string_view(message.logger_name.data(), message.logger_name.size());
    const trace::Current& current = trace::current();
    if (const trace::RequestTrace* request = current.trace) {
      line["trace_id"] = request->trace_id().hex();
      line["span_id"] = (current.span.empty() ? request->root_id() : current.span).hex();
      line["request_id"] = request->request_id();
      if (std::string tenant = request->tenant(); !tenant.empty()) line["tenant"] = tenant;
      if (std::string route = request->route(); !route.empty()) line["route"] = route;
    }
    const std::string text = boost::json::serialize(line);
    out.append(text.data(), text.data() + text.size());
    out.push_back('\n');
  }
  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<JsonFormatter>();
  }
};

}  // namespace

std::unique_ptr<spdlog::formatter> make_log_formatter(LogFormat format) {
  if (format == LogFormat::kJson) return std::make_unique<JsonFormatter>();
  return std::make_unique<TextFormatter>();
}

void use_log_format(LogFormat format) {
  spdlog::set_formatter(make_log_formatter(format));
}

}  // namespace supportd::app
