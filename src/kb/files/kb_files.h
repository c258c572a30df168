// The knowledge-base directory, versioned like LevelDB's CURRENT file:
//   DIR/CURRENT          the name of the live generation ("gen-000003"), replaced atomically
//   DIR/gen-000003/      manifest.json (format, choices made at import, dev results),
//                        entries.jsonl (one entry per line), and when present classifier-N.bin
//                        (fastText), vectors.bin, head.bin, graph.bin (HNSW)
// Import writes a new generation completely, then points CURRENT at it, so a reader never
// sees a half-written knowledge base. Reading validates everything and names file and line;
// read_vectors() checks the file's size against its header before allocating.
// Thread-safe (pure functions on paths; concurrent writers to one DIR are not supported).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "kb/entry.h"
#include "kb/files/manifest.h"  // manifest.json, part of every generation

namespace supportd::kb {

// The generation directory CURRENT points at (absolute or relative to `dir` as given).
Result<std::string> current_generation(const std::string& dir);
// A fresh generation directory name after the existing ones, and its number.
Result<std::pair<std::string, int>> next_generation(const std::string& dir);
// Points CURRENT at `generation` atomically and removes generations older than the previous.
Status publish_generation(const std::string& dir, const std::string& generation_name);

Status write_entries(const std::string& path, const std::vector<Entry>& entries);
Result<std::vector<Entry>> read_entries(const std::string& path);

// vectors.bin: StoredVectors (entry.h).
Status write_vectors(const std::string& path, const StoredVectors& vectors);
Result<StoredVectors> read_vectors(const std::string& path);

// "classifier-1.bin", "classifier-2.bin", ...: the file of the index-th fastText model.
std::string classifier_file(std::size_t index);

// 64-bit FNV-1a of a file's bytes, as 16 hex digits.
Result<std::string> file_hash(const std::string& path);

}  // namespace supportd::kb
