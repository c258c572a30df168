// Reading a bench report or supportd's /v1/stats into the inputs of a capacity plan.
#include "plan/measured_load.h"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "plan/busy_curve.h"

namespace supportd::plan {
namespace json = boost::json;
namespace {

// The value at `path` inside `root`, or nullptr when a step is missing or not an object.
const json::value* find(const json::value& root, std::initializer_list<std::string_view> path) {
  const json::value* at = &root;
  for (std::string_view key : path) {
    if (!at->is_object()) return nullptr;
    at = at->as_object().if_contains(key);
    if (at == nullptr) return nullptr;
  }
  return at;
}

std::string dotted(std::initializer_list<std::string_view> path) {
  std::string out;
  for (std::string_view key : path) {
    if (!out.empty()) out += '.';
    out += key;
  }
  return out;
}

// Reads numbers out of one document, naming the document and the field in its errors.
class Fields {
 public:
  Fields(const json::value& root, std::string where) : root_(root), where_(std::move(where)) {}

  // A finite number; nullopt when missing or null; an error when anything else is there.
  Result<std::optional<double>> number(std::initializer_list<std::string_view> path) const {
    const json::value* v = find(root_, path);
    if (v == nullptr || v->is_null()) return std::optional<double>();
    if (!v->is_number() || !std::isfinite(v->to_number<double>())) {
      return Error::invalid(
          fmt::format("{}: {} is {}, not a number", where_, dotted(path), json::serialize(*v)));
    }
    return std::optional<double>(v->to_number<double>());
  }

  // The numbers of an array (nulls skipped); an error when it holds anything else.
  Result<std::vector<double>> numbers(std::initializer_list<std::string_view> path) const {
    std::vector<double> out;
    const json::value* v = find(root_, path);
    if (v == nullptr || v->is_null()) return out;
    if (!v->is_array())
      return Error::invalid(fmt::format("{}: {} is not an array", where_, dotted(path)));
    for (const json::value& item : v->as_array()) {
      if (item.is_null()) continue;
      if (!item.is_number() || !std::isfinite(item.to_number<double>())) {
        return Error::invalid(fmt::format("{}: {} holds {}, not a number", where_, dotted(path),
                                          json::serialize(item)));
      }
      out.push_back(item.to_number<double>());
    }
    return out;
  }

  std::string text(std::initializer_list<std::string_view> path) const {
    const json::value* v = find(root_, path);
    return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
  }

 private:
  const json::value& root_;
  std::string where_;
};

// The "capacity.busy" levels in order of k; an error naming the field for anything malformed.
Result<std::vector<MeasuredLevel>> read_busy_levels(const json::value& root,
                                                    const std::string& where) {
  std::vector<MeasuredLevel> levels;
  const json::value* busy = find(root, {"capacity", "busy"});
  if (busy == nullptr || busy->is_null()) return levels;
  const auto malformed = [&](const json::value& item) {
    return Error::invalid(
        fmt::format("{}: capacity.busy holds {}, not an object with "
                    "in_service, seconds and departures",
                    where, json::serialize(item)));
  };
  if (!busy->is_array()) return malformed(*busy);
  for (const json::value& item : busy->as_array()) {
    const json::object* level = item.if_object();
    if (level == nullptr) return malformed(item);
    const json::value* k = level->if_contains("in_service");
    const json::value* seconds = level->if_contains("seconds");
    const json::value* departures = level->if_contains("departures");
    if (k == nullptr || seconds == nullptr || departures == nullptr || !k->is_number() ||
        !seconds->is_number() || !departures->is_number()) {
      return malformed(item);
    }
    const double in_service = k->to_number<double>();
    if (!(in_service >= 1 && in_service <= 1e5) || in_service != std::floor(in_service) ||
        !(seconds->to_number<double>() >= 0) || !(departures->to_number<double>() >= 0)) {
      return malformed(item);
    }
    const auto at = static_cast<std::size_t>(in_service);
    if (levels.size() < at) levels.resize(at);
    levels[at - 1] = {seconds->to_number<double>(), departures->to_number<double>()};
  }
  return levels;
}

Result<json::value> parse(std::string_view text, const std::string& where) {
  boost::system::error_code ec;
  json::value document = json::parse(text, ec);
  if (ec) return Error::invalid(fmt::format("{} is not JSON: {}", where, ec.message()));
  if (!document.is_object()) return Error::invalid(where + " is not a JSON object");
  return document;
}

double mean(const std::vector<double>& values) {
  double sum = 0;
  for (double v : values)
    sum += v;
  return values.empty() ? 0 : sum / static_cast<double>(values.size());
}

// The arrival CV of a run that was not Poisson, from the requests sent in each second: for a
// renewal process the counts' variance / mean tends to ca^2. The first and last seconds (partly
// outside the run) are left out; nullopt below 5 whole seconds.
std::optional<double> cv_from_counts(std::vector<double> sent) {
  if (sent.size() < 7) return std::nullopt;
  sent.erase(sent.begin());
  sent.pop_back();
  const double m = mean(sent);
  if (!(m > 0)) return std::nullopt;
  double squares = 0;
  for (double v : sent)
    squares += (v - m) * (v - m);
  return std::sqrt(squares / static_cast<double>(sent.size() - 1) / m);
}

// The try-or-return of Result for the readers below.
#define PLAN_READ(variable, expression)                     \
  auto variable##_result = (expression);                    \
  if (!variable##_result) return variable##_result.error(); \
  auto variable = std::move(*variable##_result)

}  // namespace

Result<MeasuredLoad> load_from_bench_report(std::string_view text, const std::string& path) {
  const std::string where = "the bench report " + path;
  auto document = parse(text, where);
  if (!document) return document.error();
  const Fields f(*document, where);
  const json::value* version = find(*document, {"version"});
  if (f.text({"tool"}) != "supportd bench" || version == nullptr || !version->is_int64()) {
    return Error::invalid(path + " is not a report of supportd bench --json");
  }
  if (version->as_int64() != 1) {
    return Error::invalid(fmt::format("{}: report version {}, this supportd reads version 1", path,
                                      version->as_int64()));
  }
  MeasuredLoad m;
  m.source = where;
  const std::string mode = f.text({"config", "mode"});
  PLAN_READ(rate, f.number({"config", "rate"}));
  PLAN_READ(requests, f.number({"requests"}));
  PLAN_READ(duration, f.number({"duration_s"}));
  PLAN_READ(throughput, f.number({"request_throughput"}));
  PLAN_READ(sent, f.numbers({"timeline", "sent"}));
  if (mode == "poisson" && rate && *rate > 0) {
    m.arrival_rate = *rate;
    m.arrival_cv = 1;
    m.notes.push_back("arrival rate: the run's Poisson rate (--rate); arrival CV 1 (Poisson)");
  } else {
    if (requests && duration && *duration > 0) m.arrival_rate = *requests / *duration;
    m.notes.push_back(fmt::format("arrival rate: measured requests / duration of the {} run{}",
                                  mode.empty() ? "unknown" : mode,
                                  mode == "closed" ? " (closed loop: its throughput)" : ""));
    m.arrival_cv = cv_from_counts(sent);
    if (m.arrival_cv)
      m.notes.push_back("arrival CV: from the dispersion of requests sent per second");
  }
  PLAN_READ(running, f.numbers({"timeline", "server", "running"}));
  if (!running.empty() && throughput && *throughput > 0 && mean(running) > 0) {
    m.service_time_s = mean(running) / *throughput;
    m.servers = static_cast<int>(std::lround(*std::max_element(running.begin(), running.end())));
    m.notes.push_back(
        "service time: Little's law, mean sequences running (server polled) / completions per s");
    m.notes.push_back("servers: the most sequences the server ran at once during the run");
  } else {
    PLAN_READ(e2e_ms, f.number({"classes", "all", "e2e_ms", "mean"}));
    if (e2e_ms) m.service_time_s = *e2e_ms / 1e3;
    m.notes.push_back(
        "service time: mean end-to-end latency, which includes any wait (the server's queue was "
        "not polled)");
  }
  for (int c = 0; c < kClasses; ++c) {
    PLAN_READ(count, f.number({"classes", kClassNames[c], "requests"}));
    if (count && requests && *requests > 0 && m.arrival_rate)
      m.class_arrival_rate[c] = *m.arrival_rate * *count / *requests;
  }
  return m;
}

Result<MeasuredLoad> load_from_supportd_stats(std::string_view body, const std::string& url) {
  const std::string where = "/v1/stats of " + url;
  auto document = parse(body, where);
  if (!document) return document.error();
  if (find(*document, {"engine"}) == nullptr || find(*document, {"classes"}) == nullptr)
    return Error::invalid(where + " is not supportd's statistics");
  if (find(*document, {"capacity"}) == nullptr) {
    return Error::make(ErrorCode::kUnsupported,
                       where +
                           " has no \"capacity\" section (a supportd older than this one); "
                           "give the numbers on the command line");
  }
  const Fields f(*document, where);
  MeasuredLoad m;
  m.source = "supportd at " + url;
  PLAN_READ(window, f.number({"capacity", "window_s"}));
  PLAN_READ(rate, f.number({"capacity", "arrival_rate"}));
  PLAN_READ(arrival_cv, f.number({"capacity", "arrival_cv"}));
  PLAN_READ(service, f.number({"capacity", "service_time_s"}));
  PLAN_READ(service_cv, f.number({"capacity", "service_cv"}));
  PLAN_READ(slots, f.number({"capacity", "slots"}));
  const std::string span = fmt::format("over the last {:.0f} s", window.value_or(0));
  if (rate && *rate > 0) m.arrival_rate = *rate;
  m.arrival_cv = arrival_cv;
  if (service && *service > 0) m.service_time_s = *service;
  m.service_cv = service_cv;
  if (slots && *slots >= 1) {
    m.servers = static_cast<int>(*slots);
    m.slots_per_engine = m.servers;
  }
  m.notes.push_back("arrival rate and CV: requests that arrived, by their arrival times, " + span);
  m.notes.push_back(
      "service time and CV: time in a slot (start of prefill to last token) of "
      "completed requests, " +
      span);
  m.notes.push_back("servers: the engine's slots (parallel sequences)");
  if (m.servers) {
    auto levels = read_busy_levels(*document, where);
    if (!levels) return levels.error();
    if (auto curve = busy_curve(*levels, *m.servers)) {
      m.busy_rates = curve->rates;
      m.notes.push_back(fmt::format(
          "service curve: completions per second with k in service, {}: {} (interpolated "
          "between, scaled below, held above the highest measured)",
          span, describe_measured(*curve)));
    } else {
      m.notes.push_back(fmt::format(
          "service curve: no level of busy slots seen {:.0f} s with {:.0f} departures {}; "
          "plain M/M/c",
          kMinLevelSeconds, kMinLevelDepartures, span));
    }
  }
  // The engine's iteration costs and its requests' tokens: a simulation of its batching.
  PLAN_READ(iterations, f.number({"capacity", "iteration_cost", "iterations"}));
  if (iterations && m.servers) {
    PLAN_READ(fixed, f.number({"capacity", "iteration_cost", "fixed_ms"}));
    PLAN_READ(decode, f.number({"capacity", "iteration_cost", "per_decode_token_ms"}));
    PLAN_READ(prompt, f.number({"capacity", "iteration_cost", "per_prompt_token_ms"}));
    // A server from before split steps were costed reports neither: no split.
    PLAN_READ(split, f.number({"capacity", "iteration_cost", "per_split_ms"}));
    PLAN_READ(split_tokens, f.number({"capacity", "iteration_cost", "split_tokens"}));
    // Nor from before decode pairs were: linear in the decode tokens.
    PLAN_READ(pairs, f.number({"capacity", "iteration_cost", "per_decode_pair_ms"}));
    PLAN_READ(requests, f.number({"capacity", "iteration_cost", "requests"}));
    PLAN_READ(prompt_tokens, f.number({"capacity", "iteration_cost", "prompt_tokens"}));
    PLAN_READ(output_tokens, f.number({"capacity", "iteration_cost", "output_tokens"}));
    PLAN_READ(step_tokens, f.number({"capacity", "iteration_cost", "step_tokens"}));
    // A server from before the excess was measured reports none: every iteration its cost.
    PLAN_READ(excess, f.numbers({"capacity", "iteration_cost", "excess_ms"}));
    PLAN_READ(excess_shares, f.numbers({"capacity", "iteration_cost", "excess_shares"}));
    if (*iterations < kMinIterations || requests.value_or(0) < kMinRequests) {
      m.notes.push_back(fmt::format(
          "iteration costs: {:.0f} iterations and {:.0f} requests measured, fewer than the {:.0f} "
          "and {:.0f} a simulation of the engine needs",
          *iterations, requests.value_or(0), kMinIterations, kMinRequests));
    } else {
      BatchingModel engine;
      engine.slots = *m.servers;
      engine.step_tokens =
          static_cast<int>(std::clamp(step_tokens.value_or(engine.step_tokens), 0.0, 1e7));
      engine.fixed_ms = fixed.value_or(-1);
      engine.per_decode_token_ms = decode.value_or(-1);
      engine.per_prompt_token_ms = prompt.value_or(-1);
      engine.per_split_ms = split.value_or(0);
      engine.per_decode_pair_ms = pairs.value_or(0);
      engine.split_tokens = static_cast<int>(std::clamp(split_tokens.value_or(0), -1.0, 1e7));
      engine.prompt_tokens = prompt_tokens.value_or(0);
      engine.output_tokens = output_tokens.value_or(0);
      engine.excess_ms = std::move(excess);
      engine.excess_shares = std::move(excess_shares);
      if (auto status = check_batching(engine); !status) {
        return Error::invalid(
            fmt::format("{}: capacity.iteration_cost: {}", where, status.error().message));
      }
      m.batching = engine;
      m.notes.push_back(fmt::format(
          "iteration costs: fitted by the engine over its recent iterations ({:.0f} since "
          "start); tokens per request: means of its recent requests ({:.0f} since start){}",
          *iterations, *requests,
          engine.excess_ms.empty()
              ? ""
              : "; each simulated iteration also takes one of its recent iterations' excess "
                "over the fit, drawn at random"));
    }
  }
  for (int c = 0; c < kClasses; ++c) {
    PLAN_READ(class_rate, f.number({"capacity", "classes", kClassNames[c], "arrival_rate"}));
    PLAN_READ(class_service, f.number({"capacity", "classes", kClassNames[c], "service_time_s"}));
    m.class_arrival_rate[c] = class_rate.value_or(0);
    if (class_service && *class_service > 0) m.class_service_time_s[c] = class_service;
  }
  return m;
}

}  // namespace supportd::plan
