// Runs the built `supportd` binary as a command-line user would, to its end, for the tests of
// its commands' exit codes and messages.
#pragma once

#include <string>
#include <vector>

namespace supportd::testing {

struct CommandRun {
  int exit_code = -1;  // -1 when it did not exit normally (a signal)
  std::string out;     // what it printed on stdout
  std::string err;     // and on stderr
};

// `supportd ARGS...`, each argument passed as it is (no shell), stdin empty.
CommandRun run_supportd(const std::vector<std::string>& args);

}  // namespace supportd::testing
