// What `supportd tune` writes out about a search: the table of every candidate and trial with
// the verdict (text), the same as JSON for scripts, and the recommended settings as a TOML
// file that `supportd serve --config` reads (the defaults, saying so, when nothing beat them).
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "tune/search.h"

namespace supportd::tune {

// What the search was run against, for the reader of a report.
struct TuneContext {
  std::string workload;        // e.g. "Poisson 4/s, prompts 256 tokens, outputs 128 tokens"
  std::string slo;             // e.g. "TTFT <= 1000 ms"
  std::string command;         // the tune command line
  std::vector<Setting> fixed;  // --fixed: every candidate's, the defaults' included
};

std::string tune_text(const SearchResult& result, const TuneContext& context);
std::string tune_json(const SearchResult& result, const TuneContext& context);

// Serve's config file of what the search found: the --fixed settings and, when a candidate was
// recommended, its settings; when none was, only the --fixed ones (serve's defaults otherwise),
// with a comment saying that the defaults stand. First a comment saying what was measured, then
// one [section] per config section. Numbers and true/false are written bare, other values as
// TOML strings.
std::string tune_toml(const SearchResult& result, const TuneContext& context);

}  // namespace supportd::tune
