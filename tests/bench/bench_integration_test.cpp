// `supportd bench` against a real supportd running in this process on an ephemeral port (the
// tiny synthesized model): sane reports in closed and open loop, rejections and errors counted
// by kind rather than hidden, 1000 streaming connections held at once, and the command line
// (flags, files, exit codes) through the built binary. How the client times token events is
// in token_timing_test.cpp.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <boost/json.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include "bench/prompt_text.h"
#include "bench_fixture.h"
#include "engine/llama/model.h"
#include "test_model.h"
#include "test_paths.h"

namespace supportd::bench {
namespace {

namespace json = boost::json;

TEST_F(BenchTest, ClosedLoopAgainstSupportdGivesASaneReport) {
  BenchOptions o = small_run();
  o.concurrency = 4;
  o.requests = 24;
  o.warmup_requests = 4;
  o.workload.priority_mix = {1, 2, 1};
  o.workload.system_prompt_tokens = 16;
  o.workload.repeat_ratio = 0.5;
  const Report r = run(o);
  expect_sane(r);
  EXPECT_EQ(r.requests, 24);
  EXPECT_EQ(r.warmup_requests, 4);
  EXPECT_EQ(r.ok, 24) << "errors: " << r.errors << ", rejected: " << r.rejected;
  EXPECT_LE(r.peak_outstanding, 4);
  const ClassReport& all = r.classes[kAllClasses];
  EXPECT_EQ(all.output_tokens, 24 * 6);  // ignore_eos: every answer has max_tokens tokens
  EXPECT_EQ(all.short_outputs, 0);
  EXPECT_EQ(all.ttft_ms.count, 24u);
  // Every answer's timings.queued_ms: the server's wait, within the client's TTFT.
  EXPECT_EQ(all.queue_ms.count, 24u);
  EXPECT_GE(all.queue_ms.mean, 0);
  EXPECT_LE(all.queue_ms.max, all.ttft_ms.max);
  EXPECT_GT(all.itl_ms.count, 0u);
  EXPECT_GT(all.repeated, 0);
  // The server's own count of the prompt: system prompt + question + the chat template.
  EXPECT_GE(all.mean_prompt_tokens, 16 + 12);
  EXPECT_LE(all.mean_prompt_tokens, 16 + 12 + 60);
  EXPECT_EQ(r.server_kind, "supportd");
  EXPECT_FALSE(r.server.empty());
  std::int64_t tenants = 0;
  for (const TenantReport& t : r.tenants) {
    EXPECT_GT(t.ok, 0) << t.name;
    tenants += t.requests;
  }
  EXPECT_EQ(tenants, r.requests);
}

TEST_F(BenchTest, OpenLoopPoissonSendsOnScheduleAndCompletes) {
  BenchOptions o = small_run();
  o.mode = LoadMode::kPoisson;
  o.rate = 100;
  o.requests = 30;
  o.workload.priority_mix = {1, 1, 1};
  const Report r = run(o);
  expect_sane(r);
  EXPECT_EQ(r.requests, 30);
  EXPECT_EQ(r.ok, 30);
  for (int c = 0; c < kClassCount; ++c)
    EXPECT_GT(r.classes[static_cast<std::size_t>(c)].requests, 0) << class_name(c);
}

TEST_F(BenchTest, ErrorsAreCountedByKindAndNothingHangs) {
  BenchOptions o = small_run();
  o.requests = 4;
  o.workload.tenants = {{"intruder", "sk-wrong", 1}};
  Report r = run(o);
  expect_sane(r);
  EXPECT_EQ(r.errors, 4);
  EXPECT_EQ(r.classes[kAllClasses].error_kinds.begin()->first.substr(0, 3), "401");

  o = small_run();
  o.requests = 3;
  o.model = "no-such-model";
  r = run(o);
  EXPECT_EQ(r.errors, 3);
  EXPECT_EQ(r.classes[kAllClasses].error_kinds.begin()->first.substr(0, 3), "404");

  // A client timeout far below the answer's length: every request is cut, none hangs.
  o = small_run();
  o.requests = 2;
  o.concurrency = 2;
  o.request_timeout_s = 0.2;
  o.workload.output_tokens = Distribution::fixed(20000);
  r = run(o);
  EXPECT_EQ(r.errors, 2);
  EXPECT_EQ(r.classes[kAllClasses].error_kinds.at("timeout"), 2);

  // --max-time cuts the whole run: requests in flight are abandoned and say so.
  o = small_run();
  o.requests = 2;
  o.concurrency = 2;
  o.max_time_s = 0.3;
  o.workload.output_tokens = Distribution::fixed(20000);
  r = run(o);
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.cut_reason, "max_time");
  EXPECT_EQ(r.classes[kAllClasses].error_kinds.at("interrupted"), 2);

  // Nobody listens: connection errors, not a hang.
  o = small_run();
  o.url = "http://127.0.0.1:1";
  o.model = "m";
  o.requests = 3;
  r = run(o);
  EXPECT_EQ(r.errors, 3);
  EXPECT_EQ(r.classes[kAllClasses].error_kinds.at("connect_refused"), 3);
  EXPECT_FALSE(run_benchmark(BenchOptions{.url = "http://127.0.0.1:1", .progress = false}).ok())
      << "without --model the model list must be reachable";
}

TEST(BenchOverload, RejectionsAreCountedWithTheirRetryAfterAndTime) {
  InProcessServer small(1, {1, 1, 1}, {});
  BenchOptions o;
  o.url = small.url();
  o.mode = LoadMode::kPoisson;
  o.rate = 2000;
  o.requests = 60;
  o.workload.prompt_tokens = Distribution::fixed(12);
  o.workload.output_tokens = Distribution::fixed(16);
  o.progress = false;
  ASSERT_TRUE(validate(o).ok());
  auto record = run_benchmark(o);
  ASSERT_TRUE(record.ok()) << record.error().message;
  const Report r = build_report(*record, o);
  EXPECT_EQ(r.ok + r.rejected + r.errors, 60);
  EXPECT_EQ(r.errors, 0);
  EXPECT_GT(r.rejected, 0);
  EXPECT_GT(r.ok, 0);
  const ClassReport& all = r.classes[kAllClasses];
  for (const auto& [kind, count] : all.rejections)
    EXPECT_EQ(kind.substr(0, 4), "429:") << kind;
  EXPECT_EQ(all.reject_ms.count, static_cast<std::size_t>(r.rejected));
  EXPECT_EQ(all.retry_after_s.count, static_cast<std::size_t>(r.rejected));
  EXPECT_GE(all.retry_after_s.p50, 1);
}

// The reference scenario's load test: one client process holding 1000 streaming connections.
TEST_F(BenchTest, HoldsAThousandStreamingConnections) {
  std::atomic<bool> sampling{true};
  std::atomic<std::size_t> server_peak{0};
  std::thread sampler([&] {
    while (sampling.load()) {
      server_peak = std::max(server_peak.load(), server_->http().connections());
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  BenchOptions o = small_run();
  o.concurrency = 1000;
  o.requests = 1000;
  o.workload.prompt_tokens = Distribution::fixed(4);
  o.workload.output_tokens = Distribution::fixed(4);
  o.workload.tenants.clear();
  o.api_key = "sk-acme";
  o.poll_server = false;
  const Report r = run(o);
  sampling = false;
  sampler.join();
  expect_sane(r);
  EXPECT_EQ(r.ok, 1000) << "errors " << r.errors << " ("
                        << describe(r.classes[kAllClasses].error_kinds) << "), rejected "
                        << r.rejected;
  EXPECT_EQ(r.peak_outstanding, 1000);
  EXPECT_GE(server_peak.load(), 1000u);
}

TEST(PromptWords, EachIsOneTokenInTheTestModelsVocabularies) {
  for (const char* preset : {"tiny", "tiny-qwen2"}) {
    auto model = engine::llama::Model::load(testing::synthesized_model(preset), "");
    ASSERT_TRUE(model.ok()) << model.error().message;
    const std::size_t base = (*model)->tokenize("Hello", false, false).size();
    for (std::string_view word : prompt_words()) {
      const std::string text = "Hello " + std::string(word);
      EXPECT_EQ((*model)->tokenize(text, false, false).size(), base + 1) << preset << ": " << word;
    }
    // And a prompt of N words is N tokens, give or take its first word, which has no space.
    const std::size_t n = (*model)->tokenize(prompt_text(5, 300), false, false).size();
    EXPECT_GE(n, 300u) << preset;
    EXPECT_LE(n, 301u) << preset;
  }
}

// --- The command line, through the built binary. ---

struct Command {
  int exit_code = -1;
  std::string out;
  std::string err;
};

Command run_cli(const std::string& arguments) {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string out = (dir / ("bench-cli-out-" + std::to_string(::getpid()))).string();
  const std::string err = (dir / ("bench-cli-err-" + std::to_string(::getpid()))).string();
  const std::string line =
      testing::supportd_binary() + " bench " + arguments + " >" + out + " 2>" + err;
  const int status = std::system(line.c_str());
  Command c;
  c.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  auto slurp = [](const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    std::filesystem::remove(path);
    return text.str();
  };
  c.out = slurp(out);
  c.err = slurp(err);
  return c;
}

TEST_F(BenchTest, CommandLineWritesReportsComparesAndRefusesBadInput) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("supportd-bench-cli-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string json_path = (dir / "run.json").string(), html = (dir / "run.html").string(),
                    tokens = (dir / "tokens.csv").string();
  const std::string common = "--url " + server_->url() +
                             " --api-key sk-acme --prompt-tokens 8 --output-tokens 5 --no-progress";
  Command c = run_cli(common + " --concurrency 3 --requests 6 --json " + json_path + " --html " +
                      html + " --record-tokens " + tokens);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_NE(c.out.find("TTFT p99 ms"), std::string::npos) << c.out;
  const json::object report = json::parse([&] {
                                std::ifstream in(json_path);
                                std::stringstream text;
                                text << in.rdbuf();
                                return text.str();
                              }())
                                  .as_object();
  EXPECT_EQ(report.at("requests"), 6);
  EXPECT_EQ(report.at("ok"), 6);
  EXPECT_TRUE(report.at("classes").at("all").at("e2e_ms").at("p99").is_double());
  EXPECT_TRUE(std::filesystem::file_size(html) > 1000);

  c = run_cli("--compare " + json_path + " " + json_path);
  EXPECT_EQ(c.exit_code, 0) << c.err;
  EXPECT_NE(c.out.find("1.00"), std::string::npos) << c.out;

  c = run_cli("--steady-decode-from " + tokens + " --report-steady-decode");
  EXPECT_EQ(c.exit_code, 0) << c.err;
  EXPECT_NO_THROW((void)std::stod(c.out)) << c.out;

  // Bad input: a clear message naming what is wrong, and exit code 2.
  std::ofstream(dir / "bad-trace.txt") << "0\n0.5\nsoon\n";
  const std::pair<std::string, std::string> bad[] = {
      {common + " --rate 0", "--rate"},
      {common + " --prompt-tokens uniform:5", "--prompt-tokens"},
      {common + " --trace " + (dir / "missing.txt").string(), "missing.txt"},
      {common + " --trace " + (dir / "bad-trace.txt").string(), "bad-trace.txt:3"},
      {common + " --priority-mix urgent=1", "--priority-mix"},
      {"--compare " + json_path + " " + (dir / "nothing.json").string(), "nothing.json"},
      {"--url https://example.com --model m", "https"}};
  for (const auto& [arguments, expected] : bad) {
    c = run_cli(arguments);
    EXPECT_EQ(c.exit_code, 2) << arguments << "\n" << c.err;
    EXPECT_NE(c.err.find(expected), std::string::npos) << arguments << "\n" << c.err;
  }
  c = run_cli("--concurrency 2 --rate 5");
  EXPECT_NE(c.exit_code, 0);
  EXPECT_NE(c.err.find("excludes"), std::string::npos) << c.err;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace supportd::bench
