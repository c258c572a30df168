// A softmax-regression intent head on sentence vectors: one weight row per entry that has
// questions, trained at import with Adam and L2 regularization, saved beside the entries.
// Read-only after training or loading. Thread-safe: predict() may run on many threads at once.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/status.h"

namespace supportd::kb {

struct HeadParams {
  int epochs = 40;
  double learning_rate = 0.005;
  double l2 = 0;  // weight decay
  int batch = 32;
  int seed = 1;
};

class SoftmaxHead {
 public:
  struct Score {
    int target = 0;  // the target (entry index) given at training
    float probability = 0;
  };

  // Trains on `rows` vectors of `dimensions` floats with one target each (any ints; each
  // distinct target becomes a class). `progress` gets 0..1.
  static Result<std::unique_ptr<SoftmaxHead>> train(
      std::span<const float> vectors, int dimensions, const std::vector<int>& targets,
      const HeadParams& params, const std::function<void(double)>& progress = {});

  // Reads a head saved by save(); kCorrupt naming the file when its size is not the one its
  // header implies (checked before allocating) or a weight is not finite.
  static Result<std::unique_ptr<SoftmaxHead>> load(const std::string& path);
  Status save(const std::string& path) const;

  // Every class's probability for `vector`. REQUIRES: vector.size() == dimensions().
  std::vector<Score> predict(std::span<const float> vector) const;

  int dimensions() const { return dimensions_; }
  const std::vector<int>& targets() const { return targets_; }

 private:
  SoftmaxHead() = default;

  int dimensions_ = 0;
  std::vector<int> targets_;    // class -> target
  std::vector<float> weights_;  // classes x dimensions, row-major
  std::vector<float> bias_;     // classes
};

}  // namespace supportd::kb
