// A deployment's traffic split: which model versions serve its requests, in what shares, and
// whether one conversation stays on one version. Pure data and pure functions: the router
// (router_engine.h) validates a split once, when it is set, and then picks with one hash.
// Thread-safety: pure functions; a Split is a value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace supportd::engine::router {

struct Share {
  std::string version;
  int weight = 0;  // percent of the deployment's requests, 0..100
};

// Copies of a share of the deployment's requests sent to another version whose answers nobody
// sees (shadow traffic): what it would have said, how fast, compared with production's answer.
struct Shadow {
  std::string version;
  int percent = 0;  // of the deployment's requests copied, 0..100
};

struct Split {
  std::vector<Share> shares;  // weights add up to 100
  // A request with a routing key (session id or user) goes where the key's hash falls, so a
  // conversation stays on one version while the split holds; without: where a counter falls.
  bool sticky = true;
  std::optional<Shadow> shadow;  // none: no copies
};

// Ok when every share names a distinct non-empty version, no weight is negative or over 100,
// the weights add up to 100, and a shadow names a version and a percent from 0 to 100. The
// error (kInvalidArgument) names the field as its param: "weights", "weights.NAME",
// "shadow.version" or "shadow.percent".
Status check_split(const Split& split);

// The share that a draw falls in: draw % 100 walks the cumulative weights.
// REQUIRES: check_split(split) is ok.
std::size_t pick_share(const Split& split, std::uint64_t draw);

// A stable 64-bit hash of a routing key (the same in every process and across restarts, so
// two gateways send one conversation to the same version).
std::uint64_t routing_hash(std::string_view key);

// The split said for people: "v1 95%, v2 5%; shadow v3 10% (sticky)".
std::string describe(const Split& split);

// The split as one line of text for the route history's store ("v1=95,v2=5;sticky=1" and
// ";shadow=v3:10" when it has one; "" for no split), and back. Errors (kCorrupt): text
// encode_split did not write.
std::string encode_split(const Split& split);
Result<Split> decode_split(std::string_view text);

// Whether a draw falls in a shadow's percent (draw % 100 below it).
bool shadow_takes(const Shadow& shadow, std::uint64_t draw);

// `x`'s bits spread over all 64 (splitmix64's finalizer): a counter made into draws.
std::uint64_t scramble(std::uint64_t x);

}  // namespace supportd::engine::router
