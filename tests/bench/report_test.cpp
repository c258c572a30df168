// From a recorded run to numbers, JSON, HTML, a token log and a comparison.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench/compare.h"
#include "bench/report.h"
#include "bench/report_html.h"
#include "bench/report_json.h"
#include "bench/report_text.h"
#include "bench/token_log.h"

namespace supportd::bench {
namespace {

namespace json = boost::json;

RequestResult ok_request(std::int64_t index, int priority, double send_s, std::vector<float> tokens,
                         double done_after_s) {
  RequestResult r;
  r.index = index;
  r.priority = priority;
  r.send_s = send_s;
  r.header_s = send_s + 0.001;
  r.end_s = send_s + done_after_s;
  r.outcome = Outcome::kOk;
  r.status = 200;
  r.max_tokens = static_cast<int>(tokens.size());
  r.completion_tokens = static_cast<int>(tokens.size());
  r.prompt_tokens = 100;
  r.question_words = 99;
  r.token_s = std::move(tokens);
  return r;
}

// Three ok requests (two normal, one high), a rejection, an error and a warm-up request.
RunRecord sample_run() {
  RunRecord run;
  run.model = "m";
  run.started_at = "2025-01-01T00:00:00Z";
  run.measure_start_s = 1.0;
  RequestResult warm = ok_request(0, 1, 0.0, {0.5f, 0.6f}, 0.7);
  warm.warmup = true;
  run.results.push_back(warm);
  // TTFT 100 ms, tokens every 50 ms, [DONE] at 260 ms: TPOT = (260 - 100) / 3.
  run.results.push_back(ok_request(1, 1, 1.0, {0.10f, 0.15f, 0.20f, 0.25f}, 0.26));
  run.results.push_back(ok_request(2, 1, 1.1, {0.30f, 0.40f}, 0.45));
  run.results.push_back(ok_request(3, 0, 1.2, {0.05f, 0.06f, 0.07f}, 0.08));
  RequestResult rejected;
  rejected.index = 4;
  rejected.priority = 2;
  rejected.send_s = 1.3;
  rejected.header_s = 1.302;
  rejected.end_s = 1.303;
  rejected.outcome = Outcome::kRejected;
  rejected.status = 429;
  rejected.kind = "429:queue_full";
  rejected.retry_after_s = 2;
  run.results.push_back(rejected);
  RequestResult error;
  error.index = 5;
  error.priority = 1;
  error.send_s = 1.4;
  error.end_s = 2.0;
  error.kind = "timeout";
  error.detail = "The socket was closed due to a timeout";
  run.results.push_back(error);
  run.end_s = 2.0;
  run.client = {{0, 0}, {1, 3}};
  run.server = {{0.5, 2, 1, {0, 2, 0}}};
  return run;
}

TEST(Report, CountsAddUpAndWarmUpIsLeftOut) {
  BenchOptions options;
  const Report r = build_report(sample_run(), options);
  EXPECT_EQ(r.warmup_requests, 1);
  EXPECT_EQ(r.requests, 5);
  EXPECT_EQ(r.ok + r.rejected + r.errors, r.requests);
  EXPECT_EQ(r.ok, 3);
  EXPECT_EQ(r.rejected, 1);
  EXPECT_EQ(r.errors, 1);
  std::int64_t sum = 0;
  for (int c = 0; c < kClassCount; ++c)
    sum += r.classes[static_cast<std::size_t>(c)].requests;
  EXPECT_EQ(sum, r.requests);
  EXPECT_EQ(r.classes[0].ok, 1);
  EXPECT_EQ(r.classes[1].ok, 2);
  EXPECT_EQ(r.classes[1].error_kinds.at("timeout"), 1);
  EXPECT_EQ(r.classes[2].rejections.at("429:queue_full"), 1);
  EXPECT_NEAR(r.classes[2].reject_ms.max, 2.0, 1e-6);
  EXPECT_DOUBLE_EQ(r.classes[2].retry_after_s.max, 2);
  EXPECT_EQ(r.error_examples.at("timeout"), "The socket was closed due to a timeout");
  // The measured window runs from the first measured send (1.0) to the last end (2.0).
  EXPECT_DOUBLE_EQ(r.duration_s, 1.0);
  EXPECT_DOUBLE_EQ(r.request_throughput, 3.0);
  EXPECT_EQ(r.classes[kAllClasses].output_tokens, 9);
  EXPECT_DOUBLE_EQ(r.output_token_throughput, 9.0);
  EXPECT_DOUBLE_EQ(r.input_token_throughput, 300.0);
  EXPECT_DOUBLE_EQ(r.classes[kAllClasses].mean_prompt_tokens, 100);
}

TEST(Report, LatenciesFollowTheirDefinitions) {
  const Report r = build_report(sample_run(), BenchOptions{});
  const ClassReport& normal = r.classes[1];
  EXPECT_EQ(normal.ttft_ms.count, 2u);
  EXPECT_NEAR(normal.ttft_ms.p50, 100, 1e-3);
  EXPECT_NEAR(normal.ttft_ms.max, 300, 1e-3);
  EXPECT_NEAR(normal.e2e_ms.p50, 260, 1e-3);
  EXPECT_NEAR(normal.e2e_ms.max, 450, 1e-3);
  EXPECT_EQ(normal.itl_ms.count, 4u);  // 3 gaps + 1 gap
  EXPECT_NEAR(normal.itl_ms.max, 100, 1e-3);
  EXPECT_EQ(normal.tpot_ms.count, 2u);
  EXPECT_NEAR(normal.tpot_ms.p50, (260.0 - 100.0) / 3, 1e-3);
  EXPECT_NEAR(normal.tpot_ms.max, (450.0 - 300.0) / 1, 1e-3);
  const ClassReport& all = r.classes[kAllClasses];
  for (const obs::Percentiles* p : {&all.ttft_ms, &all.itl_ms, &all.tpot_ms, &all.e2e_ms}) {
    EXPECT_LE(p->p50, p->p90);
    EXPECT_LE(p->p90, p->p95);
    EXPECT_LE(p->p95, p->p99);
    EXPECT_LE(p->p99, p->max);
  }
}

TEST(Report, GoodputCountsOkRequestsWithinTheSlo) {
  BenchOptions options;
  EXPECT_EQ(build_report(sample_run(), options).classes[kAllClasses].good, 3);
  options.slo_ttft_ms = 150;
  EXPECT_EQ(build_report(sample_run(), options).classes[kAllClasses].good, 2);
  options.slo_e2e_ms = 200;
  const Report r = build_report(sample_run(), options);
  EXPECT_EQ(r.classes[kAllClasses].good, 1);
  EXPECT_DOUBLE_EQ(r.goodput, 1.0);
  EXPECT_DOUBLE_EQ(r.goodput_ratio, 1.0 / 5);
}

TEST(Report, TimelineBucketsAddUpToTheTotals) {
  const Report r = build_report(sample_run(), BenchOptions{});
  std::int64_t sent = 0, completed = 0, tokens = 0;
  for (const TimelineBucket& b : r.timeline) {
    sent += b.sent;
    completed += b.completed;
    tokens += b.tokens;
  }
  EXPECT_EQ(sent, 6);  // warm-up included: the chart shows it
  EXPECT_EQ(completed, 4);
  EXPECT_EQ(tokens, 11);
}

TEST(Report, PerVersionWhenTheAnswersNameVersions) {
  // Behind a model router every answer names the version that served it: the run asked for
  // "default"; v1 answered two (TTFT 100 and 300 ms), v2 one and failed one mid-stream; the
  // rejection named none.
  RunRecord run = sample_run();
  run.model = "default";
  run.results[1].served_by = "v1";
  run.results[2].served_by = "v1";
  run.results[3].served_by = "v2";
  run.results[5].served_by = "v2";
  const Report r = build_report(run, BenchOptions{});
  ASSERT_EQ(r.versions.size(), 3u);
  EXPECT_EQ(r.versions[0].name, "");  // the rejection: refused before any version answered
  EXPECT_EQ(r.versions[0].rejected, 1);
  const VersionReport& v1 = r.versions[1];
  EXPECT_EQ(v1.name, "v1");
  EXPECT_EQ(v1.requests, 2);
  EXPECT_EQ(v1.ok, 2);
  EXPECT_NEAR(v1.ttft_p50_ms, 100, 1e-3);
  EXPECT_NEAR(v1.ttft_p99_ms, 300, 1e-3);
  EXPECT_NEAR(v1.e2e_p99_ms, 450, 1e-3);
  const VersionReport& v2 = r.versions[2];
  EXPECT_EQ(v2.requests, 2);
  EXPECT_EQ(v2.ok, 1);
  EXPECT_EQ(v2.errors, 1);
  EXPECT_NEAR(v2.ttft_p99_ms, 50, 1e-3);
  std::int64_t sum = 0;
  for (const VersionReport& v : r.versions)
    sum += v.requests;
  EXPECT_EQ(sum, r.requests);

  const std::string text = format_summary(r);
  EXPECT_NE(text.find("version v1: 2 requests, ok 2, rejected 0, errors 0, TTFT p50 100.0 ms"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("version v2: 2 requests, ok 1, rejected 0, errors 1"), std::string::npos)
      << text;
  EXPECT_NE(text.find("version (not named): 1 requests"), std::string::npos) << text;
  const json::value doc = json::parse(report_json(r));
  const json::array& versions = doc.at("versions").as_array();
  ASSERT_EQ(versions.size(), 3u);
  EXPECT_EQ(versions[2].at("name").as_string(), "v2");
  EXPECT_EQ(versions[2].at("errors").as_int64(), 1);
  EXPECT_NEAR(versions[1].at("ttft_p99_ms").as_double(), 300, 1e-3);
  EXPECT_NEAR(versions[1].at("e2e_p50_ms").as_double(), 260, 1e-3);
}

TEST(Report, NoVersionsWhenEveryAnswerNamesTheModelAskedFor) {
  RunRecord run = sample_run();  // asked for "m", as a single engine answers
  const std::string asked = "m";
  for (RequestResult& result : run.results) {
    if (result.outcome == Outcome::kOk) result.served_by = asked;
  }
  const Report r = build_report(run, BenchOptions{});
  EXPECT_TRUE(r.versions.empty());
  EXPECT_EQ(format_summary(r).find("version "), std::string::npos);
  EXPECT_TRUE(json::parse(report_json(r)).at("versions").as_array().empty());
  // One version named that is not the one asked for (a deployment on one version): shown.
  run.results[1].served_by = "v1";
  EXPECT_EQ(build_report(run, BenchOptions{}).versions.size(), 3u);
}

TEST(SteadyDecode, CountsTokensWhileEveryStreamDecodes) {
  // Stream A: tokens at 1..10 s; B: 3..8 s. Window [3, 8]: A has 6 tokens there, B 6.
  std::vector<double> a, b;
  for (int t = 1; t <= 10; ++t)
    a.push_back(t);
  for (int t = 3; t <= 8; ++t)
    b.push_back(t);
  const SteadyDecode s = steady_decode({a, b, {}});
  EXPECT_EQ(s.streams, 2);
  EXPECT_TRUE(s.overlapping);
  EXPECT_DOUBLE_EQ(s.window_s, 5);
  EXPECT_EQ(s.tokens, 12);
  EXPECT_DOUBLE_EQ(s.tokens_per_s, 12.0 / 5);
  const SteadyDecode apart = steady_decode({{1, 2}, {3, 4}});
  EXPECT_FALSE(apart.overlapping);
  EXPECT_EQ(apart.tokens_per_s, 0);
  EXPECT_NE(format_steady_decode(apart).find("never all decoding"), std::string::npos);
}

class Files : public ::testing::Test {
 protected:
  std::string path(const std::string& name) {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("supportd-bench-report-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    created_.push_back(dir);
    return (dir / name).string();
  }
  void TearDown() override {
    for (const auto& dir : created_)
      std::filesystem::remove_all(dir);
  }
  static std::string read(const std::string& file) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  static void write(const std::string& file, const std::string& text) {
    std::ofstream(file) << text;
  }

 private:
  std::vector<std::filesystem::path> created_;
};

TEST_F(Files, JsonHasTheStableFieldsScriptsUse) {
  BenchOptions options;
  options.workload.tenants = {{"acme", "secret-key", 1}};
  const Report r = build_report(sample_run(), options);
  const std::string text = report_json(r);
  EXPECT_EQ(text.find("secret-key"), std::string::npos) << "keys must not leak into reports";
  const json::object doc = json::parse(text).as_object();
  for (const char* key :
       {"requests", "ok", "errors", "rejected", "duration_s", "request_throughput",
        "output_token_throughput", "goodput", "config", "classes", "timeline", "steady_decode"}) {
    EXPECT_TRUE(doc.contains(key)) << key;
  }
  EXPECT_EQ(doc.at("requests"), 5);
  for (const char* c : {"high", "normal", "low", "all"}) {
    for (const char* metric : {"ttft_ms", "itl_ms", "tpot_ms", "e2e_ms"}) {
      for (const char* p : {"p50", "p90", "p95", "p99", "max"})
        EXPECT_TRUE(doc.at("classes").at(c).at(metric).as_object().contains(p)) << c << metric << p;
    }
  }
  EXPECT_NEAR(doc.at("classes").at("normal").at("ttft_ms").at("p50").as_double(), 100, 1e-3);
  EXPECT_TRUE(doc.at("classes").at("low").at("ttft_ms").at("p50").is_null());  // none ok
  EXPECT_EQ(doc.at("classes").at("low").at("rejections").at("429:queue_full"), 1);
}

TEST_F(Files, CompareShowsRatiosAndRefusesWhatIsNotAReport) {
  const std::string a = path("a.json"), b = path("b.json");
  write(a, report_json(build_report(sample_run(), BenchOptions{})));
  RunRecord faster = sample_run();
  for (RequestResult& r : faster.results)
    for (float& t : r.token_s)
      t /= 2;
  write(b, report_json(build_report(faster, BenchOptions{})));
  auto table = compare_reports(a, b);
  ASSERT_TRUE(table.ok()) << table.error().message;
  EXPECT_NE(table->find("requests"), std::string::npos);
  std::istringstream lines(*table);
  std::string line;
  bool ttft_row = false;
  while (std::getline(lines, line)) {
    if (line.find("ttft_ms.p50") == std::string::npos) continue;
    ttft_row = true;
    EXPECT_NE(line.find("0.50"), std::string::npos) << line;  // B's TTFT is half A's
    break;
  }
  EXPECT_TRUE(ttft_row) << *table;

  const std::string not_json = path("c.json"), not_report = path("d.json");
  write(not_json, "{oops");
  write(not_report, R"({"hello": 1})");
  for (const std::string& bad : {not_json, not_report, path("missing.json")}) {
    auto refused = compare_reports(a, bad);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find(bad), std::string::npos) << refused.error().message;
  }
}

TEST_F(Files, HtmlIsSelfContainedWithChartsPerClass) {
  const std::string html = report_html(build_report(sample_run(), BenchOptions{}));
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("Time to first token"), std::string::npos);
  EXPECT_NE(html.find("End-to-end latency"), std::string::npos);
  EXPECT_NE(html.find("Queue depth"), std::string::npos);
  EXPECT_GE(std::count(html.begin(), html.end(), '<'), 50);
  std::size_t charts = 0;
  for (std::size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1))
    ++charts;
  EXPECT_EQ(charts, 5u);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http-equiv"), std::string::npos);
  EXPECT_NE(html.find(">high<"), std::string::npos);  // the legend names the classes
}

TEST(EmpiricalCdf, RisesAtEachValueAndStaysFlatBetween) {
  using Points = std::vector<std::pair<double, double>>;
  EXPECT_EQ(empirical_cdf({10, 20}, 300), (Points{{10, 0}, {10, 0.5}, {20, 0.5}, {20, 1}}));
  EXPECT_EQ(empirical_cdf({10, 10, 30}, 300),
            (Points{{10, 0}, {10, 1.0 / 3}, {10, 2.0 / 3}, {30, 2.0 / 3}, {30, 1}}));
  EXPECT_TRUE(empirical_cdf({}, 300).empty());

  std::vector<double> many(10'001);
  for (std::size_t i = 0; i < many.size(); ++i)
    many[i] = static_cast<double>(i);
  const Points steps = empirical_cdf(many, 300);
  EXPECT_LE(steps.size(), 2 * 300 + 1u);
  EXPECT_EQ(steps.front(), (std::pair<double, double>{0, 0}));
  EXPECT_EQ(steps.back(), (std::pair<double, double>{10'000, 1}));
  for (std::size_t i = 1; i < steps.size(); ++i) {
    EXPECT_GE(steps[i].first, steps[i - 1].first);
    EXPECT_GE(steps[i].second, steps[i - 1].second);
    // Each point moves along one axis only: a rise or a flat stretch, never a slope.
    EXPECT_TRUE(steps[i].first == steps[i - 1].first || steps[i].second == steps[i - 1].second);
  }
}

TEST_F(Files, TokenLogGivesBackTheSteadyDecodeRate) {
  const RunRecord run = sample_run();
  const std::string log = path("tokens.csv");
  ASSERT_TRUE(write_token_log(run, WorkloadOptions{}, log).ok());
  const std::string text = read(log);
  EXPECT_EQ(text.rfind("request,class,tenant,warmup,outcome,send_s,token,time_s\n", 0), 0u);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1 + 11);
  auto from_log = steady_decode_from_log(log);
  ASSERT_TRUE(from_log.ok()) << from_log.error().message;
  EXPECT_EQ(from_log->streams, 3);  // the measured ok streams; warm-up left out

  // Two streams that overlap in [0.375, 0.625] s: 3 token events each in there.
  RunRecord overlapping;
  overlapping.measure_start_s = 0;
  overlapping.results.push_back(
      ok_request(0, 1, 0.0, {0.125f, 0.25f, 0.375f, 0.5f, 0.625f, 0.75f, 0.875f, 1.0f}, 1.0));
  overlapping.results.push_back(ok_request(1, 1, 0.25, {0.125f, 0.25f, 0.375f}, 0.5));
  overlapping.end_s = 1.0;
  ASSERT_TRUE(write_token_log(overlapping, WorkloadOptions{}, log).ok());
  from_log = steady_decode_from_log(log);
  ASSERT_TRUE(from_log.ok()) << from_log.error().message;
  const SteadyDecode direct = build_report(overlapping, BenchOptions{}).steady;
  EXPECT_TRUE(direct.overlapping);
  EXPECT_EQ(direct.tokens, 6);
  EXPECT_DOUBLE_EQ(direct.tokens_per_s, 24);
  EXPECT_EQ(from_log->tokens, direct.tokens);
  EXPECT_DOUBLE_EQ(from_log->tokens_per_s, direct.tokens_per_s);

  const std::string broken = path("broken.csv");
  write(broken,
        "request,class,tenant,warmup,outcome,send_s,token,time_s\n1,normal,,0,ok,1,0,1.5\n"
        "2,normal,,0,ok,1,0,soon\n");
  auto refused = steady_decode_from_log(broken);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find(broken + ":3"), std::string::npos)
      << refused.error().message;
  write(broken, "a,b\n");
  EXPECT_FALSE(steady_decode_from_log(broken).ok());
  EXPECT_EQ(steady_decode_from_log(path("none.csv")).error().code, ErrorCode::kNotFound);
  EXPECT_EQ(write_token_log(run, WorkloadOptions{}, "/nonexistent/dir/t.csv").error().code,
            ErrorCode::kIo);
}

}  // namespace
}  // namespace supportd::bench
