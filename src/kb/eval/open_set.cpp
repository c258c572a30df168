// Open-set measures (open_set.h): in-scope accuracy, out-of-scope recall and precision, and the
// coverage–accuracy table, from each question's scope, rightness and confidence.
#include "kb/eval/open_set.h"

#include <algorithm>
#include <cmath>

namespace supportd::kb {
namespace {

double share(int part, int whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// The scores when `answered(question)` says which questions are answered.
template <typename Answered>
OpenSetScores scores_with(const std::vector<ScoredQuestion>& questions, Answered answered) {
  OpenSetScores scores;
  int in_scope_right = 0, oos_declined = 0, declined = 0;
  for (const ScoredQuestion& question : questions) {
    const bool answers = answered(question);
    if (question.in_scope) {
      ++scores.in_scope;
      if (answers && question.right) ++in_scope_right;
    } else {
      ++scores.out_of_scope;
      if (!answers) ++oos_declined;
    }
    if (!answers) ++declined;
  }
  scores.in_scope_accuracy = share(in_scope_right, scores.in_scope);
  scores.oos_recall = share(oos_declined, scores.out_of_scope);
  scores.oos_precision = share(oos_declined, declined);
  return scores;
}

}  // namespace

std::optional<OpenSetScores> open_set_scores(const std::vector<ScoredQuestion>& questions) {
  OpenSetScores scores =
      scores_with(questions, [](const ScoredQuestion& question) { return question.confident; });
  if (scores.out_of_scope == 0) return std::nullopt;
  return scores;
}

std::vector<CoveragePoint> coverage_table(const std::vector<ScoredQuestion>& questions,
                                          double own_threshold) {
  std::vector<double> thresholds = {0.0, 0.1, 0.2, 0.3,  0.4,  0.5,          0.6,
                                    0.7, 0.8, 0.9, 0.95, 0.99, own_threshold};
  std::sort(thresholds.begin(), thresholds.end());
  thresholds.erase(std::unique(thresholds.begin(), thresholds.end(),
                               [](double a, double b) { return std::abs(a - b) < 1e-9; }),
                   thresholds.end());
  std::vector<CoveragePoint> table;
  for (double threshold : thresholds) {
    const auto answered = [threshold](const ScoredQuestion& question) {
      return question.confidence > 0 && question.confidence >= threshold;
    };
    int answers = 0, right = 0;
    for (const ScoredQuestion& question : questions) {
      if (!answered(question)) continue;
      ++answers;
      if (question.in_scope && question.right) ++right;
    }
    const OpenSetScores scores = scores_with(questions, answered);
    table.push_back({threshold, share(answers, static_cast<int>(questions.size())),
                     share(right, answers), scores.in_scope_accuracy, scores.oos_recall});
  }
  return table;
}

}  // namespace supportd::kb
