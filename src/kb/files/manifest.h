// manifest.json of a knowledge-base generation: the format, the choices made at import and
// the dev results. Writing replaces the file atomically; reading validates every field and names
// the file and key. Thread-safe (pure functions on paths).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "kb/analyze/text_analyzer.h"
#include "kb/classify/intent_classifier.h"
#include "kb/classify/softmax_head.h"
#include "kb/search/fusion.h"
#include "kb/train/semantic_cache_threshold.h"

namespace supportd::kb {

inline constexpr int kFormatVersion = 1;

struct SourceSummary {
  std::string file;
  std::string format;
  int records = 0;
  int entries = 0;
};

struct ComponentAccuracy {
  std::string component;  // component_name(), or "fused"
  double top1 = 0;
  double top3 = 0;
};

// Results on the questions held out at import (for the lexical path and, with vectors, the
// full), each scored by components trained without its fold.
struct DevSummary {
  int questions = 0;
  int folds = 0;  // 0: written before cross-fitting (one dev split)
  std::vector<ComponentAccuracy> lexical;
  std::vector<ComponentAccuracy> vectors;
};

// A data file of the generation as import wrote it, checked before the file is read: a truncated
// or damaged file is refused naming it instead of reaching fastText, hnswlib or the parsers.
struct FileRecord {
  std::string name;  // "entries.jsonl", "classifier-1.bin", "vectors.bin", ...
  std::int64_t bytes = 0;
  std::string fnv1a64;  // file_hash()
};

struct Manifest {
  int format_version = kFormatVersion;
  int generation = 0;
  std::string version;  // "g<generation>-<content hash>": changes whenever the content does
  std::string created;  // UTC, ISO 8601
  std::vector<SourceSummary> sources;
  int entries = 0;
  int documents = 0;
  AnalyzerOptions bm25_analyzer;
  AnalyzerOptions classifier_analyzer;
  float bm25_k1 = 1.2f;
  float bm25_b = 0.75f;
  float bm25_function_word_weight = 1.0f;
  std::vector<ClassifierParams> classifiers;  // classifier-1.bin, ...: fastText models averaged
  std::string encoder;  // fingerprint of the model that made vectors.bin; empty: no vectors
  int dimensions = 0;
  bool head = false;  // head.bin present
  HeadParams head_params;
  int exact_limit = 50000;  // above this many vectors, nearest neighbours come from graph.bin
  bool graph = false;       // graph.bin present
  FusionModel lexical;      // used when a query has no vector
  FusionModel vectors;      // used when it has one
  std::optional<SemanticCacheCalibration> semantic_cache;
  DevSummary dev;
  std::vector<std::string> notes;
  std::vector<FileRecord> files;  // empty: a generation written before files were recorded
};

Status write_manifest(const std::string& path, const Manifest& manifest);
Result<Manifest> read_manifest(const std::string& path);

// Records the size and hash of every data file in the `generation` directory into `files`.
Status record_files(const std::string& generation, Manifest& manifest);
// Checks `name` in `generation` against its record: kCorrupt naming the file when the size or
// hash differs, or when files are recorded but this one is not. OK without records (an older
// generation: the readers' own checks are all there is).
Status verify_file(const Manifest& manifest, const std::string& generation,
                   const std::string& name);

}  // namespace supportd::kb
