// Choices made at import on held-out questions (never on any test set): the folds carved from
// the knowledge base's own questions, the fusion weights, and the confidence calibration.
// Thread-safe (pure functions).
#pragma once

#include <cstdint>
#include <vector>

#include "kb/entry.h"
#include "kb/search/fusion.h"

namespace supportd::kb {

// Folds of held-out questions for tuning: every entry's questions, shuffled (seeded), are dealt
// in turn into `folds` folds, so each fold holds about 1/folds of them; an entry whose only
// document is one question keeps it out of every fold, so a held-out question can always find
// its entry among the other folds' documents. Returns each document's fold, or -1 (never held
// out). REQUIRES: folds >= 2.
std::vector<int> choose_folds(const std::vector<Document>& documents, int folds,
                              std::uint64_t seed);

// A held-out question: the entry it should find and the candidates the components proposed.
struct DevQuestion {
  int entry = 0;
  std::vector<Candidate> candidates;
};

struct WeightChoice {
  Features weights{};
  double top1 = 0;  // on the dev questions
  double top3 = 0;
};

// The weights (on the simplex over the available components) that maximize top-1 accuracy on
// `dev`, ties broken by reciprocal rank: a grid with step 0.1, then local refinement.
WeightChoice choose_weights(const std::vector<DevQuestion>& dev, const Availability& available);

// Top-1 and top-3 accuracy of a ranking rule on `dev`.
struct Accuracy {
  double top1 = 0;
  double top3 = 0;
};
Accuracy measure(const std::vector<DevQuestion>& dev, const Features& weights);
Accuracy measure_component(const std::vector<DevQuestion>& dev, Component component);

// Fits confidence = logistic(score, margin) to whether the first entry was right, and picks the
// lowest threshold whose precision on `dev` reaches `target_precision`, and the lowest offer
// threshold (<= it) at which the right entry is among the first three that often. Unfitted
// below 20 questions or when every answer was right (or wrong).
Calibration fit_calibration(const std::vector<DevQuestion>& dev, const Features& weights,
                            double target_precision);

}  // namespace supportd::kb
