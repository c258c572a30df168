// The detector's parameters, with the defaults every signal and every file uses, and their
// names for the command line (`supportd anomaly score --set NAME=VALUE`).
// Thread-safety: plain data and pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "obs/anomaly/anomaly_likelihood.h"
#include "obs/anomaly/feature_shaper.h"
#include "obs/anomaly/streaming_forest.h"
#include "obs/anomaly/tail_probability.h"

namespace supportd::obs::anomaly {

struct DetectorOptions {
  FeatureOptions features;
  ForestOptions forest;
  LikelihoodOptions likelihood;
  TailOptions tail;
  std::size_t calibration = 0;  // 0: the raw score; 1: the anomaly likelihood; 2: the tail
  std::size_t raw_average = 1;  // raw scores averaged (the last ones)
  std::size_t recent = 200;     // > 0: a score not above every score of this many points before is
  bool recent_fades = false;    // the recent scores' weight fades linearly with their age
  double damping = 0.5;         // multiplied by this
  std::size_t seed = 1;
};

struct OptionInfo {
  std::string name;
  std::string help;
  std::string value;  // the current value, as text
};

// Every parameter with its current value in `options`.
std::vector<OptionInfo> describe_options(const DetectorOptions& options);

// Sets the parameter `name` from `value`. Fails (kInvalidArgument) on an unknown name or a
// value that is not a number in the parameter's range.
Status set_option(DetectorOptions& options, std::string_view name, std::string_view value);

}  // namespace supportd::obs::anomaly
