// Which content rules apply to a tenant (see tenant_rules.h).
#include "desk/tenant_rules.h"

namespace supportd::desk {

const std::shared_ptr<const filter::RuleSet>& TenantRules::for_tenant(
    const std::string& tenant) const {
  auto it = tenants.find(tenant);
  return it == tenants.end() ? fallback : it->second;
}

}  // namespace supportd::desk
