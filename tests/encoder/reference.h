// The reference the encoder tests compare against: token ids and vectors computed by the original
// JavaScript tokenizer and TensorFlow.js graph (generate_reference.mjs, run by
// scripts/fetch-encoder.sh at set-up time into the cache beside the converted weights).
#pragma once

#include <string>
#include <vector>

namespace supportd::testing {

struct ReferenceCase {
  std::string text;
  std::vector<int> ids;
  std::vector<float> vector;  // empty for token-only cases
};

struct Reference {
  std::string source;                  // name@version of the model package
  std::vector<ReferenceCase> tokens;   // every handwritten sentence and every BANKING77 text
  std::vector<ReferenceCase> vectors;  // the sentences embedded by TensorFlow.js
};

// Path of the reference file ($SUPPORTD_CACHE or ~/.cache/supportd, then encoder/).
std::string reference_path();

// Parses the reference; throws std::runtime_error naming the file (and how to make it) on failure.
const Reference& reference();

}  // namespace supportd::testing
