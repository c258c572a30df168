// The numbers a capacity plan starts from, read from what supportd measured: a `supportd bench
// --json` report, or a running supportd's /v1/stats (its "capacity" section). Each number is
// optional (the command line fills or overrides it), and each comes with a note saying how it
// was obtained, or that it was assumed.
// Thread-safety: pure functions.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "plan/batching_model.h"

namespace supportd::plan {

constexpr int kClasses = 3;  // high, normal, low
constexpr std::array<const char*, kClasses> kClassNames{"high", "normal", "low"};

struct MeasuredLoad {
  std::string source;                    // "the bench report FILE", "supportd at URL"
  std::optional<double> arrival_rate;    // per second
  std::optional<double> service_time_s;  // mean time a request holds a server (a slot)
  std::optional<double> arrival_cv, service_cv;
  std::optional<int> servers;  // slots measured or inferred
  std::optional<int> slots_per_engine;
  std::array<double, kClasses> class_arrival_rate{0, 0, 0};  // all 0: no class mix measured
  std::array<std::optional<double>, kClasses> class_service_time_s;
  // One engine's completions per second with 1 .. servers busy (busy_curve.h); empty when not
  // measured (a bench report, an older supportd, or too little traffic).
  std::vector<double> busy_rates;
  // One engine's iteration costs and its requests' tokens (batching_model.h), slots the
  // servers; empty when not measured well enough (kMinIterations, kMinRequests).
  std::optional<BatchingModel> batching;
  std::vector<std::string> notes;
};

// What a simulation of an engine needs measured at least.
constexpr double kMinIterations = 200;
constexpr double kMinRequests = 20;

// From the text of a `supportd bench --json` report read from `path`. The arrival rate is the
// offered Poisson rate (--rate), else measured requests / duration; the service time by
// Little's law, mean running sequences / completions per second (with the server's queue
// polled), else the mean end-to-end latency (noted as including any wait); servers the most
// sequences seen running at once; the arrival CV 1 for Poisson, else from the dispersion of
// requests sent per second; the service CV is not in a report (left unset).
// kInvalidArgument naming `path` when the text is not JSON, not a bench report (another tool,
// another version), or a field holds something other than a number.
Result<MeasuredLoad> load_from_bench_report(std::string_view text, const std::string& path);

// From the body of supportd's GET /v1/stats at `url`: its "capacity" section (arrival rate
// and CV, service time and CV per slot over the last window, per class, the time and
// departures with k in service, made into busy_rates when one engine has the slots, and the
// engine's iteration costs, made into `batching`) and the engine's slots. kInvalidArgument when the
// body is not that JSON; kUnsupported when it is supportd's but has no "capacity" section (an older
// version).
Result<MeasuredLoad> load_from_supportd_stats(std::string_view body, const std::string& url);

}  // namespace supportd::plan
