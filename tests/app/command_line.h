// Helpers for the tests of src/app: a config file that lives as long as the test, and a
// command line parsed by CLI11 in-process with its refusals returned as errors.
#pragma once

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/status.h"

namespace supportd::testing {

// A TOML file holding `text` in the temporary directory, removed when the object goes.
class ConfigFile {
 public:
  explicit ConfigFile(const std::string& text)
      : path_(std::filesystem::temp_directory_path() /
              ("supportd-config-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++) +
               ".toml")) {
    std::ofstream(path_) << text;
  }
  ~ConfigFile() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  ConfigFile(const ConfigFile&) = delete;
  ConfigFile& operator=(const ConfigFile&) = delete;
  std::string path() const { return path_.string(); }

 private:
  static inline std::atomic<int> counter_{0};
  std::filesystem::path path_;
};

// Parses `args` (without the program's name) into `app`; CLI11's refusal becomes an error
// whose message starts with "CLI11: ".
inline Status parse_command_line(CLI::App& app, std::vector<std::string> args) {
  args.insert(args.begin(), "supportd");
  std::vector<char*> argv;
  for (std::string& arg : args)
    argv.push_back(arg.data());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    return Error::invalid(std::string("CLI11: ") + e.what());
  }
  return {};
}

}  // namespace supportd::testing
