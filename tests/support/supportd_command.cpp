// Runs the built supportd binary with arguments and collects its exit code, stdout and stderr.
#include "supportd_command.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "test_paths.h"

extern char** environ;

namespace supportd::testing {
namespace {

std::string read_and_remove(const std::string& path) {
  std::string text;
  {
    std::ifstream in(path, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::filesystem::remove(path);
  return text;
}

}  // namespace

CommandRun run_supportd(const std::vector<std::string>& args) {
  static int counter = 0;
  const std::string base =
      (std::filesystem::temp_directory_path() /
       ("supportd-command-" + std::to_string(::getpid()) + "-" + std::to_string(counter++)))
          .string();
  const std::string out = base + ".out", err = base + ".err";
  std::vector<std::string> argv = {supportd_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> pointers;
  for (std::string& arg : argv)
    pointers.push_back(arg.data());
  pointers.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, pointers[0], &actions, nullptr, pointers.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  CommandRun run;
  if (spawned == 0) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  run.out = read_and_remove(out);
  run.err = read_and_remove(err);
  return run;
}

}  // namespace supportd::testing
