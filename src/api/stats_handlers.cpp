// /v1/stats and /metrics (see stats_handlers.h).
#include "api/stats_handlers.h"

#include <boost/json.hpp>

#include <ctime>

#include "api/access.h"
#include "api/desk_stats.h"
#include "api/model_version_json.h"
#include "api/serving_metrics.h"
#include "obs/anomaly/signal_monitor.h"
#include "obs/metrics.h"

namespace supportd::api {
namespace {

// The tenants this server knows: those of its API keys, or "anonymous" without keys.
std::vector<std::string> known_tenants(const Services& services) {
  std::vector<std::string> tenants;
  if (services.access != nullptr) {
    for (const auto& [tenant, weight] : services.access->tenant_weights())
      tenants.push_back(tenant);
  }
  if (tenants.empty()) tenants.push_back("anonymous");
  return tenants;
}

// A wall-clock time as RFC 3339 in UTC, to the second.
std::string utc_text(obs::anomaly::WallClock::time_point time) {
  const std::time_t seconds = obs::anomaly::WallClock::to_time_t(time);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

boost::json::object alert_json(const obs::anomaly::AlertRecord& alert) {
  boost::json::array values;
  for (double value : alert.values)
    values.push_back(value);
  boost::json::object object{
      {"alert", alert.signal},
      {"signal", alert.signal},
      {"active", alert.active},
      {"since", utc_text(alert.since)},
      {"raised_by", {{"value", alert.raising_value}, {"score", alert.raising_score}}},
      {"peak_score", alert.peak_score},
      {"readings", alert.readings},
      {"values", std::move(values)}};
  if (!alert.active) object["ended"] = utc_text(alert.ended);
  return object;
}

}  // namespace

http::Response stats(Services& services, http::Request&) {
  if (services.metrics == nullptr) {
    return http::error_response(404, "metrics are not enabled", "invalid_request_error",
                                "not_found");
  }
  boost::json::object document = services.metrics->stats_object();
  if (services.desk != nullptr)
    document["desk"] = desk_stats(*services.desk, known_tenants(services));
  if (services.router != nullptr) {
    boost::json::array versions;
    const auto routes = services.router->routes();
    for (const auto& view : services.router->versions())
      versions.push_back(version_figures_json(view, routes));
    document["versions"] = std::move(versions);
  }
  return http::Response::json(200, boost::json::serialize(document));
}

http::Response metrics(Services& services, http::Request&) {
  if (services.metrics == nullptr) {
    return http::error_response(404, "metrics are not enabled", "invalid_request_error",
                                "not_found");
  }
  return http::Response::text(200, services.metrics->registry().expose(),
                              "text/plain; version=0.0.4; charset=utf-8");
}

http::Response alerts(Services& services, http::Request&) {
  if (services.anomaly == nullptr) {
    return http::error_response(404, "anomaly detection is off (--anomaly off)",
                                "invalid_request_error", "not_found");
  }
  const obs::anomaly::AnomalyMonitor& monitor = *services.anomaly;
  boost::json::array active, ended, signals;
  for (const auto& alert : monitor.active())
    active.push_back(alert_json(alert));
  for (const auto& alert : monitor.ended())
    ended.push_back(alert_json(alert));
  for (const auto& state : monitor.signals()) {
    signals.push_back(boost::json::object{{"signal", state.signal},
                                          {"value", state.value},
                                          {"score", state.reading.score},
                                          {"level", state.reading.level},
                                          {"learning", state.reading.learning},
                                          {"alert_active", state.alert_active}});
  }
  const auto& options = monitor.options().alert;
  boost::json::object document{
      {"active", std::move(active)},
      {"recent", std::move(ended)},
      {"signals", std::move(signals)},
      {"thresholds",
       {{"raise", options.raise}, {"clear", options.clear}, {"clear_after", options.clear_after}}}};
  return http::Response::json(200, boost::json::serialize(document));
}

}  // namespace supportd::api
