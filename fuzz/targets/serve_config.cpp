// Fuzz target: the TOML config file of `supportd serve --config FILE`, read as serve reads it:
// every declared option (app/serve_options.cpp) from its section, the [[api_keys]] tables
// (app/api_keys_file.h), the checks and the rules across options (app/serve_config.h). Any file
// gives a valid configuration or an error that names the file and line; never a crash.
#include <CLI/CLI.hpp>

#include "app/serve_config.h"
#include "fuzz_check.h"
#include "temp_input.h"

using namespace supportd;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = fuzz::write_input(data, size, ".toml");

  CLI::App app("supportd");
  CLI::App* serve = app.add_subcommand("serve");
  app::ServeConfig config;
  app::ServeOptions options(*serve, config);
  std::vector<std::string> args = {path, "--config", "serve"};  // CLI11 reads them backwards
  app.parse(args);
  const Status status = options.finish();
  if (!status) {
    fuzz::require(!status.error().message.empty(), "an error has a message");
    fuzz::require(status.error().message.find(path) != std::string::npos ||
                      status.error().message.find("--") != std::string::npos,
                  "an error names the file (or the flag it is about)");
  }
  return 0;
}
