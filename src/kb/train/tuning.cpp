// Tuning on held-out questions (tuning.h): folds dealt per entry, fusion weights searched on a
// simplex grid then refined, accuracy measured, confidence fitted as a logistic.
#include "kb/train/tuning.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "kb/train/logistic.h"

namespace supportd::kb {
namespace {

// 1-based rank of the right entry in the fused ranking, or 0 when absent.
int rank_of(const DevQuestion& question, const Features& weights) {
  // Only the score order matters: compute the right entry's score and count those above it.
  float right = -1;
  bool found = false;
  for (const Candidate& candidate : question.candidates) {
    if (candidate.entry != question.entry) continue;
    right = 0;
    for (int c = 0; c < kComponentCount; ++c) {
      right +=
          weights[static_cast<std::size_t>(c)] * candidate.features[static_cast<std::size_t>(c)];
    }
    found = true;
  }
  if (!found || right <= 0) return 0;
  int above = 0;
  for (const Candidate& candidate : question.candidates) {
    if (candidate.entry == question.entry) continue;
    float score = 0;
    for (int c = 0; c < kComponentCount; ++c) {
      score +=
          weights[static_cast<std::size_t>(c)] * candidate.features[static_cast<std::size_t>(c)];
    }
    if (score > right || (score == right && candidate.entry < question.entry)) ++above;
  }
  return above + 1;
}

// Top-1 accuracy plus a little reciprocal rank, to tell apart weights of equal accuracy.
double objective(const std::vector<DevQuestion>& dev, const Features& weights) {
  double top1 = 0, reciprocal = 0;
  for (const DevQuestion& question : dev) {
    const int rank = rank_of(question, weights);
    if (rank == 1) ++top1;
    if (rank > 0) reciprocal += 1.0 / rank;
  }
  return (top1 + 0.01 * reciprocal) / static_cast<double>(std::max<std::size_t>(dev.size(), 1));
}

void grid(const std::vector<int>& components, std::size_t index, int remaining, int steps,
          Features& weights, const std::vector<DevQuestion>& dev, double& best,
          Features& best_weights) {
  const auto component = static_cast<std::size_t>(components[index]);
  if (index + 1 == components.size()) {
    weights[component] = static_cast<float>(remaining) / static_cast<float>(steps);
    const double value = objective(dev, weights);
    if (value > best) {
      best = value;
      best_weights = weights;
    }
    return;
  }
  for (int share = 0; share <= remaining; ++share) {
    weights[component] = static_cast<float>(share) / static_cast<float>(steps);
    grid(components, index + 1, remaining - share, steps, weights, dev, best, best_weights);
  }
}

}  // namespace

std::vector<int> choose_folds(const std::vector<Document>& documents, int folds,
                              std::uint64_t seed) {
  std::vector<int> fold_of(documents.size(), -1);
  std::map<int, std::vector<std::size_t>> questions;  // by entry
  std::map<int, int> document_count;
  for (std::size_t d = 0; d < documents.size(); ++d) {
    ++document_count[documents[d].entry];
    if (documents[d].kind == DocumentKind::kQuestion) questions[documents[d].entry].push_back(d);
  }
  std::mt19937_64 random(seed);
  std::size_t next = 0;  // the fold the next entry starts dealing into, so small entries spread
  for (auto& [entry, list] : questions) {
    for (std::size_t i = list.size(); i > 1; --i)
      std::swap(list[i - 1], list[random() % i]);
    if (document_count[entry] < 2) continue;  // its only document
    // Dealt in turn, a fold takes at most ceil(n / folds) < n of an entry's n >= 2 questions,
    // so every fold leaves the entry at least one document.
    for (std::size_t i = 0; i < list.size(); ++i)
      fold_of[list[i]] = static_cast<int>((next + i) % static_cast<std::size_t>(folds));
    next = (next + list.size()) % static_cast<std::size_t>(folds);
  }
  return fold_of;
}

WeightChoice choose_weights(const std::vector<DevQuestion>& dev, const Availability& available) {
  std::vector<int> components;
  for (int c = 0; c < kComponentCount; ++c) {
    if (available[static_cast<std::size_t>(c)]) components.push_back(c);
  }
  WeightChoice choice;
  if (components.empty()) return choice;
  Features weights{}, best_weights = default_weights(available);
  double best = objective(dev, best_weights);
  constexpr int kSteps = 10;
  grid(components, 0, kSteps, kSteps, weights, dev, best, best_weights);
  // Refine: move small amounts of weight between pairs of components while it helps.
  for (float step : {0.05f, 0.025f}) {
    bool improved = true;
    while (improved) {
      improved = false;
      for (int from : components) {
        for (int to : components) {
          if (from == to || best_weights[static_cast<std::size_t>(from)] < step) continue;
          Features trial = best_weights;
          trial[static_cast<std::size_t>(from)] -= step;
          trial[static_cast<std::size_t>(to)] += step;
          const double value = objective(dev, trial);
          if (value > best + 1e-12) {
            best = value;
            best_weights = trial;
            improved = true;
          }
        }
      }
    }
  }
  choice.weights = best_weights;
  const Accuracy accuracy = measure(dev, best_weights);
  choice.top1 = accuracy.top1;
  choice.top3 = accuracy.top3;
  return choice;
}

Accuracy measure(const std::vector<DevQuestion>& dev, const Features& weights) {
  Accuracy accuracy;
  if (dev.empty()) return accuracy;
  for (const DevQuestion& question : dev) {
    const int rank = rank_of(question, weights);
    if (rank == 1) accuracy.top1 += 1;
    if (rank >= 1 && rank <= 3) accuracy.top3 += 1;
  }
  accuracy.top1 /= static_cast<double>(dev.size());
  accuracy.top3 /= static_cast<double>(dev.size());
  return accuracy;
}

Accuracy measure_component(const std::vector<DevQuestion>& dev, Component component) {
  Features weights{};
  weights[static_cast<std::size_t>(component)] = 1;
  return measure(dev, weights);
}

Calibration fit_calibration(const std::vector<DevQuestion>& dev, const Features& weights,
                            double target_precision) {
  Calibration calibration;
  calibration.target_precision = target_precision;
  struct Sample {
    double score, margin;
    bool right;
    bool offered;  // the right entry is among the first three
  };
  std::vector<Sample> samples;
  for (const DevQuestion& question : dev) {
    const std::vector<Ranked> ranking = rank(question.candidates, weights);
    if (ranking.empty()) {
      samples.push_back({0, 0, false, false});
      continue;
    }
    const double second = ranking.size() > 1 ? ranking[1].score : 0;
    bool offered = false;
    for (std::size_t i = 0; i < ranking.size() && i < 3; ++i)
      offered = offered || ranking[i].entry == question.entry;
    samples.push_back(
        {ranking[0].score, ranking[0].score - second, ranking[0].entry == question.entry, offered});
  }
  const auto right = std::count_if(samples.begin(), samples.end(), [](auto& s) { return s.right; });
  if (samples.size() < 20 || right == 0 || right == static_cast<long>(samples.size())) {
    return calibration;
  }
  std::vector<double> rows;
  std::vector<bool> outcomes;
  for (const Sample& s : samples) {
    rows.insert(rows.end(), {s.score, s.margin});
    outcomes.push_back(s.right);
  }
  const std::optional<LogisticWeights> fitted = fit_logistic(rows, outcomes, 2);
  if (!fitted) return calibration;
  const LogisticWeights& w = *fitted;
  calibration.fitted = true;
  calibration.bias = w[0];
  calibration.score_weight = w[1];
  calibration.margin_weight = w[2];

  // The lowest threshold whose answered questions reach the target precision.
  struct Scored {
    double confidence;
    bool right, offered;
  };
  std::vector<Scored> scored;
  for (const Sample& s : samples) {
    scored.push_back(
        {1 / (1 + std::exp(-(w[0] + w[1] * s.score + w[2] * s.margin))), s.right, s.offered});
  }
  std::sort(scored.begin(), scored.end(),
            [](const Scored& a, const Scored& b) { return a.confidence > b.confidence; });
  calibration.threshold = 1.0;
  double correct = 0, offered = 0;
  for (std::size_t i = 0; i < scored.size(); ++i) {
    if (scored[i].right) ++correct;
    if (scored[i].offered) ++offered;
    const bool boundary = i + 1 == scored.size() || scored[i + 1].confidence < scored[i].confidence;
    const double answered = static_cast<double>(i + 1);
    const double coverage = answered / static_cast<double>(scored.size());
    if (boundary && correct / answered >= target_precision) {
      calibration.threshold = scored[i].confidence;
      calibration.dev_precision = correct / answered;
      calibration.dev_coverage = coverage;
    }
    if (boundary && offered / answered >= target_precision) {
      calibration.offer_threshold = scored[i].confidence;
      calibration.dev_offer_coverage = coverage;
    }
  }
  // Offering is for questions below the threshold; never above it.
  if (calibration.offer_threshold > calibration.threshold || calibration.dev_offer_coverage == 0) {
    calibration.offer_threshold = calibration.threshold;
    calibration.dev_offer_coverage = calibration.dev_coverage;
  }
  return calibration;
}

}  // namespace supportd::kb
