// Fitting the out-of-scope gate (search/scope.h) at import, without a single labelled
// out-of-scope question: every held-out in-scope question is scored twice, as it is (in scope)
// and as if its entry were not in the knowledge base (its candidate removed and the relative
// features made again relative to what remains: an in-domain question the knowledge base does
// not cover). A logistic model of the evidence tells the two apart; its floor lets the chosen
// share of held-out questions answered right through. Thread-safe (pure functions).
#pragma once

#include <string>
#include <vector>

#include "kb/search/scope.h"
#include "kb/train/tuning.h"

namespace supportd::kb {

// `candidates` as the retriever would have proposed them without `entry`'s documents: its
// candidate removed; BM25's and the encoder's nearest-neighbour features recomputed from the
// remaining candidates' evidence, the votes and the classifier's and head's probabilities
// renormalized over what remains.
std::vector<Candidate> without_entry(const std::vector<Candidate>& candidates, int entry);

// Fits the gate on `dev` ranked with `weights`. Disabled below 20 questions or when no first
// entry is right. REQUIRES: 0 < pass_rate <= 1.
ScopeGate fit_scope_gate(const std::vector<DevQuestion>& dev, const Features& weights,
                         double pass_rate);

// How well each evidence feature alone, and the gate's probability, tells held-out in-scope
// questions from the same questions without their entry (area under the ROC curve), as one line
// for import's notes: "similarity 0.91, overlap 0.78, ..., gate 0.94".
std::string scope_separation(const std::vector<DevQuestion>& dev, const Features& weights,
                             const ScopeGate& gate);

}  // namespace supportd::kb
