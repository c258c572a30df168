// `supportd kb split`: a seeded, stratified split of labelled questions into a training file
// (to import) and a held-out file (to evaluate on), so evaluation is honest by construction.
// Thread-safe (pure function of its arguments and files).
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"

namespace supportd::kb {

struct SplitOptions {
  std::string label_column;  // empty: the column named label, category or intent
  double holdout = 0.2;      // share of every label's rows held out, in (0, 1)
  std::uint64_t seed = 1;
};

struct SplitCounts {
  int train = 0;
  int test = 0;
  int labels = 0;
};

// Writes `train_path` and `test_path` with the input's header and rows (in their original
// order). Every label keeps at least one training row; a label's held-out count is its row
// count times `holdout`, rounded. kInvalidArgument when an output is the input or the other
// output (the same file by any path or link); each file is written whole through a temporary
// file and a rename, so a failure (kIo) leaves no partial or empty output.
Result<SplitCounts> split_labelled_csv(const std::string& input, const std::string& train_path,
                                       const std::string& test_path, const SplitOptions& options);

}  // namespace supportd::kb
