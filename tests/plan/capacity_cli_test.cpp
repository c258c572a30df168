// `supportd capacity` through the built binary: the reference's waits in the text, the JSON
// fields, the HTML file, a bench report as input, and exit code 2 with a message naming the
// problem for bad input (never NaN, infinity or a hang).
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../kb/test_dir.h"
#include "supportd_command.h"

namespace supportd::plan {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using Command = supportd::testing::CommandRun;

class CapacityCli : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& content) const {
    return dir_.write(name, content);
  }

  static Command capacity(std::vector<std::string> args) {
    args.insert(args.begin(), "capacity");
    return supportd::testing::run_supportd(args);
  }

  kb::testing::TestDir dir_{"capacity"};
  const fs::path path_{dir_.path()};
};

const std::vector<std::string> kNlu{"--arrival-rate", "150", "--service-rate", "25",
                                    "--servers",      "8"};
// One slot of 10 ms iterations, five per request, at 12/s: M/D/1 at rho 0.6.
const std::vector<std::string> kOneSlot{"--arrival-rate",  "12",     "--servers",       "1",
                                        "--step-cost",     "10,0,0", "--prompt-tokens", "8",
                                        "--output-tokens", "5"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST_F(CapacityCli, ReferenceServicePrintsTheExactWaits) {
  const Command c = capacity(kNlu);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_NE(c.out.find("M/M/c (Erlang C), exact"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("mean wait              7.140 ms"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("1.2x"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("35.08 ms"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("servers needed         9 for utilisation <= 70%"), std::string::npos)
      << c.out;
  // The same with the service time instead of the rate.
  const Command t = capacity({"--arrival-rate", "150", "--service-time", "0.04", "--servers", "8"});
  EXPECT_EQ(t.out, c.out);
}

TEST_F(CapacityCli, JsonFields) {
  const Command c = capacity(with(kNlu, {"--json", "--target-wait", "0.02", "--growth", "1,1.2"}));
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const json::object o = json::parse(c.out).as_object();
  for (const char* field : {"utilization", "p_wait", "mean_wait_s", "wait_p95_s", "wait_p99_s",
                            "service_level", "servers_needed"}) {
    EXPECT_TRUE(o.contains(field) && o.at(field).is_number()) << field << "\n" << c.out;
  }
  EXPECT_NEAR(o.at("mean_wait_s").to_number<double>(), 0.0071396, 1e-7);
  EXPECT_EQ(o.at("targets").at("service_level").to_number<double>(), 0.8);
  const json::array& growth = o.at("growth").as_array();
  ASSERT_EQ(growth.size(), 2u);
  EXPECT_NEAR(growth[1].at("mean_wait_s").to_number<double>(), 0.0350766, 1e-7);
}

TEST_F(CapacityCli, BusyRatesFollowTheMeasuredCurve) {
  // A linear curve (k x 25/s with k busy) is plain M/M/c: the reference's exact wait again.
  const std::vector<std::string> linear{"--arrival-rate", "150", "--busy-rates",
                                        "25,50,75,100,125,150,175,200", "--json"};
  const Command c = capacity(linear);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const json::object o = json::parse(c.out).as_object();
  EXPECT_NEAR(o.at("mean_wait_s").to_number<double>(), 0.0071396, 1e-7);
  EXPECT_EQ(o.at("servers").to_number<int>(), 8);
  // Batching whose last slots add less (the last 2 add 15/s each, 180/s in all): the
  // same arrivals wait longer than M/M/c says.
  const Command s =
      capacity({"--arrival-rate", "150", "--busy-rates", "25,50,75,100,125,150,165,180", "--json"});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  const json::object sub = json::parse(s.out).as_object();
  EXPECT_GT(sub.at("mean_wait_s").to_number<double>(), 0.0071396 * 1.5);
  EXPECT_NE(s.out.find("load-dependent"), std::string::npos) << s.out;
}

TEST_F(CapacityCli, StepCostSimulatesTheEngine) {
  // kOneSlot: M/D/1 at rho 0.6, whose mean wait is 37.5 ms (Pollaczek-Khinchine).
  const Command c = capacity(with(kOneSlot, {"--json", "--growth", "1,2"}));
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const json::object o = json::parse(c.out).as_object();
  EXPECT_NE(std::string(o.at("model").as_string()).find("simulated"), std::string::npos);
  EXPECT_NEAR(o.at("mean_wait_s").to_number<double>(), 0.0375, 0.0375 * 0.05);
  EXPECT_NEAR(o.at("utilization").to_number<double>(), 0.6, 1e-9);
  EXPECT_GT(o.at("ttft_mean_s").to_number<double>(), o.at("mean_wait_s").to_number<double>());
  EXPECT_TRUE(o.at("growth").as_array()[1].at("overloaded").as_bool());  // 24/s of 20/s
  // The text says what was simulated.
  const Command text = capacity(kOneSlot);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("one engine of 1 slots simulated"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("mean time to 1st token"), std::string::npos) << text.out;
  // A fifth number: what each pair of decode tokens in an iteration adds (said in the notes).
  const Command convex =
      capacity({"--arrival-rate", "40", "--servers", "4", "--step-cost", "2,0.5,0.1,0,0.2",
                "--prompt-tokens", "32", "--output-tokens", "10"});
  ASSERT_EQ(convex.exit_code, 0) << convex.err;
  EXPECT_NE(convex.out.find("+ 0.2 ms per pair of decode tokens"), std::string::npos) << convex.out;
  // How much a measurement of 60 s at that rate would vary by chance.
  const Command spread = capacity(with(kOneSlot, {"--json", "--run-seconds", "60"}));
  ASSERT_EQ(spread.exit_code, 0) << spread.err;
  const json::object runs = json::parse(spread.out).as_object().at("run_spread").as_object();
  EXPECT_EQ(runs.at("repeats").to_number<int>(), 1);
  const json::object means = runs.at("mean_wait_s").as_object();
  EXPECT_LT(means.at("p5").to_number<double>(), 0.0375);
  EXPECT_GT(means.at("p95").to_number<double>(), 0.0375);
  // On a machine twice as slow: M/D/1 with a 100 ms service at rho 0.6 (6/s of 10/s).
  const Command slow = capacity({"--arrival-rate", "6", "--servers", "1", "--step-cost", "10,0,0",
                                 "--prompt-tokens", "8", "--output-tokens", "5", "--speed-trace",
                                 "2,2", "--speed-window", "3", "--json"});
  ASSERT_EQ(slow.exit_code, 0) << slow.err;
  const json::object halved = json::parse(slow.out).as_object();
  EXPECT_NEAR(halved.at("mean_wait_s").to_number<double>(), 0.075, 0.075 * 0.05);
  EXPECT_NEAR(halved.at("utilization").to_number<double>(), 0.6, 1e-9);
  EXPECT_NE(slow.out.find("the machine's speed varies"), std::string::npos) << slow.out;
  // Iterations that stall now and then (one in 100 by 99 ms, the rest 1 ms faster: the same
  // mean cost) wait longer than iterations that always cost their mean; 0 is no excess.
  const Command even = capacity(with(kOneSlot, {"--json", "--iteration-excess", "0"}));
  std::vector<std::string> stalls = {"--json", "--iteration-excess"};
  std::string values;
  for (int i = 0; i < 99; ++i)
    values += "-1,";
  stalls.push_back(values + "99");
  const Command stalled = capacity(with(kOneSlot, stalls));
  ASSERT_EQ(even.exit_code, 0) << even.err;
  ASSERT_EQ(stalled.exit_code, 0) << stalled.err;
  EXPECT_NEAR(json::parse(even.out).as_object().at("mean_wait_s").to_number<double>(), 0.0375,
              0.0375 * 0.05);
  EXPECT_GT(json::parse(stalled.out).as_object().at("mean_wait_s").to_number<double>(),
            1.1 * json::parse(even.out).as_object().at("mean_wait_s").to_number<double>());
}

TEST_F(CapacityCli, HtmlFile) {
  const std::string path = (path_ / "plan.html").string();
  const Command c = capacity(with(kNlu, {"--html", path, "--priority-mix", "high=1,normal=9"}));
  ASSERT_EQ(c.exit_code, 0) << c.err;
  std::stringstream html;
  html << std::ifstream(path).rdbuf();
  EXPECT_NE(html.str().find("<svg"), std::string::npos);
  EXPECT_NE(html.str().find("Waits per priority class"), std::string::npos);
  EXPECT_NE(c.out.find("waits per class"), std::string::npos) << c.out;
}

TEST_F(CapacityCli, BenchReportAsInput) {
  const std::string report = write("run.json", R"({"tool": "supportd bench", "version": 1,
    "requests": 300, "duration_s": 100, "request_throughput": 3,
    "config": {"mode": "poisson", "rate": 3},
    "classes": {"all": {"e2e_ms": {"mean": 2000}}},
    "timeline": {"sent": [3, 3, 3], "server": {"running": [5, 7, 6, 6]}}})");
  const Command c = capacity({"--bench-report", report, "--json"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const json::object o = json::parse(c.out).as_object();
  EXPECT_EQ(o.at("inputs").at("arrival_rate").to_number<double>(), 3);
  EXPECT_EQ(o.at("inputs").at("service_time_s").to_number<double>(), 2);  // 6 running / 3 per s
  EXPECT_EQ(o.at("inputs").at("servers").to_number<int>(), 7);
  // A flag wins over the report.
  const Command more = capacity({"--bench-report", report, "--json", "--servers", "12"});
  ASSERT_EQ(more.exit_code, 0) << more.err;
  EXPECT_EQ(json::parse(more.out).at("inputs").at("servers").to_number<int>(), 12);
}

TEST_F(CapacityCli, BadInputExitsTwoWithAMessage) {
  const std::string other = write("other.json", R"({"tool": "something", "version": 1})");
  const std::string broken = write("broken.json", "{\"tool\": ");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"--arrival-rate", "0", "--service-rate", "25", "--servers", "8"}, "arrival rate"},
      {{"--arrival-rate", "-3", "--service-rate", "25"}, "arrival rate"},
      {{"--arrival-rate", "150", "--service-rate", "0"}, "service rate"},
      {{"--arrival-rate", "150", "--service-time", "-1"}, "--service-time"},
      {{"--arrival-rate", "abc", "--service-rate", "25"}, "--arrival-rate"},
      {{"--arrival-rate", "nan", "--service-rate", "25"}, "arrival rate"},
      {{"--arrival-rate", "inf", "--service-rate", "25"}, "arrival rate"},
      {{"--arrival-rate", "150", "--service-rate", "25", "--servers", "6"}, "no steady state"},
      {{"--arrival-rate", "150", "--service-rate", "25", "--servers", "0"}, "--servers"},
      {{"--arrival-rate", "150"}, "--service-time or --service-rate"},
      {{"--service-rate", "25"}, "--arrival-rate is needed"},
      {{"--arrival-rate", "150", "--service-rate", "25", "--service-time", "1"}, "excludes"},
      {with(kNlu, {"--service-level", "0.8"}), "--target-wait"},
      {with(kNlu, {"--target-wait", "1", "--service-level", "1.5"}), "--service-level"},
      {with(kNlu, {"--max-utilization", "1"}), "--max-utilization"},
      {with(kNlu, {"--headroom", "0"}), "--headroom"},
      {with(kNlu, {"--arrival-cv", "-1"}), "arrival-cv"},
      {with(kNlu, {"--growth", "1,-2"}), "--growth"},
      {with(kNlu, {"--growth", "1,x"}), "--growth"},
      {with(kNlu, {"--priority-mix", "vip=1"}), "unknown class"},
      {{"--arrival-rate", "1e15", "--service-rate", "1"}, "check the rates"},
      {{"--bench-report", other}, "is not a report of supportd bench"},
      {{"--bench-report", broken}, "is not JSON"},
      {{"--bench-report", (path_ / "missing.json").string()}, "cannot read"},
      {{"--bench-report", dir_.path()}, "is a directory"},
      {with(kNlu, {"--html", (path_ / "no" / "such" / "dir.html").string()}), "no directory"},
      {{"--arrival-rate", "10", "--busy-rates", "25,0"}, "service curve"},
      {{"--arrival-rate", "10", "--busy-rates", "25,50", "--servers", "3"}, "must agree"},
      {{"--arrival-rate", "60", "--busy-rates", "25,50"}, "no steady state"},
      {{"--arrival-rate", "10", "--servers", "4", "--step-cost", "1,2"}, "three to five numbers"},
      {{"--arrival-rate", "10", "--servers", "4", "--step-cost", "1,0,0,0,0,0"},
       "three to five numbers"},
      {{"--arrival-rate", "10", "--step-cost", "1,0,0", "--prompt-tokens", "8", "--output-tokens",
        "4"},
       "needs --servers"},
      {{"--arrival-rate", "10", "--servers", "4", "--step-cost", "1,0,0"}, "--prompt-tokens"},
      {{"--arrival-rate", "10", "--servers", "4", "--step-cost", "-1,0,0", "--prompt-tokens", "8",
        "--output-tokens", "4"},
       "0 or more"},
      {{"--arrival-rate", "10", "--servers", "2", "--step-cost", "1,0,0", "--busy-rates", "1,2",
        "--prompt-tokens", "8", "--output-tokens", "4"},
       "give one"},
      {{"--arrival-rate", "1000", "--servers", "1", "--step-cost", "10,0,0", "--prompt-tokens", "8",
        "--output-tokens", "5"},
       "no steady state"},
      {with(kNlu, {"--run-seconds", "60"}), "needs a simulated engine"},
      {with(kNlu, {"--speed-trace", "1,1.2"}), "needs a simulated engine"},
      {with(kOneSlot, {"--speed-window", "3"}), "goes with --speed-trace"},
      {with(kOneSlot, {"--speed-trace", "1,-1"}), "factor above 0"},
      {with(kNlu, {"--iteration-excess", "1,2"}), "needs a simulated engine"},
      {with(kOneSlot, {"--iteration-excess", "1,nan"}), "iteration-excess"},
      {with(kOneSlot, {"--iteration-excess", "5e6"}), "within a million"},
      {with(kOneSlot, {"--iteration-excess", "1,2", "--iteration-excess-shares", "1"}),
       "as many as its values"},
      {with(kOneSlot, {"--iteration-excess-shares", "1"}), "goes with --iteration-excess"},
      {with(kOneSlot, {"--run-repeats", "3"}), "goes with --run-seconds"},
      {with(kOneSlot, {"--run-seconds", "0.01"}), "between 1 and a million arrivals"},
      {with(kOneSlot, {"--run-seconds", "60", "--run-repeats", "0"}), "from 1 to 100"},
      {{"--url", "https://127.0.0.1:1"}, "https"},
      {{"--url", "http://127.0.0.1:1", "--bench-report", other}, "excludes"}};
  for (const auto& [args, why] : cases) {
    const Command c = capacity(args);
    std::string line;
    for (const std::string& a : args)
      line += a + " ";
    EXPECT_EQ(c.exit_code, 2) << line << "\n" << c.out << c.err;
    EXPECT_NE(c.err.find(why), std::string::npos) << line << "\n" << c.err;
    EXPECT_EQ(c.out.find("nan"), std::string::npos) << line;
    EXPECT_EQ(c.out.find("inf"), std::string::npos) << line;
  }
}

TEST_F(CapacityCli, UnreachableServerExitsOne) {
  // Port 1 on loopback: nothing listens there, the connection is refused at once.
  const Command c = capacity({"--url", "http://127.0.0.1:1", "--timeout", "5"});
  EXPECT_EQ(c.exit_code, 1) << c.err;
  EXPECT_NE(c.err.find("127.0.0.1:1"), std::string::npos) << c.err;
}

TEST_F(CapacityCli, Help) {
  const Command c = capacity({"--help"});
  EXPECT_EQ(c.exit_code, 0);
  for (const char* flag : {"--arrival-rate", "--service-time", "--service-rate", "--servers",
                           "--target-wait", "--service-level", "--bench-report", "--url", "--json",
                           "--html", "--growth", "--priority-mix", "--busy-rates", "--step-cost",
                           "--prompt-tokens", "--output-tokens", "--step-tokens"})
    EXPECT_NE(c.out.find(flag), std::string::npos) << flag;
}

}  // namespace
}  // namespace supportd::plan
