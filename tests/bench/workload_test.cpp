// Workload generation: distributions, prompt text, priority mix, tenants, repetition, presets.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "bench/distribution.h"
#include "bench/prompt_text.h"
#include "bench/workload.h"

namespace supportd::bench {
namespace {

TEST(Distribution, ParsesEveryFormAndDescribesItBack) {
  for (const std::string text : {"256", "uniform:30-80", "normal:100,20", "exp:0.5"}) {
    auto d = Distribution::parse(text, "--x", 0);
    ASSERT_TRUE(d.ok()) << text << ": " << d.error().message;
    EXPECT_EQ(d->describe(), text);
  }
  EXPECT_EQ(Distribution::parse("fixed:7", "--x", 0)->describe(), "7");
  EXPECT_DOUBLE_EQ(Distribution::parse("uniform:30-80", "--x", 0)->mean(), 55);
}

TEST(Distribution, RefusesBadTextNamingTheFlag) {
  for (const std::string text : {"", "abc", "uniform:5", "uniform:9-3", "normal:5", "normal:5,-1",
                                 "exp:0", "zipf:3", "12x", "uniform:0-10"}) {
    auto d = Distribution::parse(text, "--prompt-tokens", 1);
    ASSERT_FALSE(d.ok()) << text;
    EXPECT_EQ(d.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(d.error().message.find("--prompt-tokens"), std::string::npos) << d.error().message;
  }
}

TEST(Distribution, SamplesStayInBoundsAndRepeatForASeed) {
  const auto uniform = *Distribution::parse("uniform:30-80", "--x", 1);
  const auto normal = *Distribution::parse("normal:5,50", "--x", 1);
  std::mt19937_64 a(7), b(7);
  std::set<int> seen;
  for (int i = 0; i < 5000; ++i) {
    const int v = uniform.sample_int(a);
    EXPECT_EQ(v, uniform.sample_int(b));
    EXPECT_GE(v, 30);
    EXPECT_LE(v, 80);
    seen.insert(v);
    EXPECT_GE(normal.sample_int(a), 1);  // clamped at the minimum
    normal.sample_int(b);
  }
  EXPECT_EQ(seen.size(), 51u);  // both ends included
  const auto exponential = *Distribution::parse("exp:2", "--x", 0);
  double sum = 0;
  for (int i = 0; i < 20000; ++i)
    sum += exponential.sample(a);
  EXPECT_NEAR(sum / 20000, 2.0, 0.1);
}

TEST(PromptText, IsDeterministicAndHasTheAskedNumberOfWords) {
  EXPECT_EQ(prompt_text(3, 50), prompt_text(3, 50));
  EXPECT_NE(prompt_text(3, 50), prompt_text(4, 50));
  const std::string text = prompt_text(9, 200);
  EXPECT_EQ(std::count(text.begin(), text.end(), ' '), 199);
  EXPECT_EQ(prompt_text(1, 0), "");
  std::set<std::string_view> words(prompt_words().begin(), prompt_words().end());
  EXPECT_EQ(words.size(), prompt_words().size()) << "the word list has duplicates";
}

TEST(Workload, RequestIIsTheSameForTheSameSeed) {
  WorkloadOptions options;
  options.prompt_tokens = *Distribution::parse("uniform:10-90", "--x", 1);
  options.output_tokens = *Distribution::parse("normal:64,16", "--x", 1);
  options.priority_mix = {1, 2, 1};
  options.repeat_ratio = 0.3;
  options.seed = 42;
  Workload a(options), b(options);
  for (int i = 0; i < 300; ++i) {
    const RequestSpec x = a.next(), y = b.next();
    EXPECT_EQ(x.index, i);
    EXPECT_EQ(x.priority, y.priority);
    EXPECT_EQ(x.question_words, y.question_words);
    EXPECT_EQ(x.max_tokens, y.max_tokens);
    EXPECT_EQ(a.question_text(x), b.question_text(y));
  }
  options.seed = 43;
  Workload c(options);
  Workload d(
      WorkloadOptions{options.prompt_tokens, options.output_tokens, 0, 0.3, {1, 2, 1}, {}, 42});
  int differences = 0;
  for (int i = 0; i < 50; ++i)
    differences += c.question_text(c.next()) != d.question_text(d.next());
  EXPECT_GT(differences, 40);
}

TEST(Workload, RepeatsAreExactCopiesOfEarlierQuestionsAtTheAskedRatio) {
  WorkloadOptions options;
  options.prompt_tokens = *Distribution::parse("uniform:5-50", "--x", 1);
  options.repeat_ratio = 0.4;
  Workload workload(options);
  std::map<std::string, int> asked;
  int repeated = 0;
  const int n = 5000;
  for (int i = 0; i < n; ++i) {
    const RequestSpec spec = workload.next();
    const std::string text = workload.question_text(spec);
    EXPECT_EQ(spec.repeated, asked.contains(text)) << i;
    repeated += spec.repeated;
    ++asked[text];
  }
  EXPECT_NEAR(static_cast<double>(repeated) / n, 0.4, 0.03);
  Workload none(WorkloadOptions{});
  for (int i = 0; i < 200; ++i)
    EXPECT_FALSE(none.next().repeated);
}

TEST(Workload, PriorityMixAndTenantWeightsAreHonoured) {
  WorkloadOptions options;
  options.priority_mix = *parse_priority_mix("high=1,normal=8,low=1");
  options.tenants = *parse_tenants("acme=k1:3,globex=k2");
  Workload workload(options);
  std::array<int, 3> classes{};
  std::array<int, 2> tenants{};
  for (int i = 0; i < 10000; ++i) {
    const RequestSpec spec = workload.next();
    ++classes[static_cast<std::size_t>(spec.priority)];
    ASSERT_GE(spec.tenant, 0);
    ++tenants[static_cast<std::size_t>(spec.tenant)];
  }
  EXPECT_NEAR(classes[0] / 10000.0, 0.1, 0.02);
  EXPECT_NEAR(classes[1] / 10000.0, 0.8, 0.02);
  EXPECT_NEAR(classes[2] / 10000.0, 0.1, 0.02);
  EXPECT_NEAR(tenants[0] / 10000.0, 0.75, 0.02);
}

TEST(Workload, OverridesFromATraceWin) {
  Workload workload(WorkloadOptions{});
  const RequestSpec spec = workload.next({12, 5, sched::Priority::kHigh});
  EXPECT_EQ(spec.question_words, 12);
  EXPECT_EQ(spec.max_tokens, 5);
  EXPECT_EQ(spec.priority, sched::Priority::kHigh);
}

TEST(Workload, ParsersRefuseBadListsNamingTheFlag) {
  for (const std::string text : {"high", "urgent=1", "high=-1", "high=0,low=0", "normal=x"}) {
    auto mix = parse_priority_mix(text);
    ASSERT_FALSE(mix.ok()) << text;
    EXPECT_NE(mix.error().message.find("--priority-mix"), std::string::npos);
  }
  for (const std::string text : {"acme", "=key", "a=k:0", "a=k:x", "a=k1,a=k2"}) {
    auto tenants = parse_tenants(text);
    ASSERT_FALSE(tenants.ok()) << text;
    EXPECT_NE(tenants.error().message.find("--tenants"), std::string::npos);
  }
  const auto tenants = *parse_tenants("guest=,vip=sk-9:2.5");
  ASSERT_EQ(tenants.size(), 2u);
  EXPECT_EQ(tenants[0].key, "");
  EXPECT_EQ(tenants[1].key, "sk-9");
  EXPECT_DOUBLE_EQ(tenants[1].weight, 2.5);
}

TEST(Workload, PresetsSetTheReferenceProfiles) {
  WorkloadOptions options;
  ASSERT_TRUE(apply_preset("chat", options).ok());
  EXPECT_EQ(options.prompt_tokens.describe(), "uniform:30-80");
  EXPECT_EQ(options.output_tokens.describe(), "uniform:64-256");
  EXPECT_EQ(options.system_prompt_tokens, 128);
  ASSERT_TRUE(apply_preset("256-128", options).ok());
  EXPECT_EQ(options.prompt_tokens.describe(), "256");
  EXPECT_EQ(options.output_tokens.describe(), "128");
  EXPECT_EQ(options.system_prompt_tokens, 0);
  const Status unknown = apply_preset("512-64", options);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("256-128"), std::string::npos);
}

}  // namespace
}  // namespace supportd::bench
