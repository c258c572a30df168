// How the capacity planner writes durations and rates for people: four significant digits in
// the unit that suits the size (7.140 ms, 35.08 ms, 1.250 s).
// Thread-safety: pure functions.
#pragma once

#include <string>

namespace supportd::plan {

// "0 s", "12.50 us", "7.140 ms", "1.250 s", "2.000 h"; "-" when not finite.
std::string format_seconds(double seconds);

// A share as a percentage with up to four significant digits: "75%", "35.7%", "99.99%".
std::string format_percent(double share);

}  // namespace supportd::plan
