// Fusion of the components into one ranking, and the confidence that the first entry is right:
// the fused score is a weighted sum of the candidates' features; confidence is a logistic
// function of the first entry's score and its margin over the second, fitted on held-out
// questions at import (tuning.h). Thread-safe (pure functions on immutable data).
#pragma once

#include <vector>

#include "kb/search/retriever.h"
#include "kb/search/scope.h"

namespace supportd::kb {

struct Calibration {
  bool fitted = false;  // false: too few held-out questions; confidence is the relative margin
  double bias = 0;
  double score_weight = 0;
  double margin_weight = 0;
  double threshold = 0.5;          // trust the first entry when confidence >= threshold
  double target_precision = 0.90;  // what the threshold was chosen for
  double dev_precision = 0;        // precision and coverage at the threshold on the dev split
  double dev_coverage = 0;
  // The middle way: below `threshold` but at or above this, the right entry is among the first
  // three at least `target_precision` of the time (on the dev split): answer with the first and
  // offer the next. Equal to `threshold` when that buys nothing (or unfitted).
  double offer_threshold = 0.5;
  double dev_offer_coverage = 0;  // share of dev questions at or above offer_threshold
};

struct FusionModel {
  Features weights{};  // sum to 1 over the components in use
  Calibration calibration;
  ScopeGate scope;  // the out-of-scope gate (scope.h)
};

struct Ranked {
  int entry = 0;
  float score = 0;
  int best_document = -1;
  Features features{};
  Evidence evidence;
};

// Candidates ordered by fused score (ties: lower entry index first).
std::vector<Ranked> rank(const std::vector<Candidate>& candidates, const Features& weights);

// Candidates ordered by one component's feature alone.
std::vector<Ranked> rank_by(const std::vector<Candidate>& candidates, Component component);

// Calibrated probability that ranking[index] is right, from its score and its margin over the
// best other candidate (negative below the first place).
double confidence(const Calibration& calibration, const std::vector<Ranked>& ranking,
                  std::size_t index = 0);

// Default weights when nothing could be tuned: equal over the available components.
Features default_weights(const Availability& available);

}  // namespace supportd::kb
