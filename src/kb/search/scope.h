// The out-of-scope decision: apart from the confidence threshold (which asks "is the first entry
// the right one?"), whether the question is about anything the knowledge base covers at all.
// Its evidence is absolute, where the fusion features are relative to the best candidate and so
// always name a confident-looking first entry: how close the question is to the first entry's
// nearest phrasing (encoder cosine), how much of the question's weight in words that entry's best
// document holds (lexical overlap: a word no document has weighs most), the fused score and its
// margin over the second. Not the classifier's and head's probabilities alone: for a question
// scored without its entry they can only be renormalized, not measured, and on a tiny knowledge
// base the gate learnt that artifact (a near-uniform classifier renormalized looks surer than
// on the real questions). A logistic model of them is fitted at import on held-out in-scope
// questions against the same questions scored as if their entry were missing
// (train/scope_gate.h), and the floor on its probability chosen there.
// Thread-safe (pure functions on immutable data).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "kb/search/retriever.h"

namespace supportd::kb {

struct Ranked;

inline constexpr std::size_t kScopeFeatureCount = 4;
using ScopeEvidence = std::array<double, kScopeFeatureCount>;

// "similarity", "overlap", "score", "margin".
const char* scope_feature_name(std::size_t feature);

struct ScopeGate {
  bool enabled = false;  // false: no gate (knowledge bases imported before it, or too few
                         // held-out questions to fit it on)
  // The logistic model: the bias, then one weight per evidence feature (kScopeFeatureCount).
  std::array<double, kScopeFeatureCount + 1> weights{};
  double floor = 0.5;  // decline when the model's probability of "in scope" is below this
  // The share of held-out in-scope questions answered right that it was set to let through.
  double pass_rate = 0.97;
  double dev_pass_rate = 0;     // of those, the share at or above `floor`
  double dev_decline_rate = 0;  // the share of held-out questions scored without their entry
                                // (synthetic out-of-scope ones) below `floor`
};

// The evidence about `ranking`'s first entry (all zero for an empty ranking).
ScopeEvidence scope_evidence(const std::vector<Ranked>& ranking);

// The model's probability that the question is in scope.
double scope_probability(const ScopeGate& gate, const ScopeEvidence& evidence);

// Empty when `gate` lets the question through; else why it is declined (for logs and explain).
std::string scope_decline_reason(const ScopeGate& gate, const ScopeEvidence& evidence);

}  // namespace supportd::kb
