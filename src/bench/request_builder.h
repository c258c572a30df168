// The HTTP request of one benchmark request: OpenAI-compatible JSON with stream: true and
// usage in the last chunk, ignore_eos so output lengths are what the workload says, and the
// priority, tenant key and start deadline where supportd (and only supportd) reads them.
// Thread-safety: free functions.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "bench/options.h"
#include "bench/workload.h"

namespace supportd::bench {

struct HttpRequestParts {
  std::string path;  // "/v1/chat/completions" or "/v1/completions" after the target's prefix
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // besides Host and Content-Type
};

// The request for `spec`: chat messages [system (if any), user] or a completions prompt
// (system prompt, a blank line, the question), with model, stream, stream_options,
// max_tokens, ignore_eos, temperature, and when configured priority and timeout; headers
// X-Priority, Accept and Authorization (the tenant's key, else options.api_key).
HttpRequestParts build_request(const BenchOptions& options, const std::string& model,
                               const Workload& workload, const RequestSpec& spec);

}  // namespace supportd::bench
