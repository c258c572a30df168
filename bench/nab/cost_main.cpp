// anomaly_cost: what the detector costs the server, which feeds one value per second to each
// of ~20 signals: CPU time per update once the window is full (the steady state), the share of
// one core that 20 signals at 1 Hz take, and the memory one detector holds.
//   usage: anomaly_cost [--signals 20] [--points 20000] [--set NAME=VALUE ...]
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include "obs/anomaly/detector.h"

namespace anomaly = supportd::obs::anomaly;

namespace {

double thread_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

// Resident memory of this process, in KiB (VmRSS).
long resident_kib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.starts_with("VmRSS:")) return std::stol(line.substr(6));
  }
  return 0;
}

// A latency-like signal: a slow wave, noise, and now and then a burst.
double signal_value(std::size_t signal, std::size_t t, anomaly::Random& random) {
  const double wave = 300 + 50 * std::sin(static_cast<double>(t) / (600.0 + 37.0 * signal));
  const double noise = 20 * (random.uniform() - 0.5);
  return wave + noise + (random.below(2000) == 0 ? 2000 : 0);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"CPU and memory the anomaly detector costs per signal"};
  std::size_t signals = 20, points = 20000;
  std::vector<std::string> settings;
  app.add_option("--signals", signals, "Detectors fed side by side")->capture_default_str();
  app.add_option("--points", points, "Values fed to each")->capture_default_str();
  app.add_option("--set", settings, "Detector parameter NAME=VALUE (repeatable)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  anomaly::DetectorOptions options;
  for (const std::string& setting : settings) {
    if (const auto status = anomaly::apply_setting(options, setting); !status) {
      fmt::print(stderr, "error: --set {}\n", status.error().message);
      return 2;
    }
  }

  const long memory_before = resident_kib();
  std::vector<anomaly::AnomalyDetector> detectors;
  std::vector<anomaly::Random> randoms;
  for (std::size_t s = 0; s < signals; ++s) {
    anomaly::DetectorOptions seeded = options;
    seeded.seed = s + 1;
    detectors.emplace_back(seeded);
    randoms.emplace_back(1000 + s);
  }
  // One value per signal per "second", as the server's timer feeds them; the steady state is
  // timed once every window is full.
  const std::size_t steady_from = std::min(points, options.forest.window + 1000);
  std::vector<double> tick_seconds;
  double warm_up = 0, steady = 0;
  for (std::size_t t = 0; t < points; ++t) {
    const double started = thread_cpu_seconds();
    for (std::size_t s = 0; s < signals; ++s)
      detectors[s].update(signal_value(s, t, randoms[s]));
    const double spent = thread_cpu_seconds() - started;
    (t < steady_from ? warm_up : steady) += spent;
    if (t >= steady_from) tick_seconds.push_back(spent);
  }
  const long memory_after = resident_kib();
  std::sort(tick_seconds.begin(), tick_seconds.end());
  const double steady_updates = static_cast<double>((points - steady_from) * signals);
  const double per_update = steady_updates > 0 ? steady / steady_updates : 0;
  fmt::print("{} signals x {} values (window {}, {} trees of {} points, height {})\n", signals,
             points, options.forest.window, options.forest.trees, options.forest.sample_size,
             options.forest.height_limit);
  fmt::print("CPU per update, steady state (window full): {:.1f} us\n", 1e6 * per_update);
  if (!tick_seconds.empty()) {
    fmt::print("CPU per tick of {} signals: median {:.2f} ms, p99 {:.2f} ms, max {:.2f} ms\n",
               signals, 1e3 * tick_seconds[tick_seconds.size() / 2],
               1e3 * tick_seconds[tick_seconds.size() * 99 / 100], 1e3 * tick_seconds.back());
  }
  fmt::print("share of one core for {} signals at 1 Hz: {:.3f}%\n", signals,
             100.0 * per_update * static_cast<double>(signals));
  fmt::print("CPU per update while the window fills (first {} values): {:.1f} us\n", steady_from,
             1e6 * warm_up / static_cast<double>(steady_from * signals));
  fmt::print(
      "memory: {:.1f} MiB for {} detectors ({:.2f} MiB each)\n",
      static_cast<double>(memory_after - memory_before) / 1024.0, signals,
      static_cast<double>(memory_after - memory_before) / 1024.0 / static_cast<double>(signals));
  return 0;
}
