// `kb split` (split.h): a seeded split per label, refusing outputs that are the input or each
// other, each written through a temporary file.
#include "kb/eval/split.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <tuple>

#include "core/same_file.h"
#include "core/temp_file.h"
#include "kb/import/csv.h"

namespace supportd::kb {
namespace {

namespace fs = std::filesystem;

}  // namespace

Result<SplitCounts> split_labelled_csv(const std::string& input, const std::string& train_path,
                                       const std::string& test_path, const SplitOptions& options) {
  if (!(options.holdout > 0 && options.holdout < 1)) {
    return Error::invalid("--holdout must be between 0 and 1 (exclusive)");
  }
  if (same_file(train_path, input) || same_file(test_path, input)) {
    return Error::invalid(
        (same_file(train_path, input) ? "--out-train " + train_path : "--out-test " + test_path) +
        " is the input " + input + ": it would be overwritten");
  }
  if (same_file(train_path, test_path)) {
    return Error::invalid("--out-train " + train_path + " and --out-test " + test_path +
                          " are the same file: one part would be lost");
  }
  for (const std::string* path : {&train_path, &test_path}) {
    std::error_code ec;
    if (fs::is_directory(*path, ec)) return Error::invalid(*path + ": is a directory");
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
  std::string train = format_csv_row(table->header);
  std::string test = train;
  SplitCounts counts;
  counts.labels = static_cast<int>(rows_of.size());
  for (std::size_t r = 0; r < table->rows.size(); ++r) {
    (held_out[r] ? test : train) += format_csv_row(table->rows[r].fields);
    ++(held_out[r] ? counts.test : counts.train);
  }
  // Both files are written in full before either replaces anything.
  const auto directory_of = [](const std::string& path) {
    const fs::path parent = fs::path(path).parent_path();
    return parent.empty() ? std::string(".") : parent.string();
  };
  TempFile train_file(directory_of(train_path), "split");
  TempFile test_file(directory_of(test_path), "split");
  for (const auto& [file, content, path] :
       {std::tuple{&train_file, &train, &train_path}, std::tuple{&test_file, &test, &test_path}}) {
    std::ofstream out;
    if (file->ok()) out.open(file->path(), std::ios::binary | std::ios::trunc);
    if (out) out << *content;
    if (!out || !out.flush()) return Error::make(ErrorCode::kIo, *path + ": cannot write");
  }
  if (Status status = train_file.commit(train_path); !status) return status.error();
  if (Status status = test_file.commit(test_path); !status) return status.error();
  return counts;
}

}  // namespace supportd::kb
