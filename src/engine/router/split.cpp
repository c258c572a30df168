// A deployment's traffic split: its checks and its pick (see split.h).
#include "engine/router/split.h"

#include <fmt/format.h>

#include "core/hash.h"

namespace supportd::engine::router {

Status check_split(const Split& split) {
  if (split.shares.empty())
    return Error::invalid("'weights' must name at least one version", "weights");
  int total = 0;
  for (std::size_t i = 0; i < split.shares.size(); ++i) {
    const Share& share = split.shares[i];
    if (share.version.empty())
      return Error::invalid("'weights' has an empty version name", "weights");
    const std::string field = "weights." + share.version;
    if (share.weight < 0)
      return Error::invalid(fmt::format("'{}' must not be negative", field), field);
    if (share.weight > 100)
      return Error::invalid(fmt::format("'{}' must be at most 100", field), field);
    for (std::size_t j = 0; j < i; ++j) {
      if (split.shares[j].version == share.version)
        return Error::invalid(fmt::format("'weights' names '{}' twice", share.version), field);
    }
    total += share.weight;
  }
  if (total != 100) {
    return Error::invalid(fmt::format("'weights' must add up to 100 (they add up to {})", total),
                          "weights");
  }
  return {};
}

std::size_t pick_share(const Split& split, std::uint64_t draw) {
  const int point = static_cast<int>(draw % 100);
  int cumulative = 0;
  for (std::size_t i = 0; i < split.shares.size(); ++i) {
    cumulative += split.shares[i].weight;
    if (point < cumulative) return i;
  }
  return split.shares.size() - 1;
}

std::uint64_t routing_hash(std::string_view key) {
  return hash64(key);  // mixed, so that nearby keys spread over the 100 buckets
}

std::uint64_t scramble(std::uint64_t x) {
  return mix64(x);
}

}  // namespace supportd::engine::router
