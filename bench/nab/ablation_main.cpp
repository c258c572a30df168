// nab_ablation: the detector of `supportd anomaly score` (the same library, in process) on the
// NAB corpus under several parameter sets and several seeds, to judge a design choice by its
// effect on each data family, averaged over seeds (one seed alone moves a family's score by
// tens of points), and by a leave-one-family-out check of the threshold.
//   usage: nab_ablation --nab DIR [--seeds N] [--jobs N] [SETTINGS ...]
//   SETTINGS: "defaults", or NAME=VALUE[,NAME=VALUE...] (names: `supportd anomaly score --help`)
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <atomic>
#include <cmath>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "nab/nab_corpus.h"
#include "nab/nab_scorer.h"
#include "obs/anomaly/detector.h"

namespace nab = supportd::bench::nab;
namespace anomaly = supportd::obs::anomaly;

namespace {

supportd::Result<anomaly::DetectorOptions> parse_settings(const std::string& text) {
  anomaly::DetectorOptions options;
  if (text == "defaults") return options;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    if (auto status = anomaly::apply_setting(options, text.substr(start, comma - start)); !status)
      return status.error();
    start = comma + 1;
  }
  return options;
}

std::vector<double> detect(const std::vector<double>& values, const anomaly::DetectorOptions& o) {
  anomaly::AnomalyDetector detector(o);
  std::vector<double> scores;
  scores.reserve(values.size());
  for (double value : values)
    scores.push_back(detector.update(value).score);
  return scores;
}

struct Summary {
  std::vector<double> total;                          // per seed
  std::map<std::string, std::vector<double>> family;  // per family, per seed
  std::map<std::string, std::vector<double>> held_out;
  std::map<std::string, std::vector<double>> profile_total;
};

std::string mean_and_spread(const std::vector<double>& values) {
  double sum = 0, squares = 0;
  for (double v : values) {
    sum += v;
    squares += v * v;
  }
  const double n = static_cast<double>(values.size());
  const double mean = sum / n;
  return fmt::format("{:5.1f}±{:<4.1f}", mean, std::sqrt(std::max(0.0, squares / n - mean * mean)));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The anomaly detector on NAB under several parameter sets, over several seeds"};
  std::string nab_dir;
  std::size_t seeds = 4;
  unsigned jobs = 2;
  std::vector<std::string> settings{"defaults"};
  app.add_option("--nab", nab_dir, "NAB directory (data/, labels/, config/)")->required();
  app.add_option("--seeds", seeds, "Seeds per parameter set (1..N)")->capture_default_str();
  app.add_option("--jobs", jobs, "Threads")->capture_default_str();
  app.add_option("settings", settings, "Parameter sets: defaults or NAME=VALUE,...");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  auto profiles = nab::read_profiles(nab_dir + "/config/profiles.json");
  auto corpus =
      nab::read_corpus(nab_dir + "/labels/combined_windows.json", {nab_dir + "/data", "", "value"});
  if (!profiles || !corpus) {
    fmt::print(stderr, "error: {}\n",
               !profiles ? profiles.error().message : corpus.error().message);
    return 1;
  }
  std::vector<std::vector<double>> values;
  for (const auto& file : *corpus)
    values.push_back(file.anomaly_scores);
  std::vector<std::string> families;
  for (const auto& file : *corpus) {
    const auto family = nab::family_of(file.name);
    if (std::find(families.begin(), families.end(), family) == families.end())
      families.push_back(family);
  }
  const nab::CostMatrix standard = profiles->at("standard");

  std::string header = fmt::format("{:<44} {:>11}", "settings", "total");
  for (const auto& family : families)
    header += fmt::format(" {:>11}", family.substr(0, 11));
  fmt::print("{}   (standard profile, mean±sd over {} seeds; then held-out family scores)\n",
             header, seeds);
  for (const std::string& text : settings) {
    auto options = parse_settings(text);
    if (!options) {
      fmt::print(stderr, "error: {}: {}\n", text, options.error().message);
      return 2;
    }
    Summary summary;
    for (std::size_t seed = 1; seed <= seeds; ++seed) {
      anomaly::DetectorOptions seeded = *options;
      seeded.seed = seed;
      std::vector<nab::ScoredFile> scored = *corpus;
      std::atomic<std::size_t> next{0};
      std::vector<std::thread> threads;
      for (unsigned j = 0; j < std::max(1u, jobs); ++j) {
        threads.emplace_back([&] {
          for (std::size_t i = next++; i < scored.size(); i = next++)
            scored[i].anomaly_scores = detect(values[i], seeded);
        });
      }
      for (auto& thread : threads)
        thread.join();
      const auto result = nab::score_corpus(scored, standard);
      summary.total.push_back(result.normalised_score);
      for (const auto& [name, cost] : *profiles)
        summary.profile_total[name].push_back(nab::score_corpus(scored, cost).normalised_score);
      for (const auto& family : families) {
        std::vector<nab::ScoredFile> members, others;
        for (const auto& file : scored)
          (nab::family_of(file.name) == family ? members : others).push_back(file);
        const auto in_family = nab::score_subset(members, standard, result.best.threshold);
        summary.family[family].push_back(in_family.windows > 0 ? in_family.normalised_score
                                                               : in_family.raw);
        const double threshold = nab::score_corpus(others, standard).best.threshold;
        const auto held = nab::score_subset(members, standard, threshold);
        summary.held_out[family].push_back(held.windows > 0 ? held.normalised_score : held.raw);
      }
    }
    std::string line =
        fmt::format("{:<44} {:>11}", text.substr(0, 44), mean_and_spread(summary.total));
    for (const auto& family : families)
      line += fmt::format(" {:>11}", mean_and_spread(summary.family[family]));
    std::string held = fmt::format("{:<44} {:>11}", "  held out / other profiles", "");
    for (const auto& family : families)
      held += fmt::format(" {:>11}", mean_and_spread(summary.held_out[family]));
    for (const auto& [name, totals] : summary.profile_total) {
      if (name != "standard") held += fmt::format("  {} {}", name, mean_and_spread(totals));
    }
    fmt::print("{}\n{}\n", line, held);
    std::fflush(stdout);
  }
  return 0;
}
