// `supportd encoder bench`: the encoder's speed and memory on real texts, measured in-process.
// One query at a time (the desk's path: tokenization included) and batches over several threads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "encoder/sentence_encoder.h"

namespace supportd::encoder {

struct BenchmarkOptions {
  std::string model;  // weight file; empty: SentenceEncoder::default_path()
  Backend backend = Backend::kDefault;
  std::string texts_file;  // CSV whose first column is the text (a header row is skipped)
  int queries = 1000;      // single-text encodes measured, after a warm-up
  int batch = 32;          // texts per encode_batch call
  int batches = 60;        // encode_batch calls measured
  int threads = 2;         // threads per encode_batch call
};

struct BenchmarkReport {
  std::string backend;
  std::size_t texts = 0;   // distinct texts cycled through
  double mean_tokens = 0;  // per text, after truncation
  double query_p50_ms = 0, query_p99_ms = 0, query_mean_ms = 0;
  double query_cpu_p50_ms = 0;  // thread CPU time per query: the cost without the machine's load
  double batch_p50_ms = 0, batch_sentences_per_s = 0;
  double batch_cpu_ms_per_sentence = 0;  // process CPU time over the batches, per sentence
  double rss_before_mb = 0, rss_loaded_mb = 0, rss_after_mb = 0;  // VmRSS of this process
};

// Runs the benchmark with a progress bar on stderr. Errors: the model's (naming the file), or
// the texts file's (kNotFound / kInvalidArgument naming it).
Result<BenchmarkReport> run_benchmark(const BenchmarkOptions& options);

std::string format_report(const BenchmarkReport& report, const BenchmarkOptions& options);

// First column of every row of an RFC 4180 CSV after its header. kNotFound when absent;
// kInvalidArgument when empty.
Result<std::vector<std::string>> read_first_column(const std::string& path);

}  // namespace supportd::encoder
