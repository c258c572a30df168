// Open-loop arrivals (trace files, Poisson) and the validation of options as a whole.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "bench/arrivals.h"
#include "bench/options.h"

namespace supportd::bench {
namespace {

class TempFile {
 public:
  explicit TempFile(const std::string& text) {
    path_ = (std::filesystem::temp_directory_path() /
             ("supportd-bench-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++)))
                .string();
    std::ofstream(path_) << text;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  const std::string& path() const { return path_; }

 private:
  static inline int counter_ = 0;
  std::string path_;
};

TEST(Trace, ReadsTimesAndOptionalFields) {
  TempFile file(
      "time_s,prompt_tokens,output_tokens,priority\n"
      "# a comment\n"
      "0.0\n"
      "\n"
      "0.5, 120\n"
      "0.5 30 16 high   # blanks work too\r\n"
      "2,40,8,low\n");
  auto trace = read_trace(file.path());
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  ASSERT_EQ(trace->size(), 4u);
  EXPECT_DOUBLE_EQ((*trace)[1].time_s, 0.5);
  EXPECT_EQ((*trace)[1].values.prompt_tokens, 120);
  EXPECT_FALSE((*trace)[1].values.output_tokens);
  EXPECT_EQ((*trace)[2].values.output_tokens, 16);
  EXPECT_EQ((*trace)[2].values.priority, sched::Priority::kHigh);
  EXPECT_EQ((*trace)[3].values.priority, sched::Priority::kLow);

  ArrivalSchedule schedule = ArrivalSchedule::trace(*trace, 2.0);
  EXPECT_DOUBLE_EQ(schedule.next()->time_s, 0.0);
  EXPECT_DOUBLE_EQ(schedule.next()->time_s, 0.25);
  schedule.next();
  EXPECT_DOUBLE_EQ(schedule.next()->time_s, 1.0);
  EXPECT_FALSE(schedule.next().has_value());
}

TEST(Trace, ErrorsNameTheFileAndLine) {
  struct Case {
    std::string text;
    std::string where;
    std::string what;
  };
  const Case cases[] = {{"0\n1\nsoon\n", ":3:", "time"},
                        {"0\n2\n1\n", ":3:", "earlier"},
                        {"0,10,5,urgent\n", ":1:", "priority"},
                        {"0,0\n", ":1:", "prompt tokens"},
                        {"0,10,x\n", ":1:", "output tokens"},
                        {"0,1,2,low,extra\n", ":1:", "more than 4"},
                        {"-1\n", ":1:", "time"}};
  for (const Case& c : cases) {
    TempFile file(c.text);
    auto trace = read_trace(file.path());
    ASSERT_FALSE(trace.ok()) << c.text;
    EXPECT_EQ(trace.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(trace.error().message.find(file.path() + c.where), std::string::npos)
        << trace.error().message;
    EXPECT_NE(trace.error().message.find(c.what), std::string::npos) << trace.error().message;
  }
  TempFile empty("# nothing\n\n");
  EXPECT_FALSE(read_trace(empty.path()).ok());
  auto missing = read_trace("/nonexistent/trace.csv");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  EXPECT_NE(missing.error().message.find("/nonexistent/trace.csv"), std::string::npos);
}

TEST(Poisson, GapsAverageOneOverTheRateAndRepeatForASeed) {
  ArrivalSchedule a = ArrivalSchedule::poisson(50, 3), b = ArrivalSchedule::poisson(50, 3);
  double last = 0;
  for (int i = 0; i < 20000; ++i) {
    const Arrival x = *a.next();
    EXPECT_DOUBLE_EQ(x.time_s, b.next()->time_s);
    EXPECT_GE(x.time_s, last);
    last = x.time_s;
  }
  EXPECT_NEAR(last / 20000, 1.0 / 50, 0.001);
}

TEST(Options, ValidateChecksTheWholeAndDefaultsTheBound) {
  BenchOptions ok;
  ASSERT_TRUE(validate(ok).ok());
  EXPECT_EQ(ok.requests, 100);

  auto refused = [](BenchOptions o, const std::string& flag) {
    const Status status = validate(o);
    ASSERT_FALSE(status.ok()) << flag;
    EXPECT_NE(status.error().message.find(flag), std::string::npos) << status.error().message;
  };
  BenchOptions o;
  o.mode = LoadMode::kPoisson;
  refused(o, "--rate");
  o = {};
  o.url = "ftp://x";
  refused(o, "--url");
  o = {};
  o.concurrency = 0;
  refused(o, "--concurrency");
  o = {};
  o.concurrency = 20;
  o.max_outstanding = 10;
  refused(o, "--concurrency");
  o = {};
  o.workload.repeat_ratio = 1.5;
  refused(o, "--repeat-ratio");
  o = {};
  o.request_timeout_s = 0;
  refused(o, "--request-timeout");
  o = {};
  o.mode = LoadMode::kTrace;
  o.trace_path = "/nonexistent/arrivals.txt";
  refused(o, "/nonexistent/arrivals.txt");
  o = {};
  o.duration_s = 5;
  ASSERT_TRUE(validate(o).ok());
  EXPECT_EQ(o.requests, 0);  // the duration bounds the run
}

}  // namespace
}  // namespace supportd::bench
