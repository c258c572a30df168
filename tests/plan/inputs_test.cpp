// What a plan starts from: a `supportd bench --json` report (written here by the load
// tester's own writer, so the field names cannot drift apart) and supportd's /v1/stats; and
// the refusals of documents of the wrong kind, naming the file and the field.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "bench/report.h"
#include "bench/report_json.h"
#include "plan/measured_load.h"

namespace supportd::plan {
namespace {

bench::Report open_loop_report() {
  bench::Report r;
  r.options.mode = bench::LoadMode::kPoisson;
  r.options.rate = 4;
  r.requests = 400;
  r.ok = 400;
  r.duration_s = 100;
  r.request_throughput = 4;
  r.classes[0].requests = 40;   // high
  r.classes[1].requests = 360;  // normal
  r.classes[3].requests = 400;  // all
  r.classes[3].e2e_ms.count = 400;
  r.classes[3].e2e_ms.mean = 2500;
  for (int t = 0; t < 100; ++t) {
    bench::ServerSample s;
    s.time_s = t;
    s.running = t % 2 == 0 ? 8 : 10;  // mean 9
    s.waiting = 0;
    r.server.push_back(s);
    r.timeline.push_back({static_cast<double>(t), 4, 4, 0, 0, 0});
  }
  return r;
}

TEST(InputsTest, BenchReportOpenLoop) {
  auto m = load_from_bench_report(bench::report_json(open_loop_report()), "run.json");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(*m->arrival_rate, 4);
  EXPECT_EQ(*m->arrival_cv, 1);
  // Little's law: 9 running on average / 4 completions per second = 2.25 s per request.
  EXPECT_DOUBLE_EQ(*m->service_time_s, 2.25);
  EXPECT_EQ(*m->servers, 10);
  EXPECT_FALSE(m->service_cv.has_value());
  EXPECT_DOUBLE_EQ(m->class_arrival_rate[0], 0.4);
  EXPECT_DOUBLE_EQ(m->class_arrival_rate[1], 3.6);
  EXPECT_EQ(m->class_arrival_rate[2], 0);
  EXPECT_NE(m->source.find("run.json"), std::string::npos);
}

TEST(InputsTest, BenchReportWithoutServerPollingOrPoisson) {
  bench::Report r = open_loop_report();
  r.options.mode = bench::LoadMode::kClosed;
  r.server.clear();
  for (std::size_t t = 0; t < r.timeline.size(); ++t)
    r.timeline[t].sent = t % 2 == 0 ? 2 : 6;  // mean 4, variance 4: ca^2 about 1
  auto m = load_from_bench_report(bench::report_json(r), "closed.json");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_DOUBLE_EQ(*m->arrival_rate, 4);  // requests / duration
  EXPECT_NEAR(*m->arrival_cv, 1, 0.02);
  EXPECT_DOUBLE_EQ(*m->service_time_s, 2.5);  // the mean end-to-end latency, noted as such
  EXPECT_FALSE(m->servers.has_value());
  bool noted = false;
  for (const std::string& note : m->notes)
    noted = noted || note.find("includes any wait") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(InputsTest, RefusesDocumentsOfTheWrongKind) {
  const std::pair<std::string, std::string> bad[] = {
      {"not json", "is not JSON"},
      {"[1, 2]", "is not a JSON object"},
      {R"({"tool": "something else", "version": 1})", "is not a report of supportd bench"},
      {R"({"tool": "supportd bench", "version": 7})", "report version 7"},
      {R"({"tool": "supportd bench", "version": 1, "requests": "many"})",
       "requests is \"many\", not a number"},
      {R"({"tool": "supportd bench", "version": 1, "timeline": {"sent": [1, "x"]}})",
       "timeline.sent holds \"x\""}};
  for (const auto& [text, why] : bad) {
    auto m = load_from_bench_report(text, "bad.json");
    ASSERT_FALSE(m.ok()) << text;
    EXPECT_EQ(m.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(m.error().message.find(why), std::string::npos) << m.error().message;
    EXPECT_NE(m.error().message.find("bad.json"), std::string::npos) << m.error().message;
  }
}

TEST(InputsTest, SupportdStats) {
  const std::string body = R"({"model": "m", "engine": {"slots": 16}, "classes": {},
    "capacity": {"window_s": 60, "arrivals": 120, "arrival_rate": 2, "arrival_cv": 1.1,
      "served": 118, "service_time_s": 3.5, "service_cv": 0.4, "slots": 16,
      "classes": {"high": {"arrivals": 12, "arrival_rate": 0.2, "service_time_s": 3},
                  "normal": {"arrivals": 108, "arrival_rate": 1.8, "service_time_s": 3.6},
                  "low": {"arrivals": 0, "arrival_rate": 0, "service_time_s": null}}}})";
  auto m = load_from_supportd_stats(body, "http://127.0.0.1:1");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(*m->arrival_rate, 2);
  EXPECT_EQ(*m->arrival_cv, 1.1);
  EXPECT_EQ(*m->service_time_s, 3.5);
  EXPECT_EQ(*m->service_cv, 0.4);
  EXPECT_EQ(*m->servers, 16);
  EXPECT_EQ(*m->slots_per_engine, 16);
  EXPECT_EQ(m->class_arrival_rate[0], 0.2);
  EXPECT_EQ(*m->class_service_time_s[1], 3.6);
  EXPECT_FALSE(m->class_service_time_s[2].has_value());

  // Idle: no arrivals, service time unknown; the rates are absent rather than zero.
  auto idle = load_from_supportd_stats(
      R"({"engine": {}, "classes": {}, "capacity": {"window_s": 60, "arrival_rate": 0,
          "arrival_cv": null, "service_time_s": null, "service_cv": null, "slots": 4}})",
      "u");
  ASSERT_TRUE(idle.ok());
  EXPECT_FALSE(idle->arrival_rate.has_value());
  EXPECT_FALSE(idle->service_time_s.has_value());

  // Without a busy section (or with too little traffic in it) there is no curve.
  EXPECT_TRUE(m->busy_rates.empty());

  auto older = load_from_supportd_stats(R"({"engine": {}, "classes": {}})", "u");
  ASSERT_FALSE(older.ok());
  EXPECT_EQ(older.error().code, ErrorCode::kUnsupported);
  auto other = load_from_supportd_stats(R"({"status": "ok"})", "u");
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().code, ErrorCode::kInvalidArgument);
  auto wrong = load_from_supportd_stats(
      R"({"engine": {}, "classes": {}, "capacity": {"arrival_rate": "fast"}})", "u");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message.find("capacity.arrival_rate"), std::string::npos);
}

TEST(MeasuredLoad, TheBusyLevelsOfAServerBecomeItsServiceCurve) {
  // Four slots; seen long enough with 1 and 3 in service, too briefly with 2, never with 4.
  auto m = load_from_supportd_stats(
      R"({"engine": {}, "classes": {}, "capacity": {"window_s": 60, "arrival_rate": 3,
          "service_time_s": 0.5, "slots": 4,
          "busy": [{"in_service": 1, "seconds": 10, "departures": 20},
                   {"in_service": 2, "seconds": 0.5, "departures": 2},
                   {"in_service": 3, "seconds": 20, "departures": 90}]}})",
      "u");
  ASSERT_TRUE(m.ok()) << m.error().message;
  ASSERT_EQ(m->busy_rates.size(), 4u);
  EXPECT_DOUBLE_EQ(m->busy_rates[0], 2.0);
  EXPECT_DOUBLE_EQ(m->busy_rates[1], 3.25);  // between 2 and 4.5
  EXPECT_DOUBLE_EQ(m->busy_rates[2], 4.5);
  EXPECT_DOUBLE_EQ(m->busy_rates[3], 4.5);  // no gain assumed past what was seen
  bool noted = false;
  for (const std::string& note : m->notes)
    noted = noted || note.find("k = 1, 3 measured") != std::string::npos;
  EXPECT_TRUE(noted);

  for (const char* busy : {R"("busy": 3)", R"("busy": [{"in_service": 0, "seconds": 1,
                           "departures": 1}])",
                           R"("busy": [{"seconds": 1, "departures": 1}])",
                           R"("busy": [{"in_service": 1, "seconds": -1, "departures": 1}])"}) {
    auto bad = load_from_supportd_stats(
        std::string(R"({"engine": {}, "classes": {}, "capacity": {"slots": 2, )") + busy + "}}",
        "u");
    ASSERT_FALSE(bad.ok()) << busy;
    EXPECT_NE(bad.error().message.find("capacity.busy"), std::string::npos) << busy;
  }
}

TEST(MeasuredLoad, TheEnginesIterationCostsBecomeASimulatedEngine) {
  const std::string measured = R"({"engine": {}, "classes": {}, "capacity": {"window_s": 60,
      "arrival_rate": 3, "service_time_s": 0.5, "slots": 4,
      "iteration_cost": {"iterations": 5000, "fixed_ms": 6.5, "per_decode_token_ms": 0.75,
        "per_prompt_token_ms": 0.4, "requests": 300, "prompt_tokens": 63.6,
        "output_tokens": 32, "step_tokens": 256}}})";
  auto m = load_from_supportd_stats(measured, "u");
  ASSERT_TRUE(m.ok()) << m.error().message;
  ASSERT_TRUE(m->batching.has_value());
  EXPECT_EQ(m->batching->slots, 4);
  EXPECT_EQ(m->batching->step_tokens, 256);
  EXPECT_EQ(m->batching->fixed_ms, 6.5);
  EXPECT_EQ(m->batching->per_decode_token_ms, 0.75);
  EXPECT_EQ(m->batching->per_prompt_token_ms, 0.4);
  EXPECT_EQ(m->batching->prompt_tokens, 63.6);
  EXPECT_EQ(m->batching->output_tokens, 32);
  EXPECT_TRUE(m->batching->excess_ms.empty());    // a server that does not measure it: none
  EXPECT_EQ(m->batching->per_decode_pair_ms, 0);  // nor pairs: linear in the decode tokens

  // The iterations' excess over the fit goes to the simulation as it was measured.
  auto scattered = load_from_supportd_stats(
      R"({"engine": {}, "classes": {}, "capacity": {"slots": 4, "iteration_cost":
          {"iterations": 5000, "fixed_ms": 6.5, "per_decode_token_ms": 0.75,
           "per_prompt_token_ms": 0.4, "requests": 300, "prompt_tokens": 63.6,
           "output_tokens": 32, "step_tokens": 256, "excess_ms": [-0.5, 0, 0.1, 19.5],
           "excess_shares": [0.4, 0.3, 0.2, 0.1], "per_decode_pair_ms": 0.09}}})",
      "u");
  ASSERT_TRUE(scattered.ok()) << scattered.error().message;
  ASSERT_TRUE(scattered->batching.has_value());
  EXPECT_EQ(scattered->batching->per_decode_pair_ms, 0.09);
  EXPECT_EQ(scattered->batching->excess_ms, (std::vector<double>{-0.5, 0, 0.1, 19.5}));
  EXPECT_EQ(scattered->batching->excess_shares, (std::vector<double>{0.4, 0.3, 0.2, 0.1}));
  auto not_numbers = load_from_supportd_stats(
      R"({"engine": {}, "classes": {}, "capacity": {"slots": 4, "iteration_cost":
          {"iterations": 5000, "fixed_ms": 6.5, "per_decode_token_ms": 0.75,
           "per_prompt_token_ms": 0.4, "requests": 300, "prompt_tokens": 63.6,
           "output_tokens": 32, "step_tokens": 256, "excess_ms": [1, "slow"]}}})",
      "u");
  ASSERT_FALSE(not_numbers.ok());
  EXPECT_NE(not_numbers.error().message.find("capacity.iteration_cost.excess_ms"),
            std::string::npos);

  // Too little measured (or nothing yet: null): no simulation, a note says why.
  auto young = load_from_supportd_stats(
      R"({"engine": {}, "classes": {}, "capacity": {"slots": 4, "iteration_cost":
          {"iterations": 50, "fixed_ms": 6, "per_decode_token_ms": 1, "per_prompt_token_ms": 1,
           "requests": 3, "prompt_tokens": 10, "output_tokens": 10, "step_tokens": 256}}})",
      "u");
  ASSERT_TRUE(young.ok()) << young.error().message;
  EXPECT_FALSE(young->batching.has_value());
  bool noted = false;
  for (const std::string& note : young->notes)
    noted = noted || note.find("fewer than") != std::string::npos;
  EXPECT_TRUE(noted);
  auto none = load_from_supportd_stats(
      R"({"engine": {}, "classes": {}, "capacity": {"slots": 4, "iteration_cost": null}})", "u");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->batching.has_value());

  // Malformed: named.
  auto bad = load_from_supportd_stats(
      R"({"engine": {}, "classes": {}, "capacity": {"slots": 4, "iteration_cost":
          {"iterations": 5000, "fixed_ms": "fast"}}})",
      "u");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("capacity.iteration_cost.fixed_ms"), std::string::npos);
  auto negative = load_from_supportd_stats(
      R"({"engine": {}, "classes": {}, "capacity": {"slots": 4, "iteration_cost":
          {"iterations": 5000, "fixed_ms": -1, "per_decode_token_ms": 1,
           "per_prompt_token_ms": 1, "requests": 300, "prompt_tokens": 10, "output_tokens": 10,
           "step_tokens": 256}}})",
      "u");
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.error().message.find("iteration_cost"), std::string::npos);
}

}  // namespace
}  // namespace supportd::plan
