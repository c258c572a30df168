// supportd: one binary for serving, benchmarking and managing models.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "app/commands.h"

int main(int argc, char** argv) {
  // Logs (and llama.cpp's messages, routed through them) are diagnostics: stderr, so what a
  // command prints on stdout (model info --json, kb search, bench reports) stays its output.
  spdlog::set_default_logger(std::make_shared<spdlog::logger>(
      "", std::make_shared<spdlog::sinks::stderr_color_sink_mt>()));
  CLI::App app{"supportd: LLM customer-service serving system"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "supportd 0.1.0");
  int exit_code = 0;
  supportd::app::add_serve_command(app, exit_code);
  supportd::app::add_model_command(app, exit_code);
  supportd::app::add_bench_command(app, exit_code);
  supportd::app::add_encoder_command(app, exit_code);
  supportd::app::add_kb_command(app, exit_code);
  supportd::app::add_capacity_command(app, exit_code);
  supportd::app::add_tune_command(app, exit_code);
  supportd::app::add_anomaly_command(app, exit_code);
  supportd::app::add_drill_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 has a code per kind of mistake (105-114); a usage error exits 2 whichever it is,
    // as supportd's own checks of the same options do. --help and --version exit 0.
    return app.exit(e) == 0 ? 0 : 2;
  }
  return exit_code;
}
