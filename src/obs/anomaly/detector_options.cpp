#include "obs/anomaly/detector_options.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <functional>
#include <variant>

namespace supportd::obs::anomaly {
namespace {

using Field = std::variant<std::size_t*, double*, bool*>;

struct Parameter {
  const char* name;
  const char* help;
  std::function<Field(DetectorOptions&)> field;
  double low, high;  // accepted range of numbers
};

const std::vector<Parameter>& parameters() {
  static const std::vector<Parameter> table = {
      {"shingle", "values in each feature vector (the current one and those before it)",
       [](DetectorOptions& o) { return Field(&o.features.shingle); }, 1, 64},
      {"step", "1: the step from the previous value is a feature",
       [](DetectorOptions& o) { return Field(&o.features.step); }, 0, 1},
      {"mean-window", "> 1: the mean of this many last values is a feature",
       [](DetectorOptions& o) { return Field(&o.features.mean_window); }, 0, 10000},
      {"spread-window", "> 1: the mean absolute step over this many last values is a feature",
       [](DetectorOptions& o) { return Field(&o.features.spread_window); }, 0, 10000},
      {"trees", "isolation trees in the forest",
       [](DetectorOptions& o) { return Field(&o.forest.trees); }, 1, 1000},
      {"sample-size", "points each tree is built on",
       [](DetectorOptions& o) { return Field(&o.forest.sample_size); }, 2, 4096},
      {"window", "recent points the trees are sampled from",
       [](DetectorOptions& o) { return Field(&o.forest.window); }, 2, 1000000},
      {"refresh-every", "points between replacing the oldest tree",
       [](DetectorOptions& o) { return Field(&o.forest.refresh_every); }, 1, 1000000},
      {"height-limit", "depth of the trees (0: log2 of the sample size)",
       [](DetectorOptions& o) { return Field(&o.forest.height_limit); }, 0, 64},
      {"min-points", "points before the first tree is built",
       [](DetectorOptions& o) { return Field(&o.forest.min_points); }, 2, 1000000},
      {"calibration", "0: the raw score; 1: the anomaly likelihood; 2: the tail probability",
       [](DetectorOptions& o) { return Field(&o.calibration); }, 0, 2},
      {"tail-history", "raw scores the tail probability is estimated on",
       [](DetectorOptions& o) { return Field(&o.tail.history); }, 2, 1000000},
      {"tail-share", "share of the history in the exponential tail",
       [](DetectorOptions& o) { return Field(&o.tail.tail_share); }, 0.001, 0.5},
      {"tail-min-history", "raw scores needed before the tail probability scores",
       [](DetectorOptions& o) { return Field(&o.tail.min_history); }, 2, 1000000},
      {"tail-decades", "tail probability 10^-decades scores 1",
       [](DetectorOptions& o) { return Field(&o.tail.decades); }, 0.1, 300},
      {"likelihood-history", "short means of raw scores the likelihood is estimated on",
       [](DetectorOptions& o) { return Field(&o.likelihood.history); }, 2, 1000000},
      {"likelihood-average", "raw scores in a short mean",
       [](DetectorOptions& o) { return Field(&o.likelihood.average); }, 1, 10000},
      {"likelihood-min-history", "short means needed before the likelihood scores",
       [](DetectorOptions& o) { return Field(&o.likelihood.min_history); }, 1, 1000000},
      {"likelihood-decades", "tail probability 10^-decades scores 1",
       [](DetectorOptions& o) { return Field(&o.likelihood.decades); }, 0.1, 300},
      {"raw-average", "raw scores averaged into the score (the last ones)",
       [](DetectorOptions& o) { return Field(&o.raw_average); }, 1, 10000},
      {"recent", "> 0: a score not above all of this many before it is damped",
       [](DetectorOptions& o) { return Field(&o.recent); }, 0, 1000000},
      {"recent-fades", "1: a recent score's excess over 0.5 fades linearly with its age",
       [](DetectorOptions& o) { return Field(&o.recent_fades); }, 0, 1},
      {"damping", "factor of damped scores", [](DetectorOptions& o) { return Field(&o.damping); },
       0, 1},
      {"seed", "seed of the trees' random choices",
       [](DetectorOptions& o) { return Field(&o.seed); }, 0, 1.8e19},
  };
  return table;
}

std::string format_field(const Field& field) {
  return std::visit(
      [](auto* value) -> std::string {
        using T = std::remove_pointer_t<decltype(value)>;
        if constexpr (std::is_same_v<T, bool>) {
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
    if (error != std::errc() || end != value.data() + value.size() || !std::isfinite(number) ||
        number < parameter.low || number > parameter.high) {
      return Error::invalid(fmt::format("{}: \"{}\" is not a number from {} to {}", name,
                                        std::string(value), parameter.low, parameter.high));
    }
    const Field field = parameter.field(options);
    if (!std::holds_alternative<double*>(field) && number != std::floor(number))
      return Error::invalid(
          fmt::format("{}: \"{}\" is not a whole number", name, std::string(value)));
    std::visit(
        [number](auto* target) {
          *target = static_cast<std::remove_pointer_t<decltype(target)>>(number);
        },
        field);
    return {};
  }
  return Error::invalid(fmt::format("unknown detector parameter \"{}\"", std::string(name)));
}

}  // namespace supportd::obs::anomaly
