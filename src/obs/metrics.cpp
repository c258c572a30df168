// Counters, gauges and histograms as atomics, families keyed by label values, and the
// registry's Prometheus text exposition (escaping, number formatting, collectors run first).
#include "obs/metrics.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace supportd::obs {
namespace {

void atomic_add(std::atomic<double>& target, double amount) {
  double current = target.load(std::memory_order_relaxed);
  while (!target.compare_exchange_weak(current, current + amount, std::memory_order_relaxed)) {
  }
}

std::string escape(const std::string& value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string number(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (std::isnan(v)) return "NaN";
  if (v == std::floor(v) && std::abs(v) < 1e15) return fmt::format("{:.0f}", v);
  return fmt::format("{}", v);
}

// {a="x",b="y"} with an optional extra label (le for histogram buckets).
std::string label_set(const std::vector<std::string>& names, const Labels& values,
                      const std::string& extra_name = {}, const std::string& extra_value = {}) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < values.size(); ++i) {
    out += fmt::format("{}{}=\"{}\"", out.empty() ? "" : ",", names[i], escape(values[i]));
  }
  if (!extra_name.empty())
    out += fmt::format("{}{}=\"{}\"", out.empty() ? "" : ",", extra_name, extra_value);
  return out.empty() ? std::string() : "{" + out + "}";
}

void header(std::string& out, const std::string& name, const std::string& help, const char* type) {
  out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

}  // namespace

void Counter::increment(double amount) {
  atomic_add(value_, amount);
}

void Gauge::add(double amount) {
  atomic_add(value_, amount);
}

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds_(std::move(upper_bounds)),
      buckets_(new std::atomic<std::uint64_t>[bounds_.size() + 1]) {
  for (std::size_t i = 0; i <= bounds_.size(); ++i)
    buckets_[i].store(0);
}

void Histogram::observe(double value) {
  const std::size_t bucket = static_cast<std::size_t>(
      std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin());
  buckets_[bucket].fetch_add(1, std::memory_order_relaxed);
  atomic_add(sum_, value);
  count_.fetch_add(1, std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::snapshot() const {
  Snapshot s;
  s.upper_bounds = bounds_;
  std::uint64_t running = 0;
  for (std::size_t i = 0; i <= bounds_.size(); ++i) {
    running += buckets_[i].load(std::memory_order_relaxed);
    s.cumulative.push_back(running);
  }
  s.count = running;
  s.sum = sum_.load(std::memory_order_relaxed);
  return s;
}

Family<Counter>& Registry::counter(const std::string& name, const std::string& help,
                                   std::vector<std::string> label_names) {
  std::lock_guard lock(mutex_);
  counters_.push_back(std::make_unique<Family<Counter>>(
      name, help, std::move(label_names), [] { return std::make_unique<Counter>(); }));
  return *counters_.back();
}

Family<Gauge>& Registry::gauge(const std::string& name, const std::string& help,
                               std::vector<std::string> label_names) {
  std::lock_guard lock(mutex_);
  gauges_.push_back(std::make_unique<Family<Gauge>>(name, help, std::move(label_names),
                                                    [] { return std::make_unique<Gauge>(); }));
  return *gauges_.back();
}

Family<Histogram>& Registry::histogram(const std::string& name, const std::string& help,
                                       std::vector<std::string> label_names,
                                       std::vector<double> bounds) {
  std::lock_guard lock(mutex_);
  histograms_.push_back(std::make_unique<Family<Histogram>>(
      name, help, std::move(label_names),
      [bounds] { return std::make_unique<Histogram>(bounds); }));
  return *histograms_.back();
}

void Registry::on_collect(std::function<void()> collector) {
  std::lock_guard lock(mutex_);
  collectors_.push_back(std::move(collector));
}

std::string Registry::expose() const {
  std::vector<std::function<void()>> collectors;
  {
    std::lock_guard lock(mutex_);
    collectors = collectors_;
  }
  for (const auto& collect : collectors)
    collect();

  std::lock_guard lock(mutex_);
  std::string out;
  for (const auto& family : counters_) {
    header(out, family->name(), family->help(), "counter");
    family->for_each([&](const Labels& labels, const Counter& c) {
      out += fmt::format("{}{} {}\n", family->name(), label_set(family->label_names(), labels),
                         number(c.value()));
    });
  }
  for (const auto& family : gauges_) {
    header(out, family->name(), family->help(), "gauge");
    family->for_each([&](const Labels& labels, const Gauge& g) {
      out += fmt::format("{}{} {}\n", family->name(), label_set(family->label_names(), labels),
                         number(g.value()));
    });
  }
  for (const auto& family : histograms_) {
    header(out, family->name(), family->help(), "histogram");
    family->for_each([&](const Labels& labels, const Histogram& h) {
      const auto s = h.snapshot();
      const auto& names = family->label_names();
      for (std::size_t i = 0; i < s.upper_bounds.size(); ++i) {
        out +=
            fmt::format("{}_bucket{} {}\n", family->name(),
                        label_set(names, labels, "le", number(s.upper_bounds[i])), s.cumulative[i]);
      }
      out += fmt::format("{}_bucket{} {}\n", family->name(), label_set(names, labels, "le", "+Inf"),
                         s.count);
      out += fmt::format("{}_sum{} {}\n", family->name(), label_set(names, labels), number(s.sum));
      out += fmt::format("{}_count{} {}\n", family->name(), label_set(names, labels), s.count);
    });
  }
  return out;
}

std::vector<double> exponential_buckets(double start, double factor, int count) {
  std::vector<double> bounds;
  double value = start;
  for (int i = 0; i < count; ++i, value *= factor)
    bounds.push_back(value);
  return bounds;
}

}  // namespace supportd::obs
