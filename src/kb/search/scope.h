// The out-of-scope gate: a decision, separate from the confidence threshold, that a question is
// about nothing the knowledge base covers. Its evidence is the support of the fused first entry:
// the mean, over the components in use, of that entry's own feature (1 for a nearest-neighbour
// component that ranks it first, its share of the vote, the classifier's and the head's
// probability), so it is high when the lexical, fastText and encoder rankings agree on the entry
// and are sure of it. The floor is calibrated at import on held-out in-scope questions (tuning.h)
// so that a chosen share of them pass. Thread-safe (pure functions on immutable data).
#pragma once

#include <string>

#include "kb/search/retriever.h"

namespace supportd::kb {

struct Ranked;

struct ScopeGate {
  bool enabled = false;      // false: no gate (knowledge bases imported before it, or too few
                             // held-out questions to calibrate on)
  double floor = 0;          // decline when the first entry's support is below this
  double pass_rate = 0.97;   // the share of held-out in-scope questions it was set to pass
  double dev_pass_rate = 0;  // the share that passed at `floor`
};

// The support of `first` (mean of its features over the `available` components); 0 when none.
double scope_support(const Ranked& first, const Availability& available);

// Empty when `gate` lets the question through; else why it is declined (for logs and explain).
std::string scope_decline_reason(const ScopeGate& gate, double support);

}  // namespace supportd::kb
