// The out-of-scope decision (scope.h): the evidence about the first entry, the logistic model's
// probability and the decision against the floor.
#include "kb/search/scope.h"

#include <cmath>
#include <cstdio>

#include "kb/search/fusion.h"

namespace supportd::kb {

const char* scope_feature_name(std::size_t feature) {
  static constexpr const char* kNames[kScopeFeatureCount] = {"similarity", "overlap", "score",
                                                             "margin"};
  return feature < kScopeFeatureCount ? kNames[feature] : "";
}

ScopeEvidence scope_evidence(const std::vector<Ranked>& ranking) {
  ScopeEvidence evidence{};
  if (ranking.empty()) return evidence;
  const Ranked& first = ranking.front();
  evidence[0] = first.evidence.similarity;
  evidence[1] = first.evidence.overlap;
  evidence[2] = first.score;
  evidence[3] = first.score - (ranking.size() > 1 ? ranking[1].score : 0.0f);
  return evidence;
}

double scope_probability(const ScopeGate& gate, const ScopeEvidence& evidence) {
  double z = gate.weights[0];
  for (std::size_t i = 0; i < kScopeFeatureCount; ++i)
    z += gate.weights[i + 1] * evidence[i];
  return 1.0 / (1.0 + std::exp(-z));
}

std::string scope_decline_reason(const ScopeGate& gate, const ScopeEvidence& evidence) {
  if (!gate.enabled) return {};
  const double probability = scope_probability(gate, evidence);
  if (probability >= gate.floor) return {};
  char text[256];
  std::snprintf(text, sizeof text,
                "out of scope: probability %.3f is below the floor %.3f (nearest phrasing's "
                "cosine %.2f, %.0f%% of the question's words in the best match, score %.2f)",
                probability, gate.floor, evidence[0], evidence[1] * 100, evidence[2]);
  return text;
}

}  // namespace supportd::kb
