// The desk's part of /v1/stats (see desk_stats.h), built from DeskMetrics::figures and the
// waiting lists.
#include "api/desk_stats.h"

#include <boost/json.hpp>

#include "desk/desk.h"
#include "obs/histogram_quantile.h"

namespace supportd::api {
namespace json = boost::json;
namespace {

json::object counts_json(const std::map<std::string, double>& counts) {
  json::object out;
  for (const auto& [label, value] : counts)
    out[label] = static_cast<std::int64_t>(value);
  return out;
}

std::int64_t total(const std::map<std::string, double>& counts) {
  double sum = 0;
  for (const auto& [label, value] : counts)
    sum += value;
  return static_cast<std::int64_t>(sum);
}

// count, mean and how many gave each score (the histogram has one bucket per score).
json::object csat_json(const obs::Histogram::Snapshot& h) {
  json::object scores;
  std::uint64_t below = 0;
  for (std::size_t i = 0; i < h.upper_bounds.size(); ++i) {
    scores[std::to_string(static_cast<int>(h.upper_bounds[i]))] = h.cumulative[i] - below;
    below = h.cumulative[i];
  }
  json::value mean = nullptr;
  if (h.count > 0) mean = h.sum / static_cast<double>(h.count);
  return {{"count", h.count}, {"mean", mean}, {"scores", std::move(scores)}};
}

json::object stage_json(const obs::Histogram::Snapshot& h) {
  const double mean = h.count > 0 ? h.sum / static_cast<double>(h.count) : 0;
  return {{"count", h.count},
          {"p50_ms", obs::histogram_quantile(h, 0.5) * 1e3},
          {"p90_ms", obs::histogram_quantile(h, 0.9) * 1e3},
          {"p99_ms", obs::histogram_quantile(h, 0.99) * 1e3},
          {"mean_ms", mean * 1e3}};
}

}  // namespace

json::object desk_stats(desk::Desk& desk, const std::vector<std::string>& tenants) {
  const desk::DeskFigures f = desk.metrics().figures();
  json::object stages;
  for (const auto& [name, h] : f.stages)
    stages[name] = stage_json(h);

  std::int64_t waiting = 0;
  bool partial = false;
  bool capped = false;
  for (const std::string& tenant : tenants) {
    auto list = desk.waiting(tenant, store::kMaxWaitingListed);
    if (!list) {
      partial = true;
      continue;
    }
    waiting += static_cast<std::int64_t>(list->conversations.size());
    partial = partial || list->partial;
    capped = capped || list->conversations.size() >= store::kMaxWaitingListed;
  }

  // The A/B figures: per model version, what the answers it generated were and how its
  // conversations ended.
  json::object versions;
  for (const auto& [name, version] : f.versions) {
    versions[name] = json::object{{"answers", counts_json(version.answers)},
                                  {"answers_total", total(version.answers)},
                                  {"handoffs", static_cast<std::int64_t>(version.handoffs)},
                                  {"csat", csat_json(version.csat)}};
  }
  return {{"answers", counts_json(f.answers)},   {"answers_total", total(f.answers)},
          {"handoffs", counts_json(f.handoffs)}, {"handoffs_total", total(f.handoffs)},
          {"feedback", counts_json(f.feedback)}, {"refused_input", counts_json(f.refused)},
          {"csat", csat_json(f.csat)},           {"waiting_for_human", waiting},
          {"waiting_partial", partial},          {"waiting_capped", capped},
          {"stages", std::move(stages)},         {"versions", std::move(versions)}};
}

}  // namespace supportd::api
