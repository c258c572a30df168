// Nearest vectors (dense_index.h): an exact scan below the limit, hnswlib's HNSW above it, and a
// saved graph checked (header, labels, links) before hnswlib trusts it.
#include "kb/index/dense_index.h"

#include <hnswlib/hnswlib.h>

#include <Eigen/Core>
#include <algorithm>
#include <filesystem>
#include <fstream>

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

// hnswlib trusts the sizes and links in a saved graph: a damaged file makes it allocate from
// garbage or follow links out of bounds. Its header must describe exactly the graph this index
// would build (M, dimensions, rows) before hnswlib reads the file.
Status check_graph_header(const std::string& path, std::size_t rows, int dimensions) {
  std::ifstream in(path, std::ios::binary);
  std::size_t offset_level0 = 0, max_elements = 0, count = 0, size_per_element = 0,
              label_offset = 0, offset_data = 0, max_m = 0, max_m0 = 0, m = 0;
  int max_level = 0;
  unsigned int enterpoint = 0;
  for (std::size_t* field :
       {&offset_level0, &max_elements, &count, &size_per_element, &label_offset, &offset_data}) {
    in.read(reinterpret_cast<char*>(field), sizeof *field);
  }
  in.read(reinterpret_cast<char*>(&max_level), sizeof max_level);
  in.read(reinterpret_cast<char*>(&enterpoint), sizeof enterpoint);
  for (std::size_t* field : {&max_m, &max_m0, &m})
    in.read(reinterpret_cast<char*>(field), sizeof *field);
  const std::size_t links0 = kGraphLinks * 2 * sizeof(unsigned int) + sizeof(unsigned int);
  const std::size_t data = static_cast<std::size_t>(dimensions) * sizeof(float);
  if (!in || offset_level0 != 0 || count != rows || max_elements < rows || m != kGraphLinks ||
      max_m != kGraphLinks || max_m0 != 2 * kGraphLinks || offset_data != links0 ||
      label_offset != links0 + data || size_per_element != links0 + data + sizeof(std::size_t) ||
      max_level < 0 || max_level > 64 || enterpoint >= rows) {
    return Error::make(ErrorCode::kCorrupt,
                       path + ": not the HNSW graph of these vectors (damaged header)");
  }
  return {};
}

// After loading: every label names a row, every level and link count is within bounds and
// every link names an element.
Status check_graph_links(const hnswlib::HierarchicalNSW<float>& graph, std::size_t rows,
                         const std::string& path) {
  auto bad = [&](std::size_t element) {
    return Error::make(ErrorCode::kCorrupt, path + ": element " + std::to_string(element) +
                                                " has a damaged label or link list");
  };
  auto links_ok = [&](unsigned int* list, std::size_t most) {
    const std::size_t n = graph.getListCount(list);
    if (n > most) return false;
    for (std::size_t j = 1; j <= n; ++j) {
      if (list[j] >= rows) return false;
    }
    return true;
  };
  for (std::size_t i = 0; i < rows; ++i) {
    const auto id = static_cast<unsigned int>(i);
    const int levels = graph.element_levels_[i];
    if (graph.getExternalLabel(id) >= rows || levels < 0 || levels > graph.maxlevel_) return bad(i);
    if (!links_ok(graph.get_linklist0(id), graph.maxM0_)) return bad(i);
    for (int level = 1; level <= levels; ++level) {
      if (!links_ok(graph.get_linklist(id, level), graph.maxM_)) return bad(i);
    }
  }
  return {};
}

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
      if (Status status = check_graph_header(graph_path, rows, dimensions); !status)
        return status.error();
      graph->index =
          std::make_unique<hnswlib::HierarchicalNSW<float>>(&graph->space, graph_path, false, rows);
      if (graph->index->cur_element_count != rows) {
        return Error::make(ErrorCode::kCorrupt,
                           graph_path + ": the graph has " +
                               std::to_string(graph->index->cur_element_count) +
                               " vectors, the matrix " + std::to_string(rows));
      }
      if (Status status = check_graph_links(*graph->index, rows, graph_path); !status)
        return status.error();
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
