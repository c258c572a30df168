// The detector's defaults and the NAME=VALUE settings that change them, checked by name.
#include "obs/anomaly/detector_options.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <functional>
#include <type_traits>
#include <variant>

namespace supportd::obs::anomaly {
namespace {

using Field = std::variant<std::size_t*, double*, bool*>;

struct Parameter {
  const char* name;
  const char* help;
  std::function<Field(DetectorOptions&)> field;
  double low, high;  // accepted range
};

const std::vector<Parameter>& parameters() {
  static const std::vector<Parameter> table = {
      {"shingle", "values in each feature vector: the current one and those before it",
       [](DetectorOptions& o) { return Field(&o.features.shingle); }, 1, 64},
      {"step", "1: the step from the previous value is a feature",
       [](DetectorOptions& o) { return Field(&o.features.step); }, 0, 1},
      {"mean-window", "> 1: the mean of this many last values is a feature",
       [](DetectorOptions& o) { return Field(&o.features.mean_window); }, 0, 100000},
      {"spread-window", "> 1: the mean absolute step over this many last values is a feature",
       [](DetectorOptions& o) { return Field(&o.features.spread_window); }, 0, 100000},
      {"trees", "isolation trees in the forest",
       [](DetectorOptions& o) { return Field(&o.forest.trees); }, 1, 1000},
      {"sample-size", "window points each tree is built on",
       [](DetectorOptions& o) { return Field(&o.forest.sample_size); }, 2, 1000000},
      {"height-limit", "depth of the trees",
       [](DetectorOptions& o) { return Field(&o.forest.height_limit); }, 1, 20},
      {"window", "recent points the trees are sampled from",
       [](DetectorOptions& o) { return Field(&o.forest.window); }, 2, 10000000},
      {"refresh-every", "points between replacing the oldest tree",
       [](DetectorOptions& o) { return Field(&o.forest.refresh_every); }, 1, 10000000},
      {"min-points", "points before the first tree is built (scores are 0 until then)",
       [](DetectorOptions& o) { return Field(&o.forest.min_points); }, 2, 10000000},
      {"likelihood", "1: score the anomaly likelihood of the forest's scores instead of them",
       [](DetectorOptions& o) { return Field(&o.likelihood_on); }, 0, 1},
      {"likelihood-history", "short means of forest scores the likelihood is estimated on",
       [](DetectorOptions& o) { return Field(&o.likelihood.history); }, 2, 10000000},
      {"likelihood-average", "forest scores in a short mean",
       [](DetectorOptions& o) { return Field(&o.likelihood.average); }, 1, 100000},
      {"likelihood-min-history", "short means needed before the likelihood scores",
       [](DetectorOptions& o) { return Field(&o.likelihood.min_history); }, 1, 10000000},
      {"likelihood-decades", "a tail probability of 10^-decades scores 1",
       [](DetectorOptions& o) { return Field(&o.likelihood.decades); }, 0.1, 300},
      {"onset-window",
       "a score not above every score of this many points before is damped "
       "(0: off)",
       [](DetectorOptions& o) { return Field(&o.onset.window); }, 0, 10000000},
      {"onset-damping", "the factor of a damped score",
       [](DetectorOptions& o) { return Field(&o.onset.damping); }, 0, 1},
      {"seed", "seed of the trees' random choices",
       [](DetectorOptions& o) { return Field(&o.seed); }, 0, 9007199254740992.0},
  };
  return table;
}

std::string format_field(const Field& field) {
  return std::visit(
      [](auto* value) -> std::string {
        if constexpr (std::is_same_v<std::remove_pointer_t<decltype(value)>, bool>) {
          return *value ? "1" : "0";
        } else {
          return fmt::format("{}", *value);
        }
      },
      field);
}

}  // namespace

std::vector<OptionInfo> describe_options(const DetectorOptions& options) {
  DetectorOptions copy = options;
  std::vector<OptionInfo> list;
  for (const Parameter& parameter : parameters())
    list.push_back({parameter.name, parameter.help, format_field(parameter.field(copy))});
  return list;
}

Status set_option(DetectorOptions& options, std::string_view name, std::string_view value) {
  for (const Parameter& parameter : parameters()) {
    if (name != parameter.name) continue;
    double number = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
    const Field field = parameter.field(options);
    const bool whole = !std::holds_alternative<double*>(field);
    if (error != std::errc() || end != value.data() + value.size() || !std::isfinite(number) ||
        number < parameter.low || number > parameter.high ||
        (whole && number != std::floor(number))) {
      return Error::invalid(fmt::format("{}: \"{}\" is not a {} from {} to {}", name,
                                        std::string(value), whole ? "whole number" : "number",
                                        parameter.low, parameter.high));
    }
    std::visit(
        [number](auto* target) {
          *target = static_cast<std::remove_pointer_t<decltype(target)>>(number);
        },
        field);
    return {};
  }
  return Error::invalid(fmt::format("unknown detector parameter \"{}\"", std::string(name)));
}

Status apply_setting(DetectorOptions& options, std::string_view setting) {
  const auto equals = setting.find('=');
  if (equals == std::string_view::npos) {
    return Error::invalid(fmt::format("{}: expected NAME=VALUE", std::string(setting)));
  }
  return set_option(options, setting.substr(0, equals), setting.substr(equals + 1));
}

}  // namespace supportd::obs::anomaly
