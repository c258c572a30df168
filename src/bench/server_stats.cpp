// Reading the server's queue (server_stats.h) from supportd's /v1/stats JSON or from Prometheus
// text (llama-server's and vLLM's gauges).
#include "bench/server_stats.h"

#include <boost/json.hpp>

#include <charconv>
#include <cmath>
#include <string>

#include "sched/priority.h"

namespace supportd::bench {

namespace json = boost::json;

namespace {

double number(const json::value* v) {
  if (v == nullptr) return -1;
  if (v->is_int64()) return static_cast<double>(v->as_int64());
  if (v->is_uint64()) return static_cast<double>(v->as_uint64());
  if (v->is_double()) return v->as_double();
  return -1;
}

}  // namespace

std::optional<ServerSample> parse_supportd_stats(std::string_view body) {
  boost::system::error_code ec;
  const json::value stats = json::parse(body, ec);
  if (ec || !stats.is_object()) return std::nullopt;
  const json::value* engine = stats.as_object().if_contains("engine");
  if (engine == nullptr || !engine->is_object()) return std::nullopt;
  ServerSample sample;
  sample.waiting = number(engine->as_object().if_contains("waiting"));
  sample.running = number(engine->as_object().if_contains("running"));
  if (const json::value* classes = stats.as_object().if_contains("classes");
      classes && classes->is_object()) {
    for (int c = 0; c < kClassCount; ++c) {
      const json::value* entry =
          classes->as_object().if_contains(sched::priority_name(static_cast<sched::Priority>(c)));
      if (entry && entry->is_object())
        sample.class_waiting[c] = number(entry->as_object().if_contains("waiting"));
    }
  }
  return sample;
}

std::optional<MetricsSample> parse_prometheus_queue(std::string_view text) {
  struct Gauge {
    std::string_view name;
    const char* kind;
    bool waiting;
  };
  constexpr Gauge kGauges[] = {{"llamacpp:requests_deferred", "llama.cpp", true},
                               {"llamacpp:requests_processing", "llama.cpp", false},
                               {"vllm:num_requests_waiting", "vllm", true},
                               {"vllm:num_requests_running", "vllm", false}};
  MetricsSample result;
  bool found = false;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (line.empty() || line.front() == '#') continue;
    for (const Gauge& gauge : kGauges) {
      if (!line.starts_with(gauge.name)) continue;
      std::string_view rest = line.substr(gauge.name.size());
      if (!rest.empty() && rest.front() == '{') {
        const std::size_t close = rest.find('}');
        if (close == std::string_view::npos) continue;
        rest = rest.substr(close + 1);
      } else if (rest.empty() || rest.front() != ' ') {
        continue;  // a longer name that starts with this one
      }
      while (!rest.empty() && rest.front() == ' ')
        rest.remove_prefix(1);
      rest = rest.substr(0, rest.find(' '));  // drop an optional timestamp
      double value = 0;
      const auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), value);
      if (ec != std::errc() || !std::isfinite(value)) continue;
      double& slot = gauge.waiting ? result.sample.waiting : result.sample.running;
      slot = (slot < 0 ? 0 : slot) + value;
      result.server_kind = gauge.kind;
      found = true;
    }
  }
  if (!found) return std::nullopt;
  return result;
}

}  // namespace supportd::bench
