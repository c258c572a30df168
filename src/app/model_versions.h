// The model versions `supportd serve` loads side by side (engine/router), from repeated
// `--model NAME=PATH` flags (and one `--upstream NAME=URL`) or the config file's [[models]]
// tables, and what `supportd model verify` checks offline:
//
//   [[models]]
//   name = "stable"        # required, unique: letters, digits, '.', '-' and '_'
//   path = "/srv/m1.gguf"  # required
//   sha256 = "ab12..."     # optional: the file must have this SHA-256, or it takes no traffic
//   parallel = 8           # optional: this version's --parallel (default: serve's)
//   ctx-size = 8192        # optional: this version's --ctx-size (default: serve's)
//
//   [[models]]                         # a version served by an OpenAI-compatible server
//   name = "remote"
//   upstream = "http://10.0.0.5:8000"  # instead of path (sha256, parallel, ctx-size: not here)
//   upstream-model = "llama-3-8b"      # optional: the model to ask it for (default: serve's
//                                      # --upstream-model, else the server's first)
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace supportd::app {

struct ModelVersion {
  std::string name;
  std::string path;             // a GGUF file; empty for an upstream
  std::string upstream;         // an OpenAI-compatible server's URL; empty for a file
  std::string upstream_model;   // the model to ask the upstream for; empty: serve's default
  std::string expected_sha256;  // empty: not checked
  int parallel = 0;             // 0: serve's --parallel
  int context_cells = 0;        // 0: serve's --ctx-size
  std::string where;            // "--model", "--upstream" or "FILE:LINE": how errors name it
};

// The [[models]] tables of `file` (none when it has none). Errors (kInvalidArgument) name the
// file and line: TOML syntax, an unknown setting, a wrong type or value, a missing name or
// path (or upstream), both a path and an upstream, a file's setting (sha256, parallel,
// ctx-size) on an upstream, an upstream URL that is not http://, a bad name, a SHA-256 that is
// not 64 hex digits, a name given twice.
Result<std::vector<ModelVersion>> read_model_versions(const std::string& file);

// "NAME=PATH" from a --model flag. Errors (kInvalidArgument, naming --model): no '=', an
// empty path, a bad name.
Result<ModelVersion> parse_model_flag(const std::string& text);

// "NAME=URL" from --upstream: an upstream version. Errors (kInvalidArgument, naming --upstream):
// not NAME=URL, a bad name, a URL that is not http://.
Result<ModelVersion> parse_upstream_flag(const std::string& text);

// Ok when every name is used once; the error names the second one and where it came from.
Status check_unique_names(const std::vector<ModelVersion>& versions);

}  // namespace supportd::app
