// Checks a fastText model file before fastText reads it: fastText 0.9 trusts every size in the
// file, so a truncated or corrupted model makes it loop forever, allocate without bound or abort
// on an assertion. This walks the layout fastText 0.9 writes (header, arguments, dictionary, the
// two dense matrices) and accepts only what IntentClassifier writes: a supervised softmax model,
// not quantized, whose sizes all agree with the file's length and whose weights are finite.
// Thread-safe (a pure function of the file).
#pragma once

#include <string>

#include "core/status.h"

namespace supportd::kb {

// kCorrupt naming the file and what is wrong; kIo when it cannot be read.
Status check_fasttext_file(const std::string& path);

}  // namespace supportd::kb
