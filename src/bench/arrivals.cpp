// Open-loop arrival times (arrivals.h): exponential gaps for a Poisson rate, or a trace file's
// lines read strictly (TIME_S[,PROMPT_TOKENS[,OUTPUT_TOKENS[,PRIORITY]]], errors naming file:line).
#include "bench/arrivals.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <fstream>

namespace supportd::bench {
namespace {

std::vector<std::string_view> fields(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ',' || line[i] == ' ' || line[i] == '\t'))
      ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ',' && line[i] != ' ' && line[i] != '\t')
      ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

template <typename T>
std::optional<T> parse_number(std::string_view text) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

Result<std::vector<Arrival>> read_trace(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error::make(ErrorCode::kNotFound, "cannot read the trace file " + path);
  std::vector<Arrival> arrivals;
  std::string line;
  int number = 0;
  bool first_content = true;
  double previous = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::string_view view(line);
    if (const std::size_t hash = view.find('#'); hash != std::string_view::npos)
      view = view.substr(0, hash);
    const auto parts = fields(view);
    if (parts.empty()) continue;
    const bool header =
        first_content && !parts[0].empty() && std::isalpha(static_cast<unsigned char>(parts[0][0]));
    first_content = false;
    if (header) continue;
    auto bad = [&](const std::string& why) {
      return Error::invalid(fmt::format("{}:{}: {} (expected TIME_S[,PROMPT_TOKENS[,OUTPUT_"
                                        "TOKENS[,PRIORITY]]])",
                                        path, number, why),
                            "trace");
    };
    if (parts.size() > 4) return bad("more than 4 fields");
    Arrival arrival;
    const auto time = parse_number<double>(parts[0]);
    if (!time || !std::isfinite(*time) || *time < 0)
      return bad("the time '" + std::string(parts[0]) + "' is not a number of seconds >= 0");
    if (*time < previous)
      return bad(fmt::format("the time {} is earlier than the line before ({})", *time, previous));
    previous = *time;
    arrival.time_s = *time;
    if (parts.size() > 1) {
      const auto tokens = parse_number<int>(parts[1]);
      if (!tokens || *tokens < 1)
        return bad("prompt tokens '" + std::string(parts[1]) + "' is not a positive integer");
      arrival.values.prompt_tokens = *tokens;
    }
    if (parts.size() > 2) {
      const auto tokens = parse_number<int>(parts[2]);
      if (!tokens || *tokens < 1)
        return bad("output tokens '" + std::string(parts[2]) + "' is not a positive integer");
      arrival.values.output_tokens = *tokens;
    }
    if (parts.size() > 3) {
      arrival.values.priority = sched::parse_priority(parts[3]);
      if (!arrival.values.priority)
        return bad("priority '" + std::string(parts[3]) + "' is not high, normal or low");
    }
    arrivals.push_back(arrival);
  }
  if (in.bad()) return Error::make(ErrorCode::kIo, "error reading the trace file " + path);
  if (arrivals.empty())
    return Error::invalid("the trace file " + path + " has no arrivals", "trace");
  return arrivals;
}

ArrivalSchedule ArrivalSchedule::poisson(double rate, std::uint64_t seed) {
  ArrivalSchedule schedule;
  schedule.rate_ = rate;
  schedule.random_.seed(seed ^ 0x3c6ef372fe94f82bULL);
  return schedule;
}

ArrivalSchedule ArrivalSchedule::trace(std::vector<Arrival> arrivals, double speed) {
  ArrivalSchedule schedule;
  for (Arrival& a : arrivals)
    a.time_s /= speed;
  schedule.trace_ = std::move(arrivals);
  return schedule;
}

std::optional<Arrival> ArrivalSchedule::next() {
  if (rate_ > 0) {
    clock_s_ += std::exponential_distribution<double>(rate_)(random_);
    return Arrival{clock_s_, {}};
  }
  if (position_ >= trace_.size()) return std::nullopt;
  return trace_[position_++];
}

}  // namespace supportd::bench
