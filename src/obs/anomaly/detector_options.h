// The detector's parameters, with the defaults every signal and every file is scored with
// (chosen on NAB; bench/nab/README.md has the measurements), and their names for the command
// line (`supportd anomaly score --set NAME=VALUE`, nab_ablation).
// Thread-safety: plain data and pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "obs/anomaly/anomaly_likelihood.h"
#include "obs/anomaly/feature_shaper.h"
#include "obs/anomaly/onset_filter.h"
#include "obs/anomaly/streaming_forest.h"

namespace supportd::obs::anomaly {

struct DetectorOptions {
  FeatureOptions features;
  ForestOptions forest;
  bool likelihood_on = false;  // true: the anomaly likelihood of the forest's scores is scored
  LikelihoodOptions likelihood;
  OnsetOptions onset;
  std::size_t seed = 1;
};

struct OptionInfo {
  std::string name;
  std::string help;
  std::string value;  // the value in the options described, as text
};

// Every parameter with its value in `options`.
std::vector<OptionInfo> describe_options(const DetectorOptions& options);

// Sets the parameter `name` from `value`. Fails (kInvalidArgument) on an unknown name or a
// value that is not a number in the parameter's range (a whole number where one is needed).
Status set_option(DetectorOptions& options, std::string_view name, std::string_view value);

// The same from "NAME=VALUE"; fails also when there is no '='.
Status apply_setting(DetectorOptions& options, std::string_view setting);

}  // namespace supportd::obs::anomaly
