// The softmax head (softmax_head.h) with Eigen: Adam with L2 on mini-batches at training, one
// matrix product and a softmax per question, a small checked binary file.
#include "kb/classify/softmax_head.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <random>

namespace supportd::kb {
namespace {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
constexpr char kMagic[8] = {'S', 'K', 'B', 'H', 'E', 'A', 'D', '1'};

void softmax_rows(Matrix& logits) {
  for (Eigen::Index r = 0; r < logits.rows(); ++r) {
    auto row = logits.row(r);
    row.array() -= row.maxCoeff();
    row = row.array().exp().matrix();
    row /= row.sum();
  }
}

}  // namespace

Result<std::unique_ptr<SoftmaxHead>> SoftmaxHead::train(
    std::span<const float> vectors, int dimensions, const std::vector<int>& targets,
    const HeadParams& params, const std::function<void(double)>& progress) {
  const std::size_t rows = targets.size();
  if (dimensions <= 0 || rows == 0 ||
      vectors.size() != rows * static_cast<std::size_t>(dimensions)) {
    return Error::invalid("the softmax head needs one vector per target");
  }
  std::unique_ptr<SoftmaxHead> head(new SoftmaxHead());
  head->dimensions_ = dimensions;
  std::map<int, int> class_of;
  for (int target : targets)
    class_of.emplace(target, 0);
  for (auto& [target, index] : class_of) {
    index = static_cast<int>(head->targets_.size());
    head->targets_.push_back(target);
  }
  const auto classes = static_cast<Eigen::Index>(head->targets_.size());
  std::vector<int> labels(rows);
  for (std::size_t i = 0; i < rows; ++i)
    labels[i] = class_of[targets[i]];

  const Eigen::Map<const Matrix> x(vectors.data(), static_cast<Eigen::Index>(rows), dimensions);
  Matrix w = Matrix::Zero(classes, dimensions);
  Eigen::RowVectorXf b = Eigen::RowVectorXf::Zero(classes);
  Matrix mw = Matrix::Zero(classes, dimensions), vw = Matrix::Zero(classes, dimensions);
  Eigen::RowVectorXf mb = Eigen::RowVectorXf::Zero(classes), vb = Eigen::RowVectorXf::Zero(classes);
  const float rate = static_cast<float>(params.learning_rate);
  const float l2 = static_cast<float>(params.l2);
  constexpr float beta1 = 0.9f, beta2 = 0.999f, epsilon = 1e-8f;

  std::vector<std::size_t> order(rows);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::mt19937_64 random(static_cast<std::uint64_t>(params.seed));
  const std::size_t batch = static_cast<std::size_t>(std::max(1, params.batch));
  int step = 0;
  Matrix xb, logits;
  for (int epoch = 0; epoch < params.epochs; ++epoch) {
    for (std::size_t i = rows; i > 1; --i)
      std::swap(order[i - 1], order[random() % i]);
    for (std::size_t start = 0; start < rows; start += batch) {
      const std::size_t size = std::min(batch, rows - start);
      xb.resize(static_cast<Eigen::Index>(size), dimensions);
      for (std::size_t i = 0; i < size; ++i) {
        xb.row(static_cast<Eigen::Index>(i)) = x.row(static_cast<Eigen::Index>(order[start + i]));
      }
      logits.noalias() = xb * w.transpose();
      logits.rowwise() += b;
      softmax_rows(logits);
      for (std::size_t i = 0; i < size; ++i) {
        logits(static_cast<Eigen::Index>(i), labels[order[start + i]]) -= 1.0f;
      }
      logits /= static_cast<float>(size);
      const Matrix gw = logits.transpose() * xb + l2 * w;
      const Eigen::RowVectorXf gb = logits.colwise().sum();
      ++step;
      const float correction1 = 1.0f - std::pow(beta1, static_cast<float>(step));
      const float correction2 = 1.0f - std::pow(beta2, static_cast<float>(step));
      mw = beta1 * mw + (1 - beta1) * gw;
      vw = beta2 * vw + (1 - beta2) * gw.cwiseProduct(gw);
      mb = beta1 * mb + (1 - beta1) * gb;
      vb = beta2 * vb + (1 - beta2) * gb.cwiseProduct(gb);
      w.array() -=
          rate * (mw.array() / correction1) / ((vw.array() / correction2).sqrt() + epsilon);
      b.array() -=
          rate * (mb.array() / correction1) / ((vb.array() / correction2).sqrt() + epsilon);
    }
    if (progress) progress(static_cast<double>(epoch + 1) / params.epochs);
  }
  head->weights_.assign(w.data(), w.data() + w.size());
  head->bias_.assign(b.data(), b.data() + b.size());
  return head;
}

std::vector<SoftmaxHead::Score> SoftmaxHead::predict(std::span<const float> vector) const {
  const auto classes = static_cast<Eigen::Index>(targets_.size());
  const Eigen::Map<const Matrix> w(weights_.data(), classes, dimensions_);
  const Eigen::Map<const Eigen::VectorXf> x(vector.data(), dimensions_);
  const Eigen::Map<const Eigen::VectorXf> b(bias_.data(), classes);
  Eigen::VectorXf logits = w * x + b;
  logits.array() -= logits.maxCoeff();
  logits = logits.array().exp().matrix();
  logits /= logits.sum();
  std::vector<Score> scores(targets_.size());
  for (std::size_t i = 0; i < scores.size(); ++i) {
    scores[i] = {targets_[i], logits[static_cast<Eigen::Index>(i)]};
  }
  return scores;
}

Status SoftmaxHead::save(const std::string& path) const {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  const std::uint32_t header[2] = {static_cast<std::uint32_t>(dimensions_),
                                   static_cast<std::uint32_t>(targets_.size())};
  out.write(kMagic, sizeof kMagic);
  out.write(reinterpret_cast<const char*>(header), sizeof header);
  for (int target : targets_) {
    const auto value = static_cast<std::int32_t>(target);
    out.write(reinterpret_cast<const char*>(&value), sizeof value);
  }
  out.write(reinterpret_cast<const char*>(weights_.data()),
            static_cast<std::streamsize>(weights_.size() * sizeof(float)));
  out.write(reinterpret_cast<const char*>(bias_.data()),
            static_cast<std::streamsize>(bias_.size() * sizeof(float)));
  if (!out) return Error::make(ErrorCode::kIo, path + ": cannot write the softmax head");
  return {};
}

Result<std::unique_ptr<SoftmaxHead>> SoftmaxHead::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::make(ErrorCode::kIo, path + ": cannot open");
  char magic[sizeof kMagic] = {};
  std::uint32_t header[2] = {};
  in.read(magic, sizeof magic);
  in.read(reinterpret_cast<char*>(header), sizeof header);
  if (!in || std::memcmp(magic, kMagic, sizeof kMagic) != 0 || header[0] == 0 ||
      header[0] > 65536 || header[1] == 0 || header[1] > (1u << 24)) {
    return Error::make(ErrorCode::kCorrupt, path + ": not a softmax head file");
  }
  // The header's sizes must match the file's before anything is allocated from them.
  const std::uintmax_t expected =
      sizeof kMagic + sizeof header +
      std::uintmax_t{header[1]} * (sizeof(std::int32_t) + sizeof(float)) +
      std::uintmax_t{header[0]} * header[1] * sizeof(float);
  std::error_code ec;
  if (const std::uintmax_t size = std::filesystem::file_size(path, ec); ec || size != expected) {
    return Error::make(ErrorCode::kCorrupt,
                       path + ": " + std::to_string(size) + " bytes, its header implies " +
                           std::to_string(expected) + " (truncated or damaged)");
  }
  std::unique_ptr<SoftmaxHead> head(new SoftmaxHead());
  head->dimensions_ = static_cast<int>(header[0]);
  head->targets_.resize(header[1]);
  for (int& target : head->targets_) {
    std::int32_t value = 0;
    in.read(reinterpret_cast<char*>(&value), sizeof value);
    target = value;
  }
  head->weights_.resize(static_cast<std::size_t>(header[0]) * header[1]);
  head->bias_.resize(header[1]);
  in.read(reinterpret_cast<char*>(head->weights_.data()),
          static_cast<std::streamsize>(head->weights_.size() * sizeof(float)));
  in.read(reinterpret_cast<char*>(head->bias_.data()),
          static_cast<std::streamsize>(head->bias_.size() * sizeof(float)));
  if (!in || in.peek() != std::char_traits<char>::eof()) {
    return Error::make(ErrorCode::kCorrupt, path + ": truncated or oversized softmax head file");
  }
  for (const std::vector<float>* values : {&head->weights_, &head->bias_}) {
    for (float value : *values) {
      if (!std::isfinite(value))
        return Error::make(ErrorCode::kCorrupt, path + ": a weight is not finite");
    }
  }
  return head;
}

}  // namespace supportd::kb
