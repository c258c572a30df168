// The knowledge-base directory, versioned like LevelDB's CURRENT file:
//   DIR/CURRENT          the name of the live generation ("gen-000003"), replaced atomically
//   DIR/gen-000003/      manifest.json (format, choices made at import, dev results),
//                        entries.jsonl (one entry per line), and when present classifier-N.bin
//                        (fastText), vectors.bin, head.bin, graph.bin (HNSW)
// Import writes a new generation completely, then points CURRENT at it, so a reader never
// sees a half-written knowledge base. Reading validates everything and names file and line.
// Thread-safe (pure functions on paths; concurrent writers to one DIR are not supported).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "kb/entry.h"
#include "kb/fusion.h"
#include "kb/intent_classifier.h"
#include "kb/semantic_cache.h"
#include "kb/softmax_head.h"
#include "kb/text_analyzer.h"

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
};

// The generation directory CURRENT points at (absolute or relative to `dir` as given).
Result<std::string> current_generation(const std::string& dir);
// A fresh generation directory name after the existing ones, and its number.
Result<std::pair<std::string, int>> next_generation(const std::string& dir);
// Points CURRENT at `generation` atomically and removes generations older than the previous.
Status publish_generation(const std::string& dir, const std::string& generation_name);

Status write_manifest(const std::string& path, const Manifest& manifest);
Result<Manifest> read_manifest(const std::string& path);

Status write_entries(const std::string& path, const std::vector<Entry>& entries);
Result<std::vector<Entry>> read_entries(const std::string& path);

// Vectors of some documents: rows of `dimensions` floats and the document each row belongs to.
struct StoredVectors {
  int dimensions = 0;
  int documents = 0;  // how many documents the knowledge base had
  std::vector<int> document_of_row;
  std::vector<float> values;
};
Status write_vectors(const std::string& path, const StoredVectors& vectors);
Result<StoredVectors> read_vectors(const std::string& path);

// "classifier-1.bin", "classifier-2.bin", ...: the file of the index-th fastText model.
std::string classifier_file(std::size_t index);

// 64-bit FNV-1a of a file's bytes, as 16 hex digits.
Result<std::string> file_hash(const std::string& path);

}  // namespace supportd::kb
