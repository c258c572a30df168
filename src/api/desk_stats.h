// The desk's part of /v1/stats: what the customer-service desk has done since start (answers
// by source, handoffs by reason, feedback, refused input, CSAT, time per pipeline stage) and
// how many conversations wait for a person now. Read from the desk's Prometheus counters
// (DeskMetrics::figures) and the session store's waiting list, so it always agrees with
// /metrics and with the agent console.
// Thread-safety: may be called from any thread.
#pragma once

#include <boost/json/fwd.hpp>

#include <string>
#include <vector>

namespace supportd::desk {
class Desk;
}

namespace supportd::api {

// The `desk` object of /v1/stats (docs/api.md). `tenants`: whose waiting conversations to
// count. Asks the session store for each tenant's waiting list (at most
// store::kMaxWaitingListed each; `waiting_capped` says when a list was that long, and
// `waiting_partial` when a backend could not be read).
boost::json::object desk_stats(desk::Desk& desk, const std::vector<std::string>& tenants);

}  // namespace supportd::api
