// Nearest neighbours among L2-normalized vectors by inner product (cosine): exact for small
// sets, an HNSW graph (hnswlib) beyond `exact_limit` vectors.
// Read-only after construction. Thread-safe: search() may run on many threads at once.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/status.h"

namespace supportd::kb {

class DenseIndex {
 public:
  struct Hit {
    int row = 0;           // row of the vector in the matrix given at construction
    float similarity = 0;  // cosine in [-1, 1]
  };

  static constexpr int kDefaultExactLimit = 50000;

  ~DenseIndex();

  // Indexes `rows` vectors of `dimensions` floats (row-major). Above `exact_limit` rows an HNSW
  // graph is built (or loaded from `graph_path` when that file exists and matches; kCorrupt
  // naming it when its header, labels or links do not fit these vectors).
  static Result<std::unique_ptr<DenseIndex>> build(std::vector<float> vectors, int dimensions,
                                                   int exact_limit = kDefaultExactLimit,
                                                   const std::string& graph_path = {});

  // The `k` most similar rows, best first. REQUIRES: query.size() == dimensions().
  std::vector<Hit> search(std::span<const float> query, int k) const;

  // Saves the HNSW graph (no-op for an exact index).
  Status save_graph(const std::string& path) const;

  int dimensions() const { return dimensions_; }
  int rows() const { return rows_; }
  bool approximate() const;
  // Row `row` of the matrix.
  std::span<const float> vector(int row) const;

 private:
  struct Graph;
  DenseIndex() = default;

  std::vector<float> vectors_;
  int dimensions_ = 0;
  int rows_ = 0;
  std::unique_ptr<Graph> graph_;
};

// Dot product of two equal-length vectors.
float dot(std::span<const float> a, std::span<const float> b);

}  // namespace supportd::kb
