// The out-of-scope gate (scope.h): the first entry's support and the decision against the floor.
#include "kb/search/scope.h"

#include <cstdio>

#include "kb/search/fusion.h"

namespace supportd::kb {

double scope_support(const Ranked& first, const Availability& available) {
  double total = 0;
  int used = 0;
  for (int c = 0; c < kComponentCount; ++c) {
    if (!available[static_cast<std::size_t>(c)]) continue;
    total += first.features[static_cast<std::size_t>(c)];
    ++used;
  }
  return used == 0 ? 0 : total / used;
}

std::string scope_decline_reason(const ScopeGate& gate, double support) {
  if (!gate.enabled || support >= gate.floor) return {};
  char text[160];
  std::snprintf(text, sizeof text,
                "the components agree too little on any entry: support %.3f is below the floor "
                "%.3f that %.0f%% of held-out in-scope questions reach",
                support, gate.floor, gate.pass_rate * 100);
  return text;
}

}  // namespace supportd::kb
