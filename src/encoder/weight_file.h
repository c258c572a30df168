// The sentence encoder's weight file, memory-mapped read-only. Written once by
// scripts/convert-encoder.mjs from the npm package; never committed. Layout (little-endian):
//
//   0    char[8]  magic "SUPDENC\0"          40   u64  file size in bytes
//   8    u32      format version (1)         48   u32  FNV-1a of the 32-bit words after byte 128
//   12   u32      tensor count               56   char[64] source package, name@version
//   16   u32      vocabulary size (pieces)   128  tensor table: per tensor 96 bytes =
//   20   u32      reserved pieces (0..5)          char[64] name, u64 offset, u32 rank, u32 dims[4]
//   24   u64      vocabulary offset          then float32 tensors, each 64-byte aligned, and the
//   32   u64      vocabulary size in bytes   vocabulary: f64 scores[n], u32 offsets[n+1], UTF-8.
//
// Linear weights are stored [out][in] (the graph's [in][out] transposed). Thread-safety:
// immutable after open(); any thread may read at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace supportd::encoder {

struct TensorView {
  std::span<const float> data;
  std::vector<std::int64_t> shape;
};

class WeightFile {
 public:
  // Maps and checks the file: magic, version, sizes, offsets, checksum, names. Errors name the
  // file: kNotFound (absent), kIo (unreadable), kCorrupt (anything that does not decode).
  static Result<std::unique_ptr<WeightFile>> open(const std::string& path);
  ~WeightFile();
  WeightFile(const WeightFile&) = delete;
  WeightFile& operator=(const WeightFile&) = delete;

  // The tensor `name` when it exists with exactly `shape`; otherwise kCorrupt naming the file.
  Result<TensorView> tensor(const std::string& name, std::vector<std::int64_t> shape) const;

  std::size_t piece_count() const { return scores_.size(); }
  std::string_view piece(std::size_t id) const;  // REQUIRES: id < piece_count()
  double score(std::size_t id) const { return scores_[id]; }
  std::size_t reserved_pieces() const { return reserved_pieces_; }
  const std::string& source() const { return source_; }
  const std::string& path() const { return path_; }
  std::size_t bytes() const { return size_; }

 private:
  WeightFile(std::string path, const std::byte* base, std::size_t size);
  Status parse();
  Error corrupt(const std::string& what) const;

  std::string path_;
  const std::byte* base_;
  std::size_t size_;
  std::string source_;
  std::map<std::string, TensorView, std::less<>> tensors_;
  std::span<const double> scores_;
  std::span<const std::uint32_t> piece_offsets_;
  std::string_view piece_bytes_;
  std::size_t reserved_pieces_ = 0;
};

}  // namespace supportd::encoder
