// Erlang B and C by the recurrence B(0) = 1, B(k) = a B(k-1) / (k + a B(k-1)); C from B.
#include "plan/erlang.h"

namespace supportd::plan {

double erlang_b(int servers, double offered_load) {
  double b = 1;
  for (int k = 0; k < servers; ++k)
    b = erlang_b_next(k, offered_load, b);
  return b;
}

double erlang_b_next(int servers, double offered_load, double erlang_b_servers) {
  const double carried = offered_load * erlang_b_servers;
  return carried / (servers + 1 + carried);
}

double erlang_c_from_b(int servers, double offered_load, double erlang_b_servers) {
  const double utilization = offered_load / servers;
  return erlang_b_servers / (1 - utilization * (1 - erlang_b_servers));
}

double erlang_c(int servers, double offered_load) {
  return erlang_c_from_b(servers, offered_load, erlang_b(servers, offered_load));
}

}  // namespace supportd::plan
