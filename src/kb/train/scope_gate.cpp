// The out-of-scope gate fitted at import (scope_gate.h): synthetic out-of-scope questions from
// held-out ones without their entry, the logistic model, the floor, and the separation report.
#include "kb/train/scope_gate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "kb/train/logistic.h"

namespace supportd::kb {
namespace {
constexpr std::size_t kMinimumQuestions = 20;
// The ridge on the gate's weights: a tiny knowledge base's few held-out questions are often
// separable from their synthetic counterparts, and an unpenalized fit then grows its weights
// without bound and declines a new paraphrase with certainty; on thousands it weighs nothing.
constexpr double kRidge = 0.1;

// Every held-out question's evidence, in scope and without its entry.
struct Scored {
  std::vector<ScopeEvidence> in_scope;
  std::vector<bool> right;  // by in-scope question: its first entry is right
  std::vector<ScopeEvidence> missing;
};

Scored score(const std::vector<DevQuestion>& dev, const Features& weights) {
  Scored scored;
  for (const DevQuestion& question : dev) {
    const std::vector<Ranked> ranking = rank(question.candidates, weights);
    scored.in_scope.push_back(scope_evidence(ranking));
    scored.right.push_back(!ranking.empty() && ranking.front().entry == question.entry);
    scored.missing.push_back(
        scope_evidence(rank(without_entry(question.candidates, question.entry), weights)));
  }
  return scored;
}

// The area under the ROC curve of `value` for positives over negatives (ties count half).
template <typename Value>
double area_under_curve(const std::vector<ScopeEvidence>& positives,
                        const std::vector<ScopeEvidence>& negatives, Value value) {
  std::vector<std::pair<double, bool>> all;
  for (const ScopeEvidence& e : positives)
    all.emplace_back(value(e), true);
  for (const ScopeEvidence& e : negatives)
    all.emplace_back(value(e), false);
  std::sort(all.begin(), all.end());
  double rank_sum = 0;  // of the positives, 1-based, ties averaged
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j].first == all[i].first)
      ++j;
    const double average = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (std::size_t k = i; k < j; ++k) {
      if (all[k].second) rank_sum += average;
    }
    i = j;
  }
  const auto p = static_cast<double>(positives.size());
  const auto n = static_cast<double>(negatives.size());
  if (p == 0 || n == 0) return 0.5;
  return (rank_sum - p * (p + 1) / 2) / (p * n);
}

}  // namespace

std::vector<Candidate> without_entry(const std::vector<Candidate>& candidates, int entry) {
  std::vector<Candidate> rest;
  double classifier_left = 1, head_left = 1;
  float best_lexical = 0, best_similarity = -2, lexical_votes = 0, dense_votes = 0;
  for (const Candidate& candidate : candidates) {
    if (candidate.entry == entry) {
      classifier_left -= candidate.features[slot::kClassifier];
      head_left -= candidate.features[slot::kHead];
      continue;
    }
    rest.push_back(candidate);
    best_lexical = std::max(best_lexical, candidate.evidence.lexical);
    if (candidate.features[slot::kDense] > 0) {
      best_similarity = std::max(best_similarity, candidate.evidence.similarity);
    }
    lexical_votes += candidate.features[slot::kBm25Vote];
    dense_votes += candidate.features[slot::kDenseVote];
  }
  for (Candidate& candidate : rest) {
    Features& f = candidate.features;
    f[slot::kBm25] = best_lexical > 0 ? candidate.evidence.lexical / best_lexical : 0;
    if (lexical_votes > 0) f[slot::kBm25Vote] /= lexical_votes;
    f[slot::kClassifier] =
        classifier_left > 1e-9 ? static_cast<float>(f[slot::kClassifier] / classifier_left) : 0.0f;
    if (f[slot::kDense] > 0) {
      f[slot::kDense] =
          std::exp((candidate.evidence.similarity - best_similarity) / kDenseTemperature);
    }
    if (dense_votes > 0) f[slot::kDenseVote] /= dense_votes;
    f[slot::kHead] = head_left > 1e-9 ? static_cast<float>(f[slot::kHead] / head_left) : 0.0f;
  }
  return rest;
}

ScopeGate fit_scope_gate(const std::vector<DevQuestion>& dev, const Features& weights,
                         double pass_rate) {
  ScopeGate gate;
  gate.pass_rate = pass_rate;
  if (dev.size() < kMinimumQuestions) return gate;
  const Scored scored = score(dev, weights);
  std::vector<double> rows;
  std::vector<bool> outcomes;
  for (const auto* list : {&scored.in_scope, &scored.missing}) {
    for (const ScopeEvidence& evidence : *list) {
      rows.insert(rows.end(), evidence.begin(), evidence.end());
      outcomes.push_back(list == &scored.in_scope);
    }
  }
  const std::optional<LogisticWeights> fitted =
      fit_logistic(rows, outcomes, kScopeFeatureCount, kRidge);
  if (!fitted) return gate;
  std::copy(fitted->begin(), fitted->end(), gate.weights.begin());
  // The floor: the probability that `pass_rate` of the questions answered right reach.
  std::vector<double> right;
  for (std::size_t i = 0; i < scored.in_scope.size(); ++i) {
    if (scored.right[i]) right.push_back(scope_probability(gate, scored.in_scope[i]));
  }
  if (right.empty()) return gate;
  std::sort(right.begin(), right.end());
  const auto failing =
      static_cast<std::size_t>(std::floor((1 - pass_rate) * static_cast<double>(right.size())));
  gate.floor = right[std::min(failing, right.size() - 1)];
  gate.enabled = true;
  const auto passing =
      std::count_if(right.begin(), right.end(), [&](double p) { return p >= gate.floor; });
  gate.dev_pass_rate = static_cast<double>(passing) / static_cast<double>(right.size());
  const auto declined = std::count_if(scored.missing.begin(), scored.missing.end(),
                                      [&](const ScopeEvidence& evidence) {
                                        return scope_probability(gate, evidence) < gate.floor;
                                      });
  gate.dev_decline_rate =
      static_cast<double>(declined) / static_cast<double>(scored.missing.size());
  return gate;
}

std::string scope_separation(const std::vector<DevQuestion>& dev, const Features& weights,
                             const ScopeGate& gate) {
  if (dev.empty()) return {};
  const Scored scored = score(dev, weights);
  std::string line;
  for (std::size_t f = 0; f < kScopeFeatureCount; ++f) {
    const double area = area_under_curve(scored.in_scope, scored.missing,
                                         [f](const ScopeEvidence& e) { return e[f]; });
    line += fmt::format("{} {:.2f}, ", scope_feature_name(f), area);
  }
  const double combined =
      area_under_curve(scored.in_scope, scored.missing,
                       [&](const ScopeEvidence& e) { return scope_probability(gate, e); });
  return line + fmt::format("gate {:.2f}", combined);
}

}  // namespace supportd::kb
