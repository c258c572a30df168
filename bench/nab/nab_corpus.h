// Loading a detector's output on the NAB corpus for scoring: the labelled windows
// (labels/combined_windows.json), the profiles (config/profiles.json) and, for every file the
// windows name, a CSV of the detector's scores (columns timestamp and anomaly_score, one row
// per data row, in order). Errors name the file (and line) at fault.
// Thread-safety: pure functions.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "nab/nab_scorer.h"

namespace supportd::bench::nab {

// Profiles by name, from NAB's config/profiles.json.
Result<std::map<std::string, CostMatrix>> read_profiles(const std::string& path);

struct ScoresLayout {
  std::string directory;  // scores of "family/name.csv" are in directory/family/...
  std::string prefix;     // ... prefix + "name.csv" (NAB's results: "detector_")
  std::string column = "anomaly_score";
};

// Every file named in `windows_path` (sorted by name), its scores read as `layout` says, its
// windows turned into row ranges by matching their timestamps to the rows' (exactly, as NAB
// does; a window edge that is no row's timestamp is an error).
Result<std::vector<ScoredFile>> read_corpus(const std::string& windows_path,
                                            const ScoresLayout& layout);

// "realTweets" for "realTweets/Twitter_volume_AAPL.csv".
std::string family_of(const std::string& file_name);

}  // namespace supportd::bench::nab
