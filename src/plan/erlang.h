// Erlang's formulas for c identical servers fed by Poisson arrivals: B (an arrival that finds
// every server busy is lost) and C (it waits). Both are computed by the recurrence on the number
// of servers, whose every step stays within [0, 1]: no factorials and no powers, so they are
// stable for thousands of servers and any load (O(servers) for B, O(1) for C given B).
// Thread-safety: pure functions.
#pragma once

namespace supportd::plan {

// Erlang B: the share of arrivals that find all `servers` busy when those are lost, for
// `offered_load` erlangs (arrival rate x mean service time).
// REQUIRES: servers >= 0, offered_load >= 0 and finite.
double erlang_b(int servers, double offered_load);

// Erlang B for servers + 1, from Erlang B for `servers` (one step of the recurrence), so that a
// search over the number of servers costs O(1) per step.
double erlang_b_next(int servers, double offered_load, double erlang_b_servers);

// Erlang C: the probability that an arrival waits in an M/M/c queue (the share of time all
// servers are busy), from Erlang B of the same servers and load.
// REQUIRES: offered_load < servers (a steady state exists).
double erlang_c_from_b(int servers, double offered_load, double erlang_b_servers);

// Erlang C from scratch. REQUIRES: servers >= 1, 0 <= offered_load < servers.
double erlang_c(int servers, double offered_load);

}  // namespace supportd::plan
