// The out-of-scope gate: held-out questions scored as if their entry were missing, the logistic
// model fitted on them against the questions as they are, its floor, and the decision.
#include "kb/search/scope.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "kb/search/fusion.h"
#include "kb/train/scope_gate.h"

namespace supportd::kb {
namespace {

// A candidate as the retriever makes it, from its evidence; relative features filled later.
Candidate candidate(int entry, float lexical, float overlap, float similarity, float probability) {
  Candidate c{entry, {}, -1, {lexical, overlap, similarity}};
  c.features[slot::kClassifier] = probability;
  return c;
}

// The relative features of `candidates` as the retriever makes them.
void make_relative(std::vector<Candidate>& candidates) {
  float lexical = 0, similarity = -1;
  for (const Candidate& c : candidates) {
    lexical = std::max(lexical, c.evidence.lexical);
    similarity = std::max(similarity, c.evidence.similarity);
  }
  for (Candidate& c : candidates) {
    c.features[slot::kBm25] = c.evidence.lexical / lexical;
    c.features[slot::kDense] = std::exp((c.evidence.similarity - similarity) / kDenseTemperature);
  }
}

// Held-out questions of entry 0 that are close to it (cosine about 0.8, most of their words in
// its best document) and further from entries 1 and 2 (cosine about 0.45, few words).
std::vector<DevQuestion> held_out(int count, unsigned seed) {
  std::mt19937 random(seed);
  std::normal_distribution<float> noise(0, 0.06f);
  std::vector<DevQuestion> dev;
  for (int i = 0; i < count; ++i) {
    std::vector<Candidate> candidates = {
        candidate(0, 6 + 10 * noise(random), 0.8f + noise(random), 0.8f + noise(random), 0.7f),
        candidate(1, 2 + 10 * noise(random), 0.3f + noise(random), 0.45f + noise(random), 0.2f),
        candidate(2, 1.5f, 0.2f + noise(random), 0.4f + noise(random), 0.1f)};
    make_relative(candidates);
    dev.push_back({0, candidates});
  }
  return dev;
}

Features weights() {
  Features w{};
  w[slot::kBm25] = 0.3f;
  w[slot::kClassifier] = 0.3f;
  w[slot::kDense] = 0.4f;
  return w;
}

TEST(ScopeGate, WithoutAnEntryTheOthersFeaturesAreRelativeToWhatRemains) {
  std::vector<Candidate> candidates = {candidate(0, 8, 0.9f, 0.9f, 0.6f),
                                       candidate(1, 4, 0.5f, 0.7f, 0.3f),
                                       candidate(2, 2, 0.2f, 0.5f, 0.1f)};
  make_relative(candidates);
  candidates[0].features[slot::kBm25Vote] = 0.5f;
  candidates[1].features[slot::kBm25Vote] = 0.25f;
  candidates[2].features[slot::kBm25Vote] = 0.25f;
  const std::vector<Candidate> rest = without_entry(candidates, 0);
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_EQ(rest[0].entry, 1);
  EXPECT_FLOAT_EQ(rest[0].features[slot::kBm25], 1.0f);  // now the best BM25 document
  EXPECT_FLOAT_EQ(rest[1].features[slot::kBm25], 0.5f);
  EXPECT_FLOAT_EQ(rest[0].features[slot::kDense], 1.0f);  // now the nearest vector
  EXPECT_NEAR(rest[1].features[slot::kDense], std::exp(-0.2 / kDenseTemperature), 1e-6);
  EXPECT_NEAR(rest[0].features[slot::kClassifier], 0.75, 1e-6);  // 0.3 of the remaining 0.4
  EXPECT_NEAR(rest[0].features[slot::kBm25Vote], 0.5, 1e-6);
  // The evidence itself does not change: it is what tells the question is far from them.
  EXPECT_FLOAT_EQ(rest[0].evidence.similarity, 0.7f);
  EXPECT_EQ(without_entry(candidates, 7).size(), 3u);  // no such candidate: nothing removed
}

TEST(ScopeGate, FittedOnHeldOutQuestionsItDeclinesThemWithoutTheirEntryAndPassesThemWithIt) {
  const std::vector<DevQuestion> dev = held_out(200, 1);
  const ScopeGate gate = fit_scope_gate(dev, weights(), 0.95);
  ASSERT_TRUE(gate.enabled);
  EXPECT_DOUBLE_EQ(gate.pass_rate, 0.95);
  EXPECT_GE(gate.dev_pass_rate, 0.95);
  EXPECT_GT(gate.dev_decline_rate, 0.9);
  EXPECT_GT(gate.weights[1], 0);  // closer to the nearest phrasing: more likely in scope

  // New questions: one like the held-out ones, and one that is far from every entry.
  int passed = 0, declined = 0;
  for (const DevQuestion& question : held_out(100, 2)) {
    const ScopeEvidence in = scope_evidence(rank(question.candidates, weights()));
    const ScopeEvidence out =
        scope_evidence(rank(without_entry(question.candidates, 0), weights()));
    if (scope_decline_reason(gate, in).empty()) ++passed;
    if (!scope_decline_reason(gate, out).empty()) ++declined;
  }
  EXPECT_GT(passed, 85);
  EXPECT_GT(declined, 85);
  // A stricter floor (more questions through) is lower.
  EXPECT_LE(fit_scope_gate(dev, weights(), 0.99).floor, gate.floor);
  // The separation report names every piece of evidence and the gate.
  const std::string separation = scope_separation(dev, weights(), gate);
  EXPECT_NE(separation.find("similarity"), std::string::npos) << separation;
  EXPECT_NE(separation.find("gate"), std::string::npos) << separation;
}

TEST(ScopeGate, TooFewHeldOutQuestionsLeaveTheGateOff) {
  EXPECT_FALSE(fit_scope_gate(held_out(19, 3), weights(), 0.95).enabled);
  EXPECT_TRUE(fit_scope_gate(held_out(20, 3), weights(), 0.95).enabled);
}

TEST(ScopeGate, DeclinesBelowTheFloorAndSaysWhy) {
  ScopeGate gate;
  gate.enabled = true;
  gate.weights = {-4, 10, 0, 0, 0};  // in scope when the cosine is above 0.4
  gate.floor = 0.5;
  ScopeEvidence near{}, far{};
  near[0] = 0.8;
  far[0] = 0.2;
  EXPECT_GT(scope_probability(gate, near), 0.98);
  EXPECT_TRUE(scope_decline_reason(gate, near).empty());
  const std::string reason = scope_decline_reason(gate, far);
  EXPECT_NE(reason.find("0.500"), std::string::npos) << reason;  // the floor
  EXPECT_NE(reason.find("0.20"), std::string::npos) << reason;   // the cosine
  gate.enabled = false;  // knowledge bases imported before the gate
  EXPECT_TRUE(scope_decline_reason(gate, far).empty());
  EXPECT_EQ(scope_evidence({}), ScopeEvidence{});
}

}  // namespace
}  // namespace supportd::kb
