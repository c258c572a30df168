// `supportd model synth|quantize|info|verify`.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "app/model_versions.h"
#include "model/fingerprint.h"
#include "model/info.h"
#include "model/quantize.h"
#include "model/synth.h"

namespace supportd::app {

namespace {

// `model verify`: each version's file fingerprinted and compared with its expected SHA-256.
int verify_models(const std::string& config) {
  auto versions = read_model_versions(config);
  if (!versions) {
    fmt::print(stderr, "error: {}\n", versions.error().message);
    return 2;
  }
  if (versions->empty()) {
    fmt::print(stderr, "error: {}: no [[models]] tables to verify\n", config);
    return 2;
  }
  int mismatches = 0;
  for (const ModelVersion& version : *versions) {
    if (!version.upstream.empty()) {
      fmt::print("{}: upstream {}: no file to verify\n", version.name, version.upstream);
      continue;
    }
    auto print = model::fingerprint_model(version.path);
    if (!print) {
      fmt::print(stderr, "error: {}: model '{}': {}\n", version.where, version.name,
                 print.error().message);
      return 2;
    }
    const std::string facts = fmt::format("{} {} {} bytes, sha256 {}", print->architecture,
                                          print->quantization, print->bytes, print->sha256);
    if (version.expected_sha256.empty()) {
      fmt::print("{}: unchecked (no sha256 given): {}\n", version.name, facts);
    } else if (version.expected_sha256 == print->sha256) {
      fmt::print("{}: ok: {}\n", version.name, facts);
    } else {
      ++mismatches;
      fmt::print("{}: MISMATCH ({}): expected sha256 {}, {} has {}\n", version.name, version.where,
                 version.expected_sha256, version.path, print->sha256);
    }
  }
  return mismatches == 0 ? 0 : 1;
}

}  // namespace

void add_model_command(CLI::App& app, int& exit_code) {
  CLI::App* model = app.add_subcommand("model", "Synthesize, quantize and inspect GGUF models");
  model->require_subcommand(1);

  static model::SynthOptions synth;
  CLI::App* s = model->add_subcommand(
      "synth",
      "Write a GGUF with a real architecture and tokenizer and random weights "
      "(for tests and benchmarks: its text is meaningless)");
  s->add_option("--preset", synth.preset, "Architecture preset: " + model::preset_names())
      ->capture_default_str();
  s->add_option("--type", synth.type, std::string("Weight type: ") + model::quant_type_names())
      ->capture_default_str();
  s->add_option("--out", synth.out, "Output file (.gguf)")->required();
  s->add_option("--seed", synth.seed, "Random seed for the weights (0 to 2^64-1)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  static bool unshaped = false;
  s->add_flag("--unshaped", unshaped,
              "Let every token be sampled, even byte fragments that are not UTF-8 on their own "
              "(for testing UTF-8 handling; peers may fail on such models)");
  s->callback([&exit_code] {
    synth.shape_output = !unshaped;
    auto report = model::synthesize(synth);
    if (!report) {
      exit_code = report_failure(report.error());
      return;
    }
    fmt::print(
        "wrote {} ({} preset, {}): {:.1f}M parameters, {:.1f} MiB, {} tokens of which {} "
        "can never be sampled\n",
        synth.out, synth.preset, synth.type, report->parameters / 1e6, report->bytes / 1048576.0,
        report->vocabulary, report->banned_tokens);
  });

  static std::string in, out, type = "q8_0";
  CLI::App* q = model->add_subcommand("quantize", "Quantize a GGUF model");
  q->add_option("in", in, "Input GGUF")->required();
  q->add_option("out", out, "Output GGUF")->required();
  q->add_option("--type", type, std::string("Target type: ") + model::quant_type_names())
      ->capture_default_str();
  q->callback([&exit_code] {
    if (Status status = model::quantize(in, out, type); !status) {
      exit_code = report_failure(status.error());
      return;
    }
    fmt::print("wrote {} ({})\n", out, type);
  });

  static std::string file;
  static bool json = false;
  CLI::App* i = model->add_subcommand("info", "Show what a GGUF model holds");
  i->add_option("file", file, "GGUF file")->required();
  i->add_flag("--json", json, "Print JSON");
  i->callback([&exit_code] {
    auto info = model::read_model_info(file);
    if (!info) {
      exit_code = report_failure(info.error());
      return;
    }
    fmt::print("{}\n", json ? model::model_info_json(*info) : model::format_model_info(*info));
  });

  static std::string config;
  CLI::App* v = model->add_subcommand(
      "verify",
      "Check that the model files of a config file's [[models]] tables are the ones it names "
      "(their SHA-256), offline. Exit 0: all match; 1: a mismatch; 2: bad input");
  v->add_option("--config", config, "serve's TOML config file with [[models]] tables")->required();
  v->callback([&exit_code] { exit_code = verify_models(config); });
}

}  // namespace supportd::app
