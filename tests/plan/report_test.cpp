// The plan and its reports: the reference's numbers in the text, every JSON field the issue
// names (and never NaN or infinity, even for overloaded growth steps), the HTML page
// self-contained with its charts.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <cmath>

#include "plan/capacity_plan.h"
#include "plan/plan_report.h"

namespace supportd::plan {
namespace {

namespace json = boost::json;

PlanInputs nlu() {
  PlanInputs in;
  in.station.arrival_rate = 150;
  in.station.service_rate = 25;
  in.station.servers = 8;
  in.source = "the command line";
  return in;
}

TEST(ReportTest, PlanOfTheReferenceService) {
  auto plan = make_plan(nlu());
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->servers_needed, 9);  // 30% headroom by default
  EXPECT_EQ(*plan->inputs.targets.max_utilization, kDefaultMaxUtilization);
  ASSERT_EQ(plan->growth.size(), 7u);
  EXPECT_EQ(plan->growth[1].factor, 1.2);
  EXPECT_NEAR(plan->growth[1].performance->mean_wait_s(), 0.03508, 5e-6);
  EXPECT_FALSE(plan->growth[2].performance.has_value());  // 1.5x: 112.5% of 8 servers
  EXPECT_EQ(plan->growth.back().servers_needed, 43);      // 30 erlangs at <= 70%
  const std::string text = plan_text(*plan);
  EXPECT_NE(text.find("M/M/c (Erlang C), exact"), std::string::npos) << text;
  EXPECT_NE(text.find("7.140 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("35.08 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("overloaded"), std::string::npos) << text;
}

TEST(ReportTest, JsonHasTheNamedFieldsAndOnlyFiniteNumbers) {
  PlanInputs in = nlu();
  in.targets.wait_s = 0.02;
  in.targets.service_level = 0.9;
  in.classes = {{"high", 15, 0.04, 1}, {"normal", 135, 0.04, 1}, {"low", 0, 0.04, 1}};
  in.slots_per_engine = 4;
  auto plan = make_plan(in);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  const std::string text = plan_json(*plan);
  EXPECT_EQ(text.find("nan"), std::string::npos);
  EXPECT_EQ(text.find("inf"), std::string::npos);
  const json::object o = json::parse(text).as_object();
  for (const char* field : {"utilization", "p_wait", "mean_wait_s", "wait_p95_s", "wait_p99_s",
                            "service_level", "servers_needed"}) {
    ASSERT_TRUE(o.contains(field)) << field;
    EXPECT_TRUE(o.at(field).is_number()) << field;
  }
  EXPECT_NEAR(o.at("mean_wait_s").to_number<double>(), 0.0071396, 1e-7);
  // 1 - C exp(-(c mu - lambda) t) = 1 - 0.35698 exp(-50 x 0.02)
  EXPECT_NEAR(o.at("service_level").to_number<double>(), 1 - 0.35698 * std::exp(-1.0), 1e-5);
  EXPECT_EQ(o.at("engines_needed").to_number<int>(),
            (o.at("servers_needed").to_number<int>() + 3) / 4);
  EXPECT_EQ(o.at("approximation"), json::value(false));
  const json::array& growth = o.at("growth").as_array();
  ASSERT_EQ(growth.size(), 7u);
  const json::object& overloaded = growth[6].as_object();  // 5x
  EXPECT_EQ(overloaded.at("overloaded"), json::value(true));
  EXPECT_TRUE(overloaded.at("mean_wait_s").is_null());
  EXPECT_TRUE(overloaded.at("utilization").is_number());
  // VIP at 5x: 75/s of 40 ms on 8 servers is 37.5% busy, a finite wait; normal has none.
  const json::array& classes = overloaded.at("classes").as_array();
  EXPECT_EQ(classes[0].at("stable"), json::value(true));
  EXPECT_TRUE(classes[0].at("mean_wait_s").is_number());
  EXPECT_TRUE(classes[1].at("mean_wait_s").is_null());
  EXPECT_EQ(o.at("classes").at("approximation"), json::value(true));
}

TEST(ReportTest, HtmlIsSelfContainedWithCharts) {
  auto plan = make_plan(nlu());
  ASSERT_TRUE(plan.ok());
  const std::string html = plan_html(*plan);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("Mean wait in queue against the arrival rate"), std::string::npos);
  EXPECT_NE(html.find("8 servers (plan)"), std::string::npos);
  EXPECT_NE(html.find("<table>"), std::string::npos);
  // Nothing fetched from elsewhere (the only URL is the SVG namespace, which is a name).
  for (const char* outside : {"src=", "href=", "url(", "<script", "<link", "<img", "@import"})
    EXPECT_EQ(html.find(outside), std::string::npos) << outside;
}

TEST(ReportTest, ServersChosenWhenNotGivenAndOverloadExplained) {
  PlanInputs in = nlu();
  in.station.servers = 0;
  in.targets.mean_wait_s = 0.001;
  auto plan = make_plan(in);
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->servers_chosen);
  EXPECT_EQ(plan->inputs.station.servers, plan->servers_needed);
  EXPECT_LE(plan->performance.mean_wait_s(), 0.001);

  in = nlu();
  in.station.arrival_rate = 250;  // 10 erlangs on 8 servers
  auto overloaded = make_plan(in);
  ASSERT_FALSE(overloaded.ok());
  EXPECT_EQ(overloaded.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(overloaded.error().message.find("no steady state"), std::string::npos);
  EXPECT_NE(overloaded.error().message.find(
                "at least 11 servers for a steady state, 15 for utilisation <= 70%"),
            std::string::npos)
      << overloaded.error().message;
  in = nlu();
  in.growth = {1, 0};
  EXPECT_FALSE(make_plan(in).ok());
}

}  // namespace
}  // namespace supportd::plan
