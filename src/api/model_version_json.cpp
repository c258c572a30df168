// Model versions and splits as JSON (see model_version_json.h).
#include "api/model_version_json.h"

#include <boost/json.hpp>

namespace supportd::api {
namespace {

namespace json = boost::json;
namespace router = engine::router;

json::object shadow_json(const router::ShadowSummary& shadow) {
  return {{"copies", shadow.copies},
          {"dropped", shadow.dropped},
          {"expired", shadow.expired},
          {"errors", shadow.errors},
          {"completed", shadow.completed},
          {"compared", shadow.compared},
          {"exact_match_rate", shadow.exact_match_rate},
          {"token_overlap", shadow.token_overlap},
          {"ttft_p50_ms", shadow.ttft_p50_ms},
          {"ttft_p99_ms", shadow.ttft_p99_ms},
          {"e2e_p50_ms", shadow.e2e_p50_ms},
          {"e2e_p99_ms", shadow.e2e_p99_ms}};
}

}  // namespace

json::object split_json(const router::Split& split) {
  json::object weights;
  for (const router::Share& share : split.shares)
    weights[share.version] = share.weight;
  json::object object{{"weights", std::move(weights)}, {"sticky", split.sticky}};
  if (split.shadow) {
    object["shadow"] =
        json::object{{"version", split.shadow->version}, {"percent", split.shadow->percent}};
  }
  return object;
}

json::object version_figures_json(const router::VersionView& view) {
  return {{"name", view.name},
          {"state", router::version_state_name(view.state)},
          {"in_flight", view.in_flight},
          {"requests", view.requests},
          {"errors", view.errors},
          {"refusals", view.refusals},
          {"ttft_p50_ms", view.ttft_p50_ms},
          {"ttft_p99_ms", view.ttft_p99_ms},
          {"itl_p50_ms", view.itl_p50_ms},
          {"itl_p99_ms", view.itl_p99_ms},
          {"e2e_p50_ms", view.e2e_p50_ms},
          {"e2e_p99_ms", view.e2e_p99_ms},
          {"shadow", shadow_json(view.shadow)}};
}

json::object version_figures_json(const router::VersionView& view,
                                  const std::map<std::string, router::Split>& routes) {
  json::object traffic;
  json::object shadowed;
  for (const auto& [deployment, split] : routes) {
    for (const router::Share& share : split.shares) {
      if (share.version == view.name && share.weight > 0) traffic[deployment] = share.weight;
    }
    if (split.shadow && split.shadow->version == view.name)
      shadowed[deployment] = split.shadow->percent;
  }
  json::object object = version_figures_json(view);
  object["traffic_percent"] = std::move(traffic);
  object["shadow_percent"] = std::move(shadowed);
  return object;
}

json::object version_json(const router::VersionView& view,
                          const std::map<std::string, router::Split>& routes) {
  json::object object = version_figures_json(view, routes);
  object["reason"] = view.reason;
  object["path"] = view.facts.path;
  object["sha256"] = view.facts.sha256;
  object["expected_sha256"] = view.facts.expected_sha256;
  object["bytes"] = view.facts.bytes;
  object["architecture"] = view.facts.architecture;
  object["quantization"] = view.facts.quantization;
  object["chat_template_sha256"] = view.facts.chat_template_sha256;
  object["load_ms"] = view.load_ms;
  object["warmup_ms"] = view.warmup_ms;
  return object;
}

}  // namespace supportd::api
