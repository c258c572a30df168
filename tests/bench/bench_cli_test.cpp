// `supportd bench` refusing bad input through the built binary, before any request is sent:
// every case names the flag or file and exits 2. The target is a closed loopback port, so a
// case that wrongly starts a run fails fast with a connection error (exit 1) instead.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace supportd::bench {
namespace {

namespace fs = std::filesystem;

struct Command {
  int exit_code = -1;
  std::string out;
  std::string err;
};

class BenchCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("supportd-bench-refuse-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& content) const {
    std::ofstream(dir_ / name, std::ios::binary) << content;
    return (dir_ / name).string();
  }

  // Runs `supportd bench ARGS` (each argument single-quoted for the shell).
  Command bench(const std::vector<std::string>& args) const {
    std::string line = std::string("'") + SUPPORTD_BINARY + "' bench";
    for (const std::string& arg : args)
      line += " '" + arg + "'";
    const std::string out = (dir_ / "stdout").string(), err = (dir_ / "stderr").string();
    line += " >'" + out + "' 2>'" + err + "' </dev/null";
    const int status = std::system(line.c_str());
    Command c;
    c.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    auto slurp = [](const std::string& path) {
      std::ifstream in(path);
      std::stringstream text;
      text << in.rdbuf();
      return text.str();
    };
    c.out = slurp(out);
    c.err = slurp(err);
    return c;
  }

  fs::path dir_;
};

// A minimal report of version 1 with `requests` as given (JSON text).
std::string report(const std::string& version, const std::string& requests) {
  return "{\"version\": " + version + ", \"requests\": " + requests +
         ", \"ok\": 1, \"classes\": {\"all\": {\"requests\": 1}}}";
}

TEST_F(BenchCli, CompareTakesExactlyTwoReports) {
  const std::string a = write("a.json", report("1", "1"));
  Command c = bench({"--compare", a});
  EXPECT_EQ(c.exit_code, 2) << c.err;
  EXPECT_NE(c.err.find("--compare takes exactly two reports"), std::string::npos) << c.err;
  c = bench({"--compare", a, a, a});
  EXPECT_EQ(c.exit_code, 2) << c.err;
  EXPECT_NE(c.err.find("got 3"), std::string::npos) << c.err;
  c = bench({"--compare", a, a});
  EXPECT_EQ(c.exit_code, 0) << c.err;
}

TEST_F(BenchCli, CompareRefusesWrongTypesAndVersionsNamingTheFile) {
  const std::string good = write("good.json", report("1", "1"));
  const std::pair<std::string, std::string> bad[] = {
      {write("lots.json", report("1", "\"lots\"")), "requests is \"lots\""},
      {write("v99.json", report("99", "1")), "report version 99"},
      {write("none.json", "{\"requests\": 1, \"classes\": {}}"), "report version missing"},
      {dir_.string(), "is a directory"}};
  for (const auto& [file, why] : bad) {
    Command c = bench({"--compare", good, file});
    EXPECT_EQ(c.exit_code, 2) << file << "\n" << c.err;
    EXPECT_NE(c.err.find(file), std::string::npos) << c.err;
    EXPECT_NE(c.err.find(why), std::string::npos) << c.err;
  }
}

}  // namespace
}  // namespace supportd::bench
