// The command-line verbs. Each add_* registers a subcommand on the CLI11 app; the callback runs
// the verb and stores the process exit code.
#pragma once

namespace CLI {
class App;
}

namespace supportd::app {

void add_model_command(CLI::App& app, int& exit_code);
void add_serve_command(CLI::App& app, int& exit_code);
void add_bench_command(CLI::App& app, int& exit_code);
void add_encoder_command(CLI::App& app, int& exit_code);
void add_kb_command(CLI::App& app, int& exit_code);
void add_anomaly_command(CLI::App& app, int& exit_code);

}  // namespace supportd::app
