// Metrics with labels, exposed in the Prometheus text format (version 0.0.4): counters,
// gauges and histograms, grouped in families by name. Thread-safety: everything here may be
// used from any thread; updates are lock-free once a labelled child has been looked up.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace supportd::obs {

using Labels = std::vector<std::string>;  // values, in the order of the family's label names

class Counter {
 public:
  void increment(double amount = 1.0);
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0.0};
};

class Gauge {
 public:
  void set(double value) { value_.store(value, std::memory_order_relaxed); }
  void add(double amount);
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0.0};
};

class Histogram {
 public:
  explicit Histogram(std::vector<double> upper_bounds);
  void observe(double value);

  struct Snapshot {
    std::vector<double> upper_bounds;
    std::vector<std::uint64_t> cumulative;  // per bound, then +Inf
    double sum = 0;
    std::uint64_t count = 0;
  };
  Snapshot snapshot() const;

 private:
  const std::vector<double> bounds_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> buckets_;  // bounds_.size() + 1
  std::atomic<double> sum_{0.0};
  std::atomic<std::uint64_t> count_{0};
};

enum class MetricType { kCounter, kGauge, kHistogram };

// One metric name with its labelled children.
template <typename Metric>
class Family {
 public:
  Family(std::string name, std::string help, std::vector<std::string> label_names,
         std::function<std::unique_ptr<Metric>()> make)
      : name_(std::move(name)),
        help_(std::move(help)),
        label_names_(std::move(label_names)),
        make_(std::move(make)) {}

  // The child for these label values (created on first use). The reference stays valid.
  Metric& with(const Labels& values) {
    std::lock_guard lock(mutex_);
    auto& slot = children_[values];
    if (!slot) slot = make_();
    return *slot;
  }
  Metric& get() { return with({}); }

  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  const std::vector<std::string>& label_names() const { return label_names_; }
  template <typename F>
  void for_each(F&& f) const {
    std::lock_guard lock(mutex_);
    for (const auto& [labels, metric] : children_)
      f(labels, *metric);
  }

 private:
  const std::string name_;
  const std::string help_;
  const std::vector<std::string> label_names_;
  const std::function<std::unique_ptr<Metric>()> make_;
  mutable std::mutex mutex_;
  std::map<Labels, std::unique_ptr<Metric>> children_;  // guarded by mutex_
};

class Registry {
 public:
  Family<Counter>& counter(const std::string& name, const std::string& help,
                           std::vector<std::string> label_names = {});
  Family<Gauge>& gauge(const std::string& name, const std::string& help,
                       std::vector<std::string> label_names = {});
  Family<Histogram>& histogram(const std::string& name, const std::string& help,
                               std::vector<std::string> label_names, std::vector<double> bounds);

  // Called before every exposition, to refresh gauges from their sources.
  void on_collect(std::function<void()> collector);

  // The whole registry in Prometheus text format.
  std::string expose() const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Family<Counter>>> counters_;      // guarded by mutex_
  std::vector<std::unique_ptr<Family<Gauge>>> gauges_;          // guarded by mutex_
  std::vector<std::unique_ptr<Family<Histogram>>> histograms_;  // guarded by mutex_
  std::vector<std::function<void()>> collectors_;               // guarded by mutex_
};

// Bucket bounds growing by `factor` from `start`, `count` of them.
std::vector<double> exponential_buckets(double start, double factor, int count);

}  // namespace supportd::obs
