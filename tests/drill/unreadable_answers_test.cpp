// The drill against a server whose answers are JSON objects of another shape (here `{}` to
// everything: a server of another version, a proxy): it ends with a clear error naming the URL
// and exit code 1, after stopping its load, instead of aborting on Boost.JSON's exception.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "scripted_http_server.h"
#include "supportd_command.h"

namespace supportd {
namespace {

TEST(LatencySpikeDrill, AnAnswerOfAnotherShapeIsAnErrorNotAnAbort) {
  // Every request answered 200 with an empty object.
  testing::ScriptedHttpServer server([](int socket, const std::string&) {
    testing::ScriptedHttpServer::send_all(
        socket,
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
        "Connection: close\r\n\r\n{}");
  });
  const std::filesystem::path key = std::filesystem::temp_directory_path() /
                                    ("supportd-drill-shape-key-" + std::to_string(::getpid()));
  std::ofstream(key) << "drill-test-admin-key-0123456789\n";
  const std::string url = server.url();
  const auto run = testing::run_supportd({"drill", "latency-spike", "--url", url,
                                          "--admin-key-file", key.string(), "--quiet",
                                          "--learn-timeout", "10", "--settle-seconds", "1"});
  std::filesystem::remove(key);
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("not what the drill reads"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find(url), std::string::npos) << run.err;
  EXPECT_GT(server.requests(), 0);
}

}  // namespace
}  // namespace supportd
