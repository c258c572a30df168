// Workload distributions (distribution.h): N, uniform:A-B, normal:MEAN,STD or exp:MEAN parsed
// with errors naming the flag, sampled from the caller's engine, and described for reports.
#include "bench/distribution.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>

namespace supportd::bench {
namespace {

std::optional<double> number(std::string_view text) {
  while (!text.empty() && text.front() == ' ')
    text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ')
    text.remove_suffix(1);
  if (text.empty()) return std::nullopt;
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
    return std::nullopt;
  return value;
}

std::string trimmed(double value) {
  std::string text = fmt::format("{:.6f}", value);
  while (text.back() == '0')
    text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text;
}

}  // namespace

Distribution Distribution::fixed(double value) {
  Distribution d;
  d.a_ = value;
  d.minimum_ = std::min(0.0, value);
  return d;
}

Result<Distribution> Distribution::parse(const std::string& text, const std::string& flag,
                                         double minimum) {
  auto bad = [&](const std::string& why) {
    return Error::invalid(
        fmt::format("{} '{}': {}; use N, uniform:A-B, normal:MEAN,STD or exp:MEAN", flag, text,
                    why),
        flag);
  };
  Distribution d;
  d.minimum_ = minimum;
  const std::size_t colon = text.find(':');
  const std::string kind = colon == std::string::npos ? "fixed" : text.substr(0, colon);
  const std::string_view rest = colon == std::string::npos
                                    ? std::string_view(text)
                                    : std::string_view(text).substr(colon + 1);
  auto below = [&](double v) { return v < minimum; };
  if (kind == "fixed") {
    const auto v = number(rest);
    if (!v) return bad("not a number");
    if (below(*v)) return bad(fmt::format("must be at least {}", trimmed(minimum)));
    d.shape_ = Shape::kFixed;
    d.a_ = *v;
  } else if (kind == "uniform") {
    const std::size_t dash = rest.find('-', 1);
    if (dash == std::string_view::npos) return bad("uniform needs A-B");
    const auto low = number(rest.substr(0, dash));
    const auto high = number(rest.substr(dash + 1));
    if (!low || !high) return bad("uniform bounds must be numbers");
    if (*low > *high) return bad("uniform needs A <= B");
    if (below(*low)) return bad(fmt::format("must be at least {}", trimmed(minimum)));
    d.shape_ = Shape::kUniform;
    d.a_ = *low;
    d.b_ = *high;
  } else if (kind == "normal") {
    const std::size_t comma = rest.find(',');
    if (comma == std::string_view::npos) return bad("normal needs MEAN,STD");
    const auto mean = number(rest.substr(0, comma));
    const auto deviation = number(rest.substr(comma + 1));
    if (!mean || !deviation) return bad("normal parameters must be numbers");
    if (*deviation < 0) return bad("the standard deviation must not be negative");
    if (below(*mean)) return bad(fmt::format("the mean must be at least {}", trimmed(minimum)));
    d.shape_ = Shape::kNormal;
    d.a_ = *mean;
    d.b_ = *deviation;
  } else if (kind == "exp") {
    const auto mean = number(rest);
    if (!mean) return bad("exp needs a mean");
    if (*mean <= 0 || below(*mean)) return bad("the mean must be positive");
    d.shape_ = Shape::kExponential;
    d.a_ = *mean;
  } else {
    return bad("unknown distribution '" + kind + "'");
  }
  return d;
}

double Distribution::sample(std::mt19937_64& random) const {
  double value = a_;
  switch (shape_) {
    case Shape::kFixed: break;
    case Shape::kUniform: value = std::uniform_real_distribution<double>(a_, b_)(random); break;
    case Shape::kNormal:
      value = b_ > 0 ? std::normal_distribution<double>(a_, b_)(random) : a_;
      break;
    case Shape::kExponential:
      value = std::exponential_distribution<double>(1.0 / a_)(random);
      break;
  }
  return std::max(value, minimum_);
}

int Distribution::sample_int(std::mt19937_64& random) const {
  if (shape_ == Shape::kUniform) {
    // Whole bounds: every integer in [A, B] equally likely.
    const auto low = static_cast<long long>(std::ceil(a_));
    const auto high = static_cast<long long>(std::floor(b_));
    if (low <= high) {
      const long long v = std::uniform_int_distribution<long long>(low, high)(random);
      return static_cast<int>(std::max<double>(static_cast<double>(v), std::ceil(minimum_)));
    }
  }
  const double v = std::round(sample(random));
  return static_cast<int>(std::clamp(std::max(v, std::ceil(minimum_)), -2e9, 2e9));
}

double Distribution::mean() const {
  switch (shape_) {
    case Shape::kUniform: return (a_ + b_) / 2;
    default: return a_;
  }
}

std::string Distribution::describe() const {
  switch (shape_) {
    case Shape::kFixed: return trimmed(a_);
    case Shape::kUniform: return "uniform:" + trimmed(a_) + "-" + trimmed(b_);
    case Shape::kNormal: return "normal:" + trimmed(a_) + "," + trimmed(b_);
    case Shape::kExponential: return "exp:" + trimmed(a_);
  }
  return trimmed(a_);
}

}  // namespace supportd::bench
