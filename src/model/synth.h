// `supportd model synth`: writes an architecture-faithful GGUF with random weights and a real
// tokenizer. The output projection is shaped so that only tokens that are whole UTF-8 text can
// be sampled (byte-fallback, partial-UTF-8 and control tokens have zero rows while the other
// rows give logits with a standard deviation near 8), which leaves the compute unchanged.
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"
#include "model/presets.h"

namespace supportd::model {

struct SynthOptions {
  std::string preset = "tiny";
  std::string type = "f16";  // f16, q8_0, q4_0, q4_k_m
  std::string out;
  std::uint64_t seed = 42;
  bool progress = true;
  // Off: every token can be sampled, including byte fragments that are not UTF-8 on their
  // own (for testing that the server still emits only valid UTF-8).
  bool shape_output = true;
};

struct SynthReport {
  std::int64_t parameters = 0;
  std::int64_t bytes = 0;
  int vocabulary = 0;
  int banned_tokens = 0;  // tokens that can never be sampled
};

Result<SynthReport> synthesize(const SynthOptions& options);

// Writes the model to `out` unless it already exists; returns its path. Used by
// `supportd serve` without --model (cached under ~/.cache/supportd/models).
Result<std::string> synthesize_cached(const std::string& preset, const std::string& type);

}  // namespace supportd::model
