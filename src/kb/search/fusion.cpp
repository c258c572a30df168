// Fusion (fusion.h): the candidates ranked by their weighted features (or one component's), the
// calibrated confidence of the first, default weights.
#include "kb/search/fusion.h"

#include <algorithm>
#include <cmath>

namespace supportd::kb {
namespace {

void sort_ranking(std::vector<Ranked>& ranking) {
  std::sort(ranking.begin(), ranking.end(), [](const Ranked& a, const Ranked& b) {
    return a.score != b.score ? a.score > b.score : a.entry < b.entry;
  });
}

}  // namespace

std::vector<Ranked> rank(const std::vector<Candidate>& candidates, const Features& weights) {
  std::vector<Ranked> ranking;
  ranking.reserve(candidates.size());
  for (const Candidate& candidate : candidates) {
    float score = 0;
    for (int c = 0; c < kComponentCount; ++c) {
      score +=
          weights[static_cast<std::size_t>(c)] * candidate.features[static_cast<std::size_t>(c)];
    }
    ranking.push_back(
        {candidate.entry, score, candidate.best_document, candidate.features, candidate.evidence});
  }
  sort_ranking(ranking);
  return ranking;
}

std::vector<Ranked> rank_by(const std::vector<Candidate>& candidates, Component component) {
  Features weights{};
  weights[static_cast<std::size_t>(component)] = 1;
  std::vector<Ranked> ranking = rank(candidates, weights);
  // Candidates the component did not see at all are not part of its ranking.
  std::erase_if(ranking, [](const Ranked& r) { return r.score <= 0; });
  return ranking;
}

double confidence(const Calibration& calibration, const std::vector<Ranked>& ranking,
                  std::size_t index) {
  if (index >= ranking.size()) return 0;
  const double score = ranking[index].score;
  double best_other = 0;
  for (std::size_t i = 0; i < ranking.size() && i < 2; ++i) {
    if (i != index) {
      best_other = ranking[i].score;
      break;
    }
  }
  const double margin = score - best_other;
  if (!calibration.fitted) {
    return score > 0 ? std::clamp(margin / score, 0.0, 1.0) : 0.0;
  }
  const double z =
      calibration.bias + calibration.score_weight * score + calibration.margin_weight * margin;
  return 1.0 / (1.0 + std::exp(-z));
}

Features default_weights(const Availability& available) {
  Features weights{};
  const auto count = std::count(available.begin(), available.end(), true);
  if (count == 0) return weights;
  for (int c = 0; c < kComponentCount; ++c) {
    if (available[static_cast<std::size_t>(c)]) {
      weights[static_cast<std::size_t>(c)] = 1.0f / static_cast<float>(count);
    }
  }
  return weights;
}

}  // namespace supportd::kb
