// NAB's scoring, written from its documentation and a reading of nab/sweeper.py,
// nab/optimizer.py and nab/runner.py (numenta/NAB at ea702d7).
#include "nab/nab_scorer.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace supportd::bench::nab {

double scaled_sigmoid(double relative_position) {
  if (relative_position > 3.0) return -1.0;
  return 2.0 / (1.0 + std::exp(5.0 * relative_position)) - 1.0;
}

std::size_t probationary_rows(std::size_t rows) {
  return std::min<std::size_t>(static_cast<std::size_t>(std::floor(0.15 * rows)), 750);
}

std::vector<RowWorth> row_worth(const ScoredFile& file, const CostMatrix& cost,
                                long first_window_id) {
  const double max_true_positive = scaled_sigmoid(-1.0);
  const std::size_t probation = probationary_rows(file.anomaly_scores.size());
  std::vector<RowWorth> rows(file.anomaly_scores.size());
  std::size_t next_window = 0;
  const Window* current = nullptr;
  bool after_a_window = false;
  std::size_t previous_last = 0;
  double previous_width = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!current && next_window < file.windows.size() && file.windows[next_window].first == i) {
      current = &file.windows[next_window];
    }
    RowWorth& row = rows[i];
    row.anomaly_score = file.anomaly_scores[i];
    row.scored = i >= probation;
    if (current) {
      // A detection here is a true positive, worth more the earlier it is in the window.
      const double width = static_cast<double>(current->last - current->first + 1);
      const double position = -static_cast<double>(current->last - i + 1) / width;
      row.worth = scaled_sigmoid(position) * cost.true_positive / max_true_positive;
      row.window = first_window_id + static_cast<long>(next_window);
    } else if (!after_a_window) {
      row.worth = -1.0 * cost.false_positive;  // no window before: as far from one as can be
    } else {
      // A false positive, costing more the further it is past the window before it.
      const double distance = static_cast<double>(i - previous_last);
      row.worth =
          scaled_sigmoid(distance / std::max(1.0, previous_width - 1)) * cost.false_positive;
    }
    if (current && i == current->last) {
      after_a_window = true;
      previous_last = i;
      previous_width = static_cast<double>(current->last - current->first + 1);
      current = nullptr;
      ++next_window;
    }
  }
  return rows;
}

namespace {

// Running totals as the threshold comes down: each window keeps its best detection (or the
// false-negative cost while it has none); false positives add up.
class Tally {
 public:
  Tally(const std::vector<const RowWorth*>& rows, const CostMatrix& cost) {
    for (const RowWorth* row : rows) {
      if (row->window >= 0 && best_.emplace(row->window, Best{-cost.false_negative}).second) {
        score_ -= cost.false_negative;
      }
    }
  }

  void detect(const RowWorth& row) {
    if (row.window < 0) {
      score_ += row.worth;
      ++false_positives_;
      return;
    }
    ++true_positives_;
    Best& best = best_.at(row.window);
    if (!best.detected) ++windows_detected_;
    best.detected = true;
    if (row.worth > best.worth) {
      score_ += row.worth - best.worth;
      best.worth = row.worth;
    }
  }

  ThresholdOutcome outcome(double threshold) const {
    return {threshold, score_, true_positives_, false_positives_, best_.size(), windows_detected_};
  }

 private:
  struct Best {
    double worth = 0;  // of the best detection so far, or minus the false-negative weight
    bool detected = false;
  };
  std::unordered_map<long, Best> best_;
  double score_ = 0;
  std::size_t true_positives_ = 0, false_positives_ = 0, windows_detected_ = 0;
};

std::vector<const RowWorth*> scored_rows_by_score(const std::vector<RowWorth>& rows) {
  std::vector<const RowWorth*> sorted;
  sorted.reserve(rows.size());
  for (const RowWorth& row : rows) {
    if (row.scored) sorted.push_back(&row);
  }
  std::stable_sort(sorted.begin(), sorted.end(), [](const RowWorth* a, const RowWorth* b) {
    return a->anomaly_score > b->anomaly_score;
  });
  return sorted;
}

// Rows of a null detector (a constant 0.5) over `files`, window ids unique across them.
std::vector<RowWorth> null_rows(const std::vector<ScoredFile>& files, const CostMatrix& cost) {
  std::vector<RowWorth> rows;
  long window_id = 0;
  for (const ScoredFile& file : files) {
    ScoredFile constant{file.name, std::vector<double>(file.anomaly_scores.size(), 0.5),
                        file.windows};
    const auto file_rows = row_worth(constant, cost, window_id);
    rows.insert(rows.end(), file_rows.begin(), file_rows.end());
    window_id += static_cast<long>(file.windows.size());
  }
  return rows;
}

std::size_t window_count(const std::vector<ScoredFile>& files) {
  std::size_t windows = 0;
  for (const ScoredFile& file : files)
    windows += file.windows.size();
  return windows;
}

}  // namespace

std::vector<ThresholdOutcome> sweep(const std::vector<RowWorth>& rows, const CostMatrix& cost) {
  const auto sorted = scored_rows_by_score(rows);
  Tally tally(sorted, cost);
  std::vector<ThresholdOutcome> outcomes;
  double threshold = 1.1;
  for (const RowWorth* row : sorted) {
    if (row->anomaly_score != threshold) {
      outcomes.push_back(tally.outcome(threshold));
      threshold = row->anomaly_score;
    }
    tally.detect(*row);
  }
  outcomes.push_back(tally.outcome(threshold));
  return outcomes;
}

ThresholdOutcome best_threshold(const std::vector<RowWorth>& rows, const CostMatrix& cost) {
  const auto outcomes = sweep(rows, cost);
  ThresholdOutcome best = outcomes.front();
  for (const ThresholdOutcome& outcome : outcomes) {
    if (outcome.score > best.score) best = outcome;
  }
  return best;
}

ThresholdOutcome at_threshold(const std::vector<RowWorth>& rows, const CostMatrix& cost,
                              double threshold) {
  const auto sorted = scored_rows_by_score(rows);
  Tally tally(sorted, cost);
  for (const RowWorth* row : sorted) {
    if (row->anomaly_score < threshold) break;
    tally.detect(*row);
  }
  return tally.outcome(threshold);
}

double normalised(double raw, double null_raw, double perfect_raw) {
  return 100.0 * (raw - null_raw) / (perfect_raw - null_raw);
}

CorpusScore score_corpus(const std::vector<ScoredFile>& files, const CostMatrix& cost,
                         std::optional<double> fixed_threshold) {
  std::vector<RowWorth> rows;
  std::vector<std::vector<RowWorth>> file_rows;
  long window_id = 0;
  for (const ScoredFile& file : files) {
    file_rows.push_back(row_worth(file, cost, window_id));
    rows.insert(rows.end(), file_rows.back().begin(), file_rows.back().end());
    window_id += static_cast<long>(file.windows.size());
  }
  CorpusScore result;
  result.best =
      fixed_threshold ? at_threshold(rows, cost, *fixed_threshold) : best_threshold(rows, cost);
  result.null_raw = best_threshold(null_rows(files, cost), cost).score;
  result.perfect_raw = cost.true_positive * static_cast<double>(window_count(files));
  result.normalised_score = normalised(result.best.score, result.null_raw, result.perfect_raw);
  for (const auto& one : file_rows)
    result.per_file.push_back(at_threshold(one, cost, result.best.threshold));
  return result;
}

SubsetScore score_subset(const std::vector<ScoredFile>& files, const CostMatrix& cost,
                         double threshold) {
  std::vector<RowWorth> rows;
  long window_id = 0;
  for (const ScoredFile& file : files) {
    const auto file_rows = row_worth(file, cost, window_id);
    rows.insert(rows.end(), file_rows.begin(), file_rows.end());
    window_id += static_cast<long>(file.windows.size());
  }
  SubsetScore result;
  result.windows = window_count(files);
  result.raw = at_threshold(rows, cost, threshold).score;
  result.null_raw = best_threshold(null_rows(files, cost), cost).score;
  result.perfect_raw = cost.true_positive * static_cast<double>(result.windows);
  if (result.windows > 0)
    result.normalised_score = normalised(result.raw, result.null_raw, result.perfect_raw);
  return result;
}

}  // namespace supportd::bench::nab
