// Questions with a known fate on the built-in demo knowledge base (data/demo-kb), for tests that
// need a turn to reach a given stage. Which band a question falls in follows from the import
// (its fusion weights, calibration and out-of-scope gate): when an import change moves one, the
// question is changed here, once, after `supportd kb search --json` on the new import shows its
// confidence, `offer` and `scope_probability` with a margin.
#pragma once

#include <string>

namespace supportd::testing {

// A question of the shop's that the demo neither answers nor offers an article for, and that
// its out-of-scope gate lets through, so the model is asked: on the lexical path (`--encoder
// off`, which the tests' servers use) confidence about 0.33 against an offer threshold of 0.52,
// scope probability about 0.44 against a floor of 0.31. `who` makes another question (another
// cache key) with the same fate; a number in it is another unknown word and lowers the scope
// probability (to about 0.39). Off-topic requests (a poem) are declined as out of scope and
// never reach the model.
inline std::string uncovered_question(const std::string& who = "friend") {
  return "Can you put a note in the parcel for my " + who + "?";
}

}  // namespace supportd::testing
