// The Numenta Anomaly Benchmark's scoring (Lavin and Ahmad 2015; NAB's nab/sweeper.py, read
// and re-implemented): labelled windows, the scaled sigmoid that rewards an early detection in
// a window and penalises a false one by its distance from the window before it, the
// probationary period at the start of each file, one threshold swept over the whole corpus to
// maximise the total, and the normalisation between the null and the perfect detector.
// Thread-safety: pure functions over values.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace supportd::bench::nab {

// One profile's weights (config/profiles.json: "CostMatrix").
struct CostMatrix {
  double true_positive = 1.0;
  double false_positive = 0.11;
  double false_negative = 1.0;
};

// A labelled window: the rows from `first` to `last`, inclusive.
struct Window {
  std::size_t first = 0;
  std::size_t last = 0;
};

// One data file's detector output and labels.
struct ScoredFile {
  std::string name;                    // e.g. "realTweets/Twitter_volume_AAPL.csv"
  std::vector<double> anomaly_scores;  // one per row, in [0, 1]
  std::vector<Window> windows;         // in time order, not overlapping
};

// NAB's scaled sigmoid of a relative position: 2 * sigmoid(-5 x) - 1, and -1 beyond x = 3.
double scaled_sigmoid(double relative_position);

// Rows at the start of a file of `rows` rows that are not scored: min(floor(15%), 750).
std::size_t probationary_rows(std::size_t rows);

// What a detection at one row would be worth, for every row of a file.
struct RowWorth {
  double anomaly_score = 0;
  double worth = 0;    // the weighted scaled sigmoid of the row's place
  long window = -1;    // corpus-wide window id for rows in a window, else -1
  bool scored = true;  // false in the probationary period
};

// The rows of a file with their worth. `first_window_id` numbers the file's windows (the
// caller keeps ids unique across the corpus).
std::vector<RowWorth> row_worth(const ScoredFile& file, const CostMatrix& cost,
                                long first_window_id);

// The outcome of one threshold: a row is a detection when its anomaly score >= threshold.
struct ThresholdOutcome {
  double threshold = 1.1;  // above every score: nothing detected
  double score = 0;        // raw NAB score: sum of window rewards and false-positive costs
  std::size_t true_positives = 0, false_positives = 0;  // detected rows in / out of windows
  std::size_t windows = 0, windows_detected = 0;
};

// Every distinct threshold over `rows` (all scored rows of every file of a corpus), from the
// highest down; the first entry is 1.1 (nothing detected).
std::vector<ThresholdOutcome> sweep(const std::vector<RowWorth>& rows, const CostMatrix& cost);

// The outcome with the highest score (the highest threshold among equal scores), as NAB's
// optimiser picks it.
ThresholdOutcome best_threshold(const std::vector<RowWorth>& rows, const CostMatrix& cost);

// The outcome of one given threshold.
ThresholdOutcome at_threshold(const std::vector<RowWorth>& rows, const CostMatrix& cost,
                              double threshold);

// 100 * (raw - null) / (perfect - null): the null detector scores 0, the perfect one 100.
double normalised(double raw, double null_raw, double perfect_raw);

// A corpus scored under one profile.
struct CorpusScore {
  ThresholdOutcome best;                   // the swept threshold and the corpus total at it
  double null_raw = 0;                     // the null detector's total (a constant score of 0.5)
  double perfect_raw = 0;                  // true-positive weight x number of windows
  double normalised_score = 0;             // 0..100
  std::vector<ThresholdOutcome> per_file;  // at best.threshold, in the order of the files
};

// With `fixed_threshold`, that threshold instead of the swept one (to re-score a published
// result at the threshold it was published with).
CorpusScore score_corpus(const std::vector<ScoredFile>& files, const CostMatrix& cost,
                         std::optional<double> fixed_threshold = std::nullopt);

// Score of `files` at a given threshold, normalised between their own null and perfect
// detector (nullopt-like: 0 windows gives perfect == null; then returns the raw score).
struct SubsetScore {
  double raw = 0, null_raw = 0, perfect_raw = 0, normalised_score = 0;
  std::size_t windows = 0;
};
SubsetScore score_subset(const std::vector<ScoredFile>& files, const CostMatrix& cost,
                         double threshold);

}  // namespace supportd::bench::nab
