// Builds a RuleSet from rule-file text for the filter tests; fails the test on a bad file.
#pragma once

#include <memory>
#include <string_view>

#include <gtest/gtest.h>

#include "filter/rule_set.h"

namespace supportd::filter {

inline std::shared_ptr<const RuleSet> rules_from(std::string_view text) {
  Result<RuleFile> file = parse_rule_file(text, "test.rules");
  EXPECT_TRUE(file.ok()) << file.error().message;
  if (!file.ok()) return RuleSet::empty();
  Result<std::shared_ptr<const RuleSet>> rules = RuleSet::compile(std::move(file).value());
  EXPECT_TRUE(rules.ok()) << rules.error().message;
  return rules.ok() ? *rules : RuleSet::empty();
}

}  // namespace supportd::filter
