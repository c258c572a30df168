// The API keys of `supportd serve`, read from the config file's [[api_keys]] tables: who may
// call, as which tenant and role, with which default priority, share of the engine and rate
// limits. Each key is kept as its digest (api/key_digest.h): its text is wiped from what was
// read as soon as it is digested.
//
//   [[api_keys]]
//   key = "sk-..."            # required, unique
//   tenant = "shop"           # names conversations: letters, digits, - and _
//   role = "agent"            # customer (the default: the widget's) or agent (also /v1/agent)
//   priority = "high"         # high, normal or low: when a request does not say
//   weight = 2.0              # the tenant's share of engine tokens (> 0)
//   requests_per_second = 5   # rate limits (0: none)
//   burst = 10
//   tokens_per_minute = 20000
#pragma once

#include <string>
#include <vector>

#include "api/access.h"
#include "core/status.h"

namespace supportd::app {

// The keys of `file` (none when it has no [[api_keys]]). Errors (kInvalidArgument) name the
// file and line: TOML syntax, an unknown setting, a wrong type or value, a missing key, a key
// given twice, a tenant that cannot name conversations.
Result<std::vector<api::ApiKey>> read_api_keys(const std::string& file);

}  // namespace supportd::app
