// Distributions of workload quantities (prompt and output lengths, think times), parsed from
// the command line and sampled with a caller-owned random engine so runs repeat for a seed.
// Thread-safety: immutable after parse; sample() touches only the engine passed in.
#pragma once

#include <random>
#include <string>

#include "core/status.h"

namespace supportd::bench {

class Distribution {
 public:
  enum class Shape { kFixed, kUniform, kNormal, kExponential };

  // A constant (the default distribution is "fixed 0").
  static Distribution fixed(double value);

  // Parses "N" or "fixed:N", "uniform:A-B" (inclusive), "normal:MEAN,STD" (clamped to the
  // minimum) or "exp:MEAN". Errors (kInvalidArgument) name `flag` and show the accepted forms;
  // values below `minimum` are refused.
  static Result<Distribution> parse(const std::string& text, const std::string& flag,
                                    double minimum);

  // One value, never below the minimum given to parse().
  double sample(std::mt19937_64& random) const;
  // A whole number (rounded), never below the minimum given to parse().
  int sample_int(std::mt19937_64& random) const;

  // The expected value before clamping, e.g. for sizing.
  double mean() const;
  // The canonical text form, which parse() accepts again: "256", "uniform:30-80", ...
  std::string describe() const;
  Shape shape() const { return shape_; }

 private:
  Shape shape_ = Shape::kFixed;
  double a_ = 0;  // fixed value, lower bound, mean
  double b_ = 0;  // upper bound, standard deviation
  double minimum_ = 0;
};

}  // namespace supportd::bench
