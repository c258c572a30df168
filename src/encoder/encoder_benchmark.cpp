// `supportd encoder bench`: times single-text encodes (wall and thread CPU time) and batches
// over threads on real or built-in texts, with the process's memory, and formats the report.
#include "encoder/encoder_benchmark.h"

#include <fmt/format.h>

#include <time.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <numeric>
#include <sstream>

#include "core/progress.h"

namespace supportd::encoder {
namespace {

using Clock = std::chrono::steady_clock;

double milliseconds(Clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

// CPU time of the calling thread: what a query costs, whatever else the machine is doing.
double thread_cpu_ms() {
  timespec now{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) / 1e6;
}

// CPU time of the whole process (every thread).
double process_cpu_ms() {
  timespec now{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) / 1e6;
}

double resident_mb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;  // kB
  return 0;
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto index = static_cast<std::size_t>(p * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(index, values.size() - 1)];
}

// A few customer questions, for when no texts file is given.
const std::vector<std::string> kSampleTexts = {
    "my card still isn't here",
    "How long does it take for a new card to arrive?",
    "I was charged twice for the same purchase",
    "Why is my transfer still pending?",
    "Can I top up with Apple Pay?",
    "What's the exchange rate for USD to EUR today?",
    "I lost my phone, please freeze my account",
    "My card got declined at the ATM but the money was taken out of my account, what should I do?",
    "Is there a fee for transferring money from my bank account to my wallet?",
    "I'd like to change my PIN number.",
    "The app says my identity verification failed, why?",
    "Please cancel the direct debit to ACME Ltd immediately.",
};

}  // namespace

Result<std::vector<std::string>> read_first_column(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::make(ErrorCode::kNotFound, "texts file not found: " + path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string csv = buffer.str();
  std::vector<std::string> texts;
  std::string field;
  bool quoted = false;
  int column = 0;
  for (std::size_t i = 0; i < csv.size(); ++i) {
    const char c = csv[i];
    if (quoted) {
      if (c == '"' && i + 1 < csv.size() && csv[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',' || c == '\n') {
      if (column == 0) texts.push_back(field);
      field.clear();
      column = c == ',' ? column + 1 : 0;
    } else if (c != '\r') {
      field += c;
    }
  }
  if (column == 0 && !field.empty()) texts.push_back(field);
  if (!texts.empty()) texts.erase(texts.begin());  // header
  if (texts.empty()) return Error::invalid("texts file " + path + " has no rows after its header");
  return texts;
}

Result<BenchmarkReport> run_benchmark(const BenchmarkOptions& options) {
  std::vector<std::string> texts = kSampleTexts;
  if (!options.texts_file.empty()) {
    auto loaded = read_first_column(options.texts_file);
    if (!loaded) return loaded.error();
    texts = std::move(*loaded);
  }
  BenchmarkReport report;
  report.texts = texts.size();
  report.rss_before_mb = resident_mb();
  auto loaded = SentenceEncoder::load(
      options.model.empty() ? SentenceEncoder::default_path() : options.model, options.backend);
  if (!loaded) return loaded.error();
  const SentenceEncoder& encoder = **loaded;
  report.backend = encoder.backend() == Backend::kGgml ? "ggml" : "eigen";
  report.rss_loaded_mb = resident_mb();

  std::size_t tokens = 0;
  for (const auto& text : texts) {
    auto ids = encoder.tokenize(text);
    if (!ids)
      return Error::invalid("texts file " + options.texts_file + ": " + ids.error().message);
    tokens += std::min<std::size_t>(ids->size(), kMaxTokens);
  }
  report.mean_tokens = static_cast<double>(tokens) / static_cast<double>(texts.size());

  const int warmup = std::min<int>(50, static_cast<int>(texts.size()));
  ProgressBar progress(
      "encoder bench (" + report.backend + ")",
      warmup + options.queries + static_cast<std::int64_t>(options.batches) * options.batch);
  for (int i = 0; i < warmup; ++i, progress.advance())
    (void)encoder.encode(texts[i]);

  std::vector<double> latencies, cpu;
  for (int i = 0; i < options.queries; ++i, progress.advance()) {
    const std::string& text = texts[static_cast<std::size_t>(i) % texts.size()];
    const double cpu_started = thread_cpu_ms();
    const auto started = Clock::now();
    auto vector = encoder.encode(text);
    latencies.push_back(milliseconds(Clock::now() - started));
    cpu.push_back(thread_cpu_ms() - cpu_started);
    if (!vector) return vector.error();
  }
  report.query_cpu_p50_ms = percentile(cpu, 0.50);
  report.query_p50_ms = percentile(latencies, 0.50);
  report.query_p99_ms = percentile(latencies, 0.99);
  report.query_mean_ms = std::accumulate(latencies.begin(), latencies.end(), 0.0) /
                         std::max<double>(1.0, static_cast<double>(latencies.size()));

  std::vector<double> batch_times;
  std::vector<std::string> batch(static_cast<std::size_t>(options.batch));
  std::size_t next = 0;
  const double cpu_started = process_cpu_ms();
  for (int b = 0; b < options.batches; ++b) {
    for (auto& text : batch)
      text = texts[next++ % texts.size()];
    const auto started = Clock::now();
    auto vectors = encoder.encode_batch(batch, options.threads);
    batch_times.push_back(milliseconds(Clock::now() - started));
    if (!vectors) return vectors.error();
    progress.advance(options.batch);
  }
  report.batch_cpu_ms_per_sentence =
      (process_cpu_ms() - cpu_started) / (static_cast<double>(options.batches) * options.batch);
  progress.finish();
  const double total_ms = std::accumulate(batch_times.begin(), batch_times.end(), 0.0);
  report.batch_p50_ms = percentile(batch_times, 0.50);
  report.batch_sentences_per_s =
      total_ms > 0 ? 1000.0 * options.batches * options.batch / total_ms : 0;
  report.rss_after_mb = resident_mb();
  return report;
}

std::string format_report(const BenchmarkReport& r, const BenchmarkOptions& o) {
  std::string out = fmt::format("backend {}: {} texts, {:.1f} tokens each on average\n", r.backend,
                                r.texts, r.mean_tokens);
  out += fmt::format(
      "  one query, 1 thread: P50 {:.2f} ms  P99 {:.2f} ms  mean {:.2f} ms  (CPU P50 {:.2f} ms; "
      "{} queries)\n",
      r.query_p50_ms, r.query_p99_ms, r.query_mean_ms, r.query_cpu_p50_ms, o.queries);
  out += fmt::format(
      "  batches of {}, {} threads: {:.0f} sentences/s  (P50 {:.1f} ms per batch; CPU {:.2f} ms "
      "per "
      "sentence; {} batches)\n",
      o.batch, o.threads, r.batch_sentences_per_s, r.batch_p50_ms, r.batch_cpu_ms_per_sentence,
      o.batches);
  out += fmt::format(
      "  resident memory: {:.1f} MB before loading, {:.1f} MB loaded, {:.1f} MB after the run "
      "(model: {:.1f} MB)\n",
      r.rss_before_mb, r.rss_loaded_mb, r.rss_after_mb, r.rss_after_mb - r.rss_before_mb);
  return out;
}

}  // namespace supportd::encoder
