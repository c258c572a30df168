// A deployment's traffic split: which model versions serve its requests, in what shares, and
// whether one conversation stays on one version. Pure data and pure functions: the router
// (router_engine.h) validates a split once, when it is set, and then picks with one hash.
// Thread-safety: pure functions; a Split is a value.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace supportd::engine::router {

struct Share {
  std::string version;
  int weight = 0;  // percent of the deployment's requests, 0..100
};

struct Split {
  std::vector<Share> shares;  // weights add up to 100
  // A request with a routing key (session id or user) goes where the key's hash falls, so a
  // conversation stays on one version while the split holds; without: where a counter falls.
  bool sticky = true;
};

// Ok when every share names a distinct non-empty version, no weight is negative or over 100,
// and the weights add up to 100. The error (kInvalidArgument) names the field as its param:
// "weights" or "weights.NAME".
Status check_split(const Split& split);

// The share that a draw falls in: draw % 100 walks the cumulative weights.
// REQUIRES: check_split(split) is ok.
std::size_t pick_share(const Split& split, std::uint64_t draw);

// A stable 64-bit hash of a routing key (the same in every process and across restarts, so
// two gateways send one conversation to the same version).
std::uint64_t routing_hash(std::string_view key);

// `x`'s bits spread over all 64 (splitmix64's finalizer): a counter made into draws.
std::uint64_t scramble(std::uint64_t x);

}  // namespace supportd::engine::router
