// Fuzz target: the TOML config file of `supportd serve --config FILE`, read as ServeOptions::finish
// (app/serve_config.cpp) reads it: the [[api_keys]] tables (app/api_keys_file.h), then every
// declared option (app/serve_options.cpp) from its section with its checks and the rules across
// options (app/option_table.h). Only ServeOptions::derive is left out (it needs the API keys'
// rate limiters and tracing, beyond the config). Any file gives a valid configuration or an
// error that names the file and line (or the flag); never a crash.
#include <CLI/CLI.hpp>

#include "app/api_keys_file.h"
#include "app/serve_config.h"
#include "fuzz_check.h"
#include "temp_input.h"

using namespace supportd;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = fuzz::write_input(data, size, ".toml");

  CLI::App app("supportd");
  CLI::App* serve = app.add_subcommand("serve");
  app::ServeConfig config;
  app::OptionTable table(*serve);
  app::declare_serve_options(table, config);
  std::vector<std::string> args = {path, "--config", "serve"};  // CLI11 reads them backwards
  app.parse(args);
  Status status;
  auto keys = app::read_api_keys(path);
  if (!keys) status = keys.error();
  if (status) status = table.finish({"api_keys"});
  if (!status) {
    fuzz::require(!status.error().message.empty(), "an error has a message");
    fuzz::require(status.error().message.find(path) != std::string::npos ||
                      status.error().message.find("--") != std::string::npos,
                  "an error names the file (or the flag it is about)");
  }
  return 0;
}
