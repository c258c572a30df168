// The out-of-scope gate: its floor calibrated on held-out in-scope questions, and the decision.
#include "kb/search/scope.h"

#include <gtest/gtest.h>

#include <vector>

#include "kb/search/fusion.h"
#include "kb/train/tuning.h"

namespace supportd::kb {
namespace {

constexpr auto kBm25 = static_cast<std::size_t>(Component::kBm25);
constexpr auto kVote = static_cast<std::size_t>(Component::kBm25Vote);
constexpr auto kClassifier = static_cast<std::size_t>(Component::kClassifier);

Availability lexical() {
  Availability available{};
  available[kBm25] = available[kVote] = available[kClassifier] = true;
  return available;
}

// A held-out question whose first entry gets the classifier probability `probability` (and is
// BM25's first, with its whole vote); a second entry takes the rest.
DevQuestion question_with(float probability) {
  Candidate first{0, {}, -1}, second{1, {}, -1};
  first.features[kBm25] = 1;
  first.features[kVote] = 1;
  first.features[kClassifier] = probability;
  second.features[kBm25] = 0.2f;
  second.features[kClassifier] = 1 - probability;
  return {0, {first, second}};
}

Features equal_weights() {
  Features weights{};
  weights[kBm25] = weights[kVote] = weights[kClassifier] = 1.0f / 3;
  return weights;
}

TEST(ScopeGate, SupportIsTheMeanOfTheFirstEntrysFeaturesOverTheComponentsInUse) {
  Ranked first;
  first.features[kBm25] = 1;
  first.features[kVote] = 0.5f;
  first.features[kClassifier] = 0.3f;
  first.features[static_cast<std::size_t>(Component::kHead)] = 0.9f;  // not in use: ignored
  EXPECT_NEAR(scope_support(first, lexical()), 0.6, 1e-6);
  EXPECT_EQ(scope_support(first, Availability{}), 0);
}

TEST(ScopeGate, TheFloorLetsThroughTheChosenShareOfHeldOutQuestions) {
  // A tiny knowledge base's 100 held-out questions, classifier probabilities 0.01 .. 1.00.
  std::vector<DevQuestion> dev;
  for (int i = 1; i <= 100; ++i)
    dev.push_back(question_with(static_cast<float>(i) / 100));
  const ScopeGate gate = fit_scope_gate(dev, equal_weights(), lexical(), 0.97);
  ASSERT_TRUE(gate.enabled);
  EXPECT_DOUBLE_EQ(gate.pass_rate, 0.97);
  EXPECT_NEAR(gate.dev_pass_rate, 0.97, 1e-9);
  // Support = (1 + 1 + p) / 3: the floor is the fourth lowest, p = 0.04.
  EXPECT_NEAR(gate.floor, (2 + 0.04) / 3, 1e-6);
  // A stricter gate has a lower floor.
  EXPECT_LT(fit_scope_gate(dev, equal_weights(), lexical(), 0.99).floor, gate.floor);
}

TEST(ScopeGate, TooFewHeldOutQuestionsLeaveTheGateOff) {
  std::vector<DevQuestion> dev(19, question_with(0.9f));
  EXPECT_FALSE(fit_scope_gate(dev, equal_weights(), lexical(), 0.97).enabled);
}

TEST(ScopeGate, DeclinesBelowTheFloorAndSaysWhy) {
  ScopeGate gate;
  gate.enabled = true;
  gate.floor = 0.5;
  EXPECT_TRUE(scope_decline_reason(gate, 0.5).empty());
  EXPECT_TRUE(scope_decline_reason(gate, 0.8).empty());
  const std::string reason = scope_decline_reason(gate, 0.2);
  EXPECT_NE(reason.find("0.200"), std::string::npos) << reason;
  EXPECT_NE(reason.find("0.500"), std::string::npos) << reason;
  gate.enabled = false;  // knowledge bases imported before the gate
  EXPECT_TRUE(scope_decline_reason(gate, 0.0).empty());
}

}  // namespace
}  // namespace supportd::kb
