// Open-set measures for `kb eval`: how a knowledge base does when some questions are outside
// what it covers (labelled `oos`, or with a label no entry has). Zhang et al. 2021
// (arXiv 2106.04564): in-scope accuracy, out-of-scope recall and precision at the knowledge
// base's own threshold, and the coverage–accuracy table over thresholds.
// Thread-safe (pure functions).
#pragma once

#include <optional>
#include <vector>

namespace supportd::kb {

// One evaluated question, as the measures see it.
struct ScoredQuestion {
  bool in_scope = false;   // its label is one an entry of the knowledge base has
  bool right = false;      // the first hit has its label (false when out of scope)
  bool confident = false;  // the knowledge base answered it (at its own threshold)
  double confidence = 0;   // the first hit's calibrated confidence (0 without hits)
};

struct OpenSetScores {
  int in_scope = 0;
  int out_of_scope = 0;
  // In-scope questions answered with the right entry, over all in-scope questions (a declined
  // in-scope question counts as wrong).
  double in_scope_accuracy = 0;
  // Out-of-scope questions declined, over all out-of-scope questions.
  double oos_recall = 0;
  // Declined questions that were out of scope, over all declined questions (0 when none was).
  double oos_precision = 0;
};

// The scores at the knowledge base's own decision (ScoredQuestion::confident). nullopt when
// no question is out of scope (the measures mean nothing then).
std::optional<OpenSetScores> open_set_scores(const std::vector<ScoredQuestion>& questions);

// One row of the coverage–accuracy table: answering when confidence >= threshold.
struct CoveragePoint {
  double threshold = 0;
  double answered = 0;           // share of all questions answered
  double accuracy = 0;           // share of the answered ones that were right (0 when none)
  double in_scope_accuracy = 0;  // as in OpenSetScores, at this threshold
  double oos_recall = 0;         // as in OpenSetScores (0 when no question is out of scope)
};

// The table at thresholds 0, 0.1, ..., 0.9, 0.95, 0.99 and `own_threshold` (the knowledge
// base's), sorted by threshold, without duplicates. A question whose confidence is 0 (no hits,
// or no word in common with the knowledge base) is never answered, not even at threshold 0.
std::vector<CoveragePoint> coverage_table(const std::vector<ScoredQuestion>& questions,
                                          double own_threshold);

}  // namespace supportd::kb
