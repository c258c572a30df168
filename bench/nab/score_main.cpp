// nab_score: scores a detector's output on the NAB corpus with NAB's method, under every
// profile, and prints per-file, per-family and total scores, a self-check (the null detector
// must score 0 and the perfect one 100) and a leave-one-family-out check of the threshold.
//   usage: nab_score --nab DIR --scores DIR [--prefix P] [--windows FILE] [--summary]
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "nab/nab_corpus.h"
#include "nab/nab_scorer.h"

namespace nab = supportd::bench::nab;

namespace {

// NAB's three profiles, the standard one first.
std::vector<std::string> profile_order(const std::map<std::string, nab::CostMatrix>& profiles) {
  std::vector<std::string> names;
  if (profiles.contains("standard")) names.push_back("standard");
  for (const auto& [name, cost] : profiles) {
    if (name != "standard") names.push_back(name);
  }
  return names;
}

std::map<std::string, std::vector<nab::ScoredFile>> by_family(
    const std::vector<nab::ScoredFile>& files) {
  std::map<std::string, std::vector<nab::ScoredFile>> families;
  for (const auto& file : files)
    families[nab::family_of(file.name)].push_back(file);
  return families;
}

// A family's score at a threshold: normalised when it has windows, else its raw cost.
std::string family_cell(const std::vector<nab::ScoredFile>& files, const nab::CostMatrix& cost,
                        double threshold) {
  const auto subset = nab::score_subset(files, cost, threshold);
  return subset.windows > 0 ? fmt::format("{:7.1f}", subset.normalised_score)
                            : fmt::format("{:6.2f}r", subset.raw);
}

// Detectors built from the windows: the null one (a constant 0.5) and the perfect one (1 on
// the first row of each window, 0 elsewhere).
std::vector<nab::ScoredFile> reference_detector(std::vector<nab::ScoredFile> files, bool perfect) {
  for (auto& file : files) {
    std::fill(file.anomaly_scores.begin(), file.anomaly_scores.end(), perfect ? 0.0 : 0.5);
    if (perfect) {
      for (const auto& window : file.windows)
        file.anomaly_scores[window.first] = 1.0;
    }
  }
  return files;
}

void print_files(const std::vector<nab::ScoredFile>& files,
                 const std::map<std::string, nab::CorpusScore>& scores,
                 const std::vector<std::string>& profiles) {
  std::string header = fmt::format("{:<52} {:>7}", "file", "windows");
  for (const auto& name : profiles)
    header += fmt::format("  {:>22}", name + " det/FP/raw");
  fmt::print("\n{}\n", header);
  for (std::size_t i = 0; i < files.size(); ++i) {
    std::string line = fmt::format("{:<52} {:>7}", files[i].name, files[i].windows.size());
    for (const auto& name : profiles) {
      const auto& outcome = scores.at(name).per_file[i];
      line += fmt::format("  {:>7} {:>5} {:>8.3f}", outcome.windows_detected,
                          outcome.false_positives, outcome.score);
    }
    fmt::print("{}\n", line);
  }
}

void print_families(const std::vector<nab::ScoredFile>& files,
                    const std::map<std::string, nab::CostMatrix>& profiles,
                    const std::map<std::string, nab::CorpusScore>& scores,
                    const std::vector<std::string>& order) {
  std::string header = fmt::format("{:<24} {:>5} {:>7}", "family", "files", "windows");
  for (const auto& name : order)
    header += fmt::format(" {:>20}", name);
  fmt::print("\n{}\n", header);
  for (const auto& [family, members] : by_family(files)) {
    std::size_t windows = 0;
    for (const auto& file : members)
      windows += file.windows.size();
    std::string line = fmt::format("{:<24} {:>5} {:>7}", family, members.size(), windows);
    for (const auto& name : order)
      line += fmt::format(" {:>20}",
                          family_cell(members, profiles.at(name), scores.at(name).best.threshold));
    fmt::print("{}\n", line);
  }
  std::size_t windows = 0;
  for (const auto& file : files)
    windows += file.windows.size();
  std::string line = fmt::format("{:<24} {:>5} {:>7}", "total", files.size(), windows);
  for (const auto& name : order)
    line += fmt::format(" {:>20.2f}", scores.at(name).normalised_score);
  fmt::print("{}\n", line);
  fmt::print(
      "(families: normalised 0..100 at the corpus threshold; r = raw cost of a family "
      "without windows)\n");
}

// For each family: the threshold swept on the other families, and what the family and the
// corpus score with it, against the corpus-wide threshold.
void print_leave_one_out(const std::vector<nab::ScoredFile>& files, const nab::CostMatrix& cost,
                         const nab::CorpusScore& corpus) {
  fmt::print("\nleave one family out (standard profile): threshold swept without the family\n");
  fmt::print("{:<24} {:>10} {:>14} {:>14} {:>12}\n", "family", "threshold", "family score",
             "(corpus thr.)", "total score");
  for (const auto& [family, members] : by_family(files)) {
    std::vector<nab::ScoredFile> others;
    for (const auto& file : files) {
      if (nab::family_of(file.name) != family) others.push_back(file);
    }
    const double threshold = nab::score_corpus(others, cost).best.threshold;
    const auto total = nab::score_subset(files, cost, threshold);
    fmt::print("{:<24} {:>10.4f} {:>14} {:>14} {:>12.2f}\n", family, threshold,
               family_cell(members, cost, threshold),
               family_cell(members, cost, corpus.best.threshold), total.normalised_score);
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Scores a detector's output on the NAB corpus with NAB's method"};
  std::string nab_dir, windows_path, profiles_path;
  nab::ScoresLayout layout;
  bool summary = false;
  std::optional<double> threshold;
  app.add_option("--nab", nab_dir, "NAB directory (labels/combined_windows.json, config/)")
      ->required();
  app.add_option("--scores", layout.directory,
                 "Directory of score files: FAMILY/[PREFIX]NAME.csv with timestamp,anomaly_score")
      ->required();
  app.add_option("--prefix", layout.prefix,
                 "Prefix of the score files' names (NAB's results: "
                 "DETECTOR_)");
  app.add_option("--column", layout.column, "The score column")->capture_default_str();
  app.add_option("--windows", windows_path,
                 "Windows file (default: NAB/labels/combined_windows.json)");
  app.add_option("--profiles", profiles_path, "Profiles (default: NAB/config/profiles.json)");
  app.add_flag("--summary", summary, "Only the families and totals");
  app.add_option("--threshold", threshold,
                 "Score at this threshold instead of sweeping (every profile)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (windows_path.empty()) windows_path = nab_dir + "/labels/combined_windows.json";
  if (profiles_path.empty()) profiles_path = nab_dir + "/config/profiles.json";

  auto profiles = nab::read_profiles(profiles_path);
  if (!profiles) {
    fmt::print(stderr, "error: {}\n", profiles.error().message);
    return 1;
  }
  auto files = nab::read_corpus(windows_path, layout);
  if (!files) {
    fmt::print(stderr, "error: {}\n", files.error().message);
    return 1;
  }
  const auto order = profile_order(*profiles);
  std::map<std::string, nab::CorpusScore> scores;
  for (const auto& name : order)
    scores[name] = nab::score_corpus(*files, profiles->at(name), threshold);

  if (!summary) print_files(*files, scores, order);
  print_families(*files, *profiles, scores, order);
  fmt::print("\n");
  for (const auto& name : order) {
    const auto& score = scores.at(name);
    const auto null_score =
        nab::score_corpus(reference_detector(*files, false), profiles->at(name));
    const auto perfect = nab::score_corpus(reference_detector(*files, true), profiles->at(name));
    fmt::print(
        "{:<20} score {:6.2f}  threshold {:.6f}  raw {:.3f} (null {:.3f}, perfect {:.3f})  "
        "windows detected {}/{}  false-positive rows {}  [check: null {:.2f}, perfect {:.2f}]\n",
        name, score.normalised_score, score.best.threshold, score.best.score, score.null_raw,
        score.perfect_raw, score.best.windows_detected, score.best.windows,
        score.best.false_positives, null_score.normalised_score, perfect.normalised_score);
  }
  if (!summary && scores.contains("standard"))
    print_leave_one_out(*files, profiles->at("standard"), scores.at("standard"));
  return 0;
}
