// The model versions' figures in /metrics (see router_metrics.h).
#include "engine/router/router_metrics.h"

#include <string>

namespace supportd::engine::router {
namespace {

// A family of gauges labelled by version (and quantile, when `quantiles`).
obs::Family<obs::Gauge>& family(obs::Registry& registry, const std::string& name,
                                const std::string& help, bool quantiles = false) {
  return quantiles ? registry.gauge(name, help, {"version", "quantile"})
                   : registry.gauge(name, help, {"version"});
}

void set_quantiles(obs::Family<obs::Gauge>& gauges, const std::string& version, double p50_ms,
                   double p99_ms) {
  gauges.with({version, "0.5"}).set(p50_ms / 1000.0);
  gauges.with({version, "0.99"}).set(p99_ms / 1000.0);
}

}  // namespace

void expose_router_metrics(obs::Registry& registry, const RouterEngine& router) {
  auto& requests = family(registry, "supportd_version_requests_total",
                          "Requests given to each model version (refused ones too)");
  auto& errors = family(registry, "supportd_version_errors_total",
                        "Requests each model version ended with an error");
  auto& refusals = family(registry, "supportd_version_refusals_total",
                          "Requests each model version refused (queue full, deadline)");
  auto& in_flight =
      family(registry, "supportd_version_in_flight", "Requests in flight on each model version");
  auto& ready = family(registry, "supportd_version_ready",
                       "1 while a model version may take traffic, 0 otherwise");
  auto& ttft = family(registry, "supportd_version_ttft_seconds",
                      "Time to first token per model version, from the router's submit", true);
  auto& itl = family(registry, "supportd_version_itl_seconds",
                     "Time between two pieces of text per model version", true);
  auto& e2e = family(registry, "supportd_version_e2e_seconds",
                     "Whole request time per model version, from the router's submit", true);
  auto& copies = family(registry, "supportd_shadow_copies_total",
                        "Requests copied to each shadow version and queued");
  auto& dropped = family(registry, "supportd_shadow_dropped_total",
                         "Copies dropped because the shadow queue was full");
  auto& expired = family(registry, "supportd_shadow_expired_total",
                         "Copies given up because they had not ended within --shadow-max-age");
  auto& shadow_errors =
      family(registry, "supportd_shadow_errors_total", "Shadow copies that failed or were refused");
  auto& compared = family(registry, "supportd_shadow_compared_total",
                          "Shadow answers compared with production's answer");
  auto& exact = family(registry, "supportd_shadow_exact_match_ratio",
                       "Share of compared shadow answers identical to production's");
  auto& overlap = family(registry, "supportd_shadow_token_overlap",
                         "Mean word overlap (F1) of compared shadow answers with production's");
  auto& shadow_ttft = family(registry, "supportd_shadow_ttft_seconds",
                             "Time to first token of shadow copies, from their start", true);
  auto& shadow_e2e = family(registry, "supportd_shadow_e2e_seconds",
                            "Whole time of shadow copies, from their start", true);
  registry.on_collect([&] {
    for (const VersionView& view : router.versions()) {
      const std::string& name = view.name;
      requests.with({name}).set(static_cast<double>(view.requests));
      errors.with({name}).set(static_cast<double>(view.errors));
      refusals.with({name}).set(static_cast<double>(view.refusals));
      in_flight.with({name}).set(view.in_flight);
      ready.with({name}).set(view.state == VersionState::kReady ? 1 : 0);
      set_quantiles(ttft, name, view.ttft_p50_ms, view.ttft_p99_ms);
      set_quantiles(itl, name, view.itl_p50_ms, view.itl_p99_ms);
      set_quantiles(e2e, name, view.e2e_p50_ms, view.e2e_p99_ms);
      const ShadowSummary& shadow = view.shadow;
      if (shadow.copies + shadow.dropped == 0) continue;  // never a shadow
      copies.with({name}).set(static_cast<double>(shadow.copies));
      dropped.with({name}).set(static_cast<double>(shadow.dropped));
      expired.with({name}).set(static_cast<double>(shadow.expired));
      shadow_errors.with({name}).set(static_cast<double>(shadow.errors));
      compared.with({name}).set(static_cast<double>(shadow.compared));
      exact.with({name}).set(shadow.exact_match_rate);
      overlap.with({name}).set(shadow.token_overlap);
      set_quantiles(shadow_ttft, name, shadow.ttft_p50_ms, shadow.ttft_p99_ms);
      set_quantiles(shadow_e2e, name, shadow.e2e_p50_ms, shadow.e2e_p99_ms);
    }
  });
}

}  // namespace supportd::engine::router
