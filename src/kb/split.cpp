#include "kb/split.h"

#include <cmath>
#include <fstream>
#include <map>
#include <random>

#include "kb/csv.h"

namespace supportd::kb {

Result<SplitCounts> split_labelled_csv(const std::string& input, const std::string& train_path,
                                       const std::string& test_path, const SplitOptions& options) {
  if (!(options.holdout > 0 && options.holdout < 1)) {
    return Error::invalid("--holdout must be between 0 and 1 (exclusive)");
  }
  auto table = read_csv_file(input);
  if (!table) return table.error();
  int label = -1;
  if (!options.label_column.empty()) {
    label = table->column(options.label_column);
    if (label < 0) {
      return Error::invalid(input + ":1: no column named '" + options.label_column + "'");
    }
  } else {
    for (const char* name : {"label", "category", "intent"}) {
      if (label < 0) label = table->column(name);
    }
    if (label < 0) {
      return Error::invalid(input +
                            ":1: no column named label, category or intent (name it with "
                            "--label-col)");
    }
  }
  std::map<std::string, std::vector<std::size_t>> rows_of;
  for (std::size_t r = 0; r < table->rows.size(); ++r) {
    const std::string& value = table->rows[r].fields[static_cast<std::size_t>(label)];
    if (value.empty()) {
      return Error::invalid(input + ":" + std::to_string(table->rows[r].line) +
                            ": the label is empty");
    }
    rows_of[value].push_back(r);
  }
  if (rows_of.empty()) return Error::invalid(input + ": no rows to split");
  std::vector<bool> held_out(table->rows.size(), false);
  std::mt19937_64 random(options.seed);
  for (auto& [name, rows] : rows_of) {
    // Fisher-Yates with the engine's raw output: the same split on every platform.
    for (std::size_t i = rows.size(); i > 1; --i)
      std::swap(rows[i - 1], rows[random() % i]);
    auto count =
        static_cast<std::size_t>(std::llround(options.holdout * static_cast<double>(rows.size())));
    count = std::min(count, rows.size() - 1);
    for (std::size_t i = 0; i < count; ++i)
      held_out[rows[i]] = true;
  }
  std::ofstream train(train_path, std::ios::binary | std::ios::trunc);
  std::ofstream test(test_path, std::ios::binary | std::ios::trunc);
  if (!train) return Error::make(ErrorCode::kIo, train_path + ": cannot write");
  if (!test) return Error::make(ErrorCode::kIo, test_path + ": cannot write");
  train << format_csv_row(table->header);
  test << format_csv_row(table->header);
  SplitCounts counts;
  counts.labels = static_cast<int>(rows_of.size());
  for (std::size_t r = 0; r < table->rows.size(); ++r) {
    (held_out[r] ? test : train) << format_csv_row(table->rows[r].fields);
    ++(held_out[r] ? counts.test : counts.train);
  }
  if (!train || !test) return Error::make(ErrorCode::kIo, "cannot write the split files");
  return counts;
}

}  // namespace supportd::kb
