#include "kb/dense_index.h"

#include <hnswlib/hnswlib.h>

#include <Eigen/Core>
#include <algorithm>
#include <filesystem>

namespace supportd::kb {

struct DenseIndex::Graph {
  explicit Graph(int dimensions) : space(static_cast<std::size_t>(dimensions)) {}
  hnswlib::InnerProductSpace space;
  std::unique_ptr<hnswlib::HierarchicalNSW<float>> index;
};

namespace {

constexpr std::size_t kGraphLinks = 16;          // M
constexpr std::size_t kGraphConstruction = 200;  // ef at construction
constexpr std::size_t kGraphSearch = 128;        // ef at search

}  // namespace

DenseIndex::~DenseIndex() = default;

Result<std::unique_ptr<DenseIndex>> DenseIndex::build(std::vector<float> vectors, int dimensions,
                                                      int exact_limit,
                                                      const std::string& graph_path) {
  if (dimensions <= 0 || vectors.size() % static_cast<std::size_t>(dimensions) != 0) {
    return Error::invalid("vector matrix does not have whole rows of " +
                          std::to_string(dimensions) + " floats");
  }
  std::unique_ptr<DenseIndex> index(new DenseIndex());
  index->dimensions_ = dimensions;
  index->rows_ = static_cast<int>(vectors.size() / static_cast<std::size_t>(dimensions));
  index->vectors_ = std::move(vectors);
  if (index->rows_ <= exact_limit) return index;

  auto graph = std::make_unique<Graph>(dimensions);
  const auto rows = static_cast<std::size_t>(index->rows_);
  try {
    if (!graph_path.empty() && std::filesystem::exists(graph_path)) {
      graph->index =
          std::make_unique<hnswlib::HierarchicalNSW<float>>(&graph->space, graph_path, false, rows);
      if (graph->index->cur_element_count != rows) {
        return Error::make(ErrorCode::kCorrupt,
                           graph_path + ": the graph has " +
                               std::to_string(graph->index->cur_element_count) +
                               " vectors, the matrix " + std::to_string(rows));
      }
    } else {
      graph->index = std::make_unique<hnswlib::HierarchicalNSW<float>>(
          &graph->space, rows, kGraphLinks, kGraphConstruction, 100);
      for (std::size_t row = 0; row < rows; ++row) {
        graph->index->addPoint(index->vectors_.data() + row * static_cast<std::size_t>(dimensions),
                               row);
      }
    }
    graph->index->setEf(kGraphSearch);
  } catch (const std::exception& e) {
    return Error::make(
        ErrorCode::kCorrupt,
        (graph_path.empty() ? std::string("HNSW graph") : graph_path) + ": " + e.what());
  }
  index->graph_ = std::move(graph);
  return index;
}

bool DenseIndex::approximate() const {
  return graph_ != nullptr;
}

std::span<const float> DenseIndex::vector(int row) const {
  return {vectors_.data() + static_cast<std::size_t>(row) * static_cast<std::size_t>(dimensions_),
          static_cast<std::size_t>(dimensions_)};
}

std::vector<DenseIndex::Hit> DenseIndex::search(std::span<const float> query, int k) const {
  std::vector<Hit> hits;
  k = std::min(k, rows_);
  if (k <= 0) return hits;
  if (graph_) {
    auto found = graph_->index->searchKnn(query.data(), static_cast<std::size_t>(k));
    hits.resize(found.size());
    for (std::size_t i = found.size(); i-- > 0;) {  // the queue pops the farthest first
      hits[i] = {static_cast<int>(found.top().second), 1.0f - found.top().first};
      found.pop();
    }
    return hits;
  }
  using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Eigen::Map<const Matrix> matrix(vectors_.data(), rows_, dimensions_);
  const Eigen::Map<const Eigen::VectorXf> q(query.data(), dimensions_);
  thread_local Eigen::VectorXf similarities;
  similarities.noalias() = matrix * q;
  std::vector<int> order(static_cast<std::size_t>(rows_));
  for (int i = 0; i < rows_; ++i)
    order[static_cast<std::size_t>(i)] = i;
  const auto better = [&](int a, int b) {
    return similarities[a] != similarities[b] ? similarities[a] > similarities[b] : a < b;
  };
  std::partial_sort(order.begin(), order.begin() + k, order.end(), better);
  hits.reserve(static_cast<std::size_t>(k));
  for (int i = 0; i < k; ++i) {
    const int row = order[static_cast<std::size_t>(i)];
    hits.push_back({row, similarities[row]});
  }
  return hits;
}

Status DenseIndex::save_graph(const std::string& path) const {
  if (!graph_) return {};
  try {
    graph_->index->saveIndex(path);
  } catch (const std::exception& e) {
    return Error::make(ErrorCode::kIo, path + ": cannot save the HNSW graph (" + e.what() + ")");
  }
  return {};
}

float dot(std::span<const float> a, std::span<const float> b) {
  const Eigen::Map<const Eigen::VectorXf> x(a.data(), static_cast<Eigen::Index>(a.size()));
  const Eigen::Map<const Eigen::VectorXf> y(b.data(), static_cast<Eigen::Index>(b.size()));
  return x.dot(y);
}

}  // namespace supportd::kb
