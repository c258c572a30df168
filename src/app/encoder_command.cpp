// `supportd encoder embed|bench`: look at what the sentence encoder makes of some text, and
// measure it.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include <cmath>

#include "app/commands.h"
#include "encoder/encoder_benchmark.h"
#include "encoder/sentence_encoder.h"

namespace supportd::app {
namespace {

using encoder::Backend;
using encoder::SentenceEncoder;

// A whole number in [min, max], with a message a person can read (CLI11's PositiveNumber
// printed its range as a 310-digit double).
CLI::Validator whole_number(int min, int max) {
  const std::string range = fmt::format("{} to {}", min, max);
  return CLI::Validator(
      [min, max, range](std::string& input) -> std::string {
        int value = 0;
        if (!CLI::detail::lexical_cast(input, value) || value < min || value > max)
          return fmt::format("must be a whole number from {}, not '{}'", range, input);
        return {};
      },
      fmt::format("{}..{}", min, max));
}

const std::map<std::string, Backend> kBackends = {{"eigen", Backend::kEigen},
                                                  {"ggml", Backend::kGgml}};

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      out += fmt::format("\\u{:04x}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

struct EmbedOptions {
  std::vector<std::string> texts;
  std::string model;
  Backend backend = Backend::kDefault;
  int dimensions = 8;
  bool json = false;
};

int run_embed(const EmbedOptions& o) {
  auto loaded =
      SentenceEncoder::load(o.model.empty() ? SentenceEncoder::default_path() : o.model, o.backend);
  if (!loaded) return report_failure(loaded.error());
  const SentenceEncoder& encoder = **loaded;
  auto vectors = encoder.encode_batch(o.texts);
  if (!vectors) return report_failure(vectors.error());
  if (!o.json)
    fmt::print("{} ({}, {})\n", encoder.path(), encoder.source(),
               encoder.backend() == Backend::kGgml ? "ggml" : "eigen");
  for (std::size_t i = 0; i < o.texts.size(); ++i) {
    const std::vector<int> ids = *encoder.tokenize(o.texts[i]);
    const auto& vector = (*vectors)[i];
    if (o.json) {
      fmt::print("{{\"text\":{},\"ids\":[{}],\"vector\":[{}]}}\n", json_string(o.texts[i]),
                 fmt::join(ids, ","), fmt::join(vector, ","));
      continue;
    }
    fmt::print("[{}] {}\n    {} tokens{}: {}\n    vector[0:{}]: {:.5f}\n", i,
               json_string(o.texts[i]), ids.size(),
               ids.size() > encoder::kMaxTokens
                   ? fmt::format(" (truncated to {})", encoder::kMaxTokens)
                   : "",
               fmt::join(ids, " "), o.dimensions,
               fmt::join(vector.begin(),
                         vector.begin() + std::clamp(o.dimensions, 1, encoder::kDimensions), " "));
  }
  if (o.json || o.texts.size() < 2) return 0;
  fmt::print("cosine similarity:\n     ");
  for (std::size_t j = 0; j < o.texts.size(); ++j)
    fmt::print(" {:>6}", fmt::format("[{}]", j));
  fmt::print("\n");
  for (std::size_t i = 0; i < o.texts.size(); ++i) {
    fmt::print("{:>5}", fmt::format("[{}]", i));
    for (std::size_t j = 0; j < o.texts.size(); ++j) {
      double dot = 0;
      for (int k = 0; k < encoder::kDimensions; ++k)
        dot += double((*vectors)[i][k]) * (*vectors)[j][k];
      fmt::print(" {:6.3f}", dot);
    }
    fmt::print("\n");
  }
  return 0;
}

}  // namespace

void add_encoder_command(CLI::App& app, int& exit_code) {
  CLI::App* command = app.add_subcommand(
      "encoder", "The native sentence encoder (Universal Sentence Encoder Lite, 512-d)");
  command->require_subcommand(1);

  static EmbedOptions embed;
  CLI::App* e = command->add_subcommand(
      "embed", "Print the token ids and vector of each text, and their similarities");
  e->add_option("texts", embed.texts, "Texts to encode")->required();
  e->add_option("--model", embed.model, "Weight file (default: $SUPPORTD_ENCODER or the cache)");
  e->add_option("--backend", embed.backend, "eigen or ggml (default: the faster)")
      ->transform(CLI::CheckedTransformer(kBackends, CLI::ignore_case));
  e->add_option("--dimensions", embed.dimensions, "Vector components to print")
      ->capture_default_str()
      ->check(whole_number(1, encoder::kDimensions));
  e->add_flag("--json", embed.json, "One JSON object per text: text, ids, vector");
  e->callback([&exit_code] { exit_code = run_embed(embed); });

  static encoder::BenchmarkOptions bench;
  CLI::App* b =
      command->add_subcommand("bench", "Measure one-query latency, batch throughput and memory");
  b->add_option("--model", bench.model, "Weight file (default: $SUPPORTD_ENCODER or the cache)");
  b->add_option("--backend", bench.backend, "eigen or ggml (default: the faster)")
      ->transform(CLI::CheckedTransformer(kBackends, CLI::ignore_case));
  b->add_option("--texts", bench.texts_file,
                "CSV whose first column is the text (default: built-in questions)");
  b->add_option("--queries", bench.queries, "Single-text encodes to time")
      ->capture_default_str()
      ->check(whole_number(1, 1000000));
  b->add_option("--batch", bench.batch, "Texts per batch")
      ->capture_default_str()
      ->check(whole_number(1, 4096));
  b->add_option("--batches", bench.batches, "Batches to time")
      ->capture_default_str()
      ->check(whole_number(1, 100000));
  b->add_option("--threads", bench.threads, "Threads per batch (0: all cores)")
      ->capture_default_str()
      ->check(whole_number(0, 256));
  b->callback([&exit_code] {
    auto report = encoder::run_benchmark(bench);
    if (!report) {
      exit_code = report_failure(report.error());
      return;
    }
    fmt::print("{}", encoder::format_report(*report, bench));
  });
}

}  // namespace supportd::app
