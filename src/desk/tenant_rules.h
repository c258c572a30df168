// Which content rules (filter::RuleSet) apply to a tenant's conversations: its own when it has
// a rule file, the default otherwise. Constant after construction, so safe from any thread.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "filter/rule_set.h"

namespace supportd::desk {

struct TenantRules {
  std::shared_ptr<const filter::RuleSet> fallback = filter::RuleSet::empty();
  std::map<std::string, std::shared_ptr<const filter::RuleSet>> tenants;

  // `tenant`'s rules, or `fallback`; never null.
  const std::shared_ptr<const filter::RuleSet>& for_tenant(const std::string& tenant) const;
};

}  // namespace supportd::desk
