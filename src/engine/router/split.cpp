// A deployment's traffic split: its checks and its pick (see split.h).
#include "engine/router/split.h"

#include <charconv>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "core/hash.h"
#include "core/text.h"

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
  if (split.shadow) {
    if (split.shadow->version.empty())
      return Error::invalid("'shadow.version' must name a model version", "shadow.version");
    if (split.shadow->percent < 0 || split.shadow->percent > 100)
      return Error::invalid("'shadow.percent' must be from 0 to 100", "shadow.percent");
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

std::string describe(const Split& split) {
  std::string text;
  for (const Share& share : split.shares) {
    if (!text.empty()) text += ", ";
    text += fmt::format("{} {}%", share.version, share.weight);
  }
  if (split.shadow)
    text += fmt::format("; shadow {} {}%", split.shadow->version, split.shadow->percent);
  return text + (split.sticky ? " (sticky)" : "");
}

std::string encode_split(const Split& split) {
  if (split.shares.empty()) return {};
  std::string text;
  for (const Share& share : split.shares)
    text += fmt::format("{}{}={}", text.empty() ? "" : ",", share.version, share.weight);
  text += split.sticky ? ";sticky=1" : ";sticky=0";
  if (split.shadow)
    text += fmt::format(";shadow={}:{}", split.shadow->version, split.shadow->percent);
  return text;
}

namespace {

// `text` as a whole number, or nothing.
std::optional<int> whole_number(std::string_view text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

Result<Split> decode_split(std::string_view text) {
  Split split;
  if (text.empty()) return split;
  const auto bad = [text] {
    return Error::make(ErrorCode::kCorrupt, fmt::format("not a stored split: '{}'", text));
  };
  const std::vector<std::string_view> sections = supportd::split(text, ';');
  for (std::string_view share : supportd::split(sections[0], ',')) {
    const auto equals = share.rfind('=');
    if (equals == std::string_view::npos) return bad();
    const auto weight = whole_number(share.substr(equals + 1));
    if (!weight) return bad();
    split.shares.push_back({std::string(share.substr(0, equals)), *weight});
  }
  for (std::size_t i = 1; i < sections.size(); ++i) {
    const std::string_view section = sections[i];
    if (section == "sticky=1" || section == "sticky=0") {
      split.sticky = section == "sticky=1";
    } else if (section.starts_with("shadow=")) {
      const std::string_view shadow = section.substr(7);
      const auto colon = shadow.rfind(':');
      if (colon == std::string_view::npos) return bad();
      const auto percent = whole_number(shadow.substr(colon + 1));
      if (!percent) return bad();
      split.shadow = Shadow{std::string(shadow.substr(0, colon)), *percent};
    } else {
      return bad();
    }
  }
  return split;
}

bool shadow_takes(const Shadow& shadow, std::uint64_t draw) {
  return static_cast<int>(draw % 100) < shadow.percent;
}

std::uint64_t routing_hash(std::string_view key) {
  return hash64(key);  // mixed, so that nearby keys spread over the 100 buckets
}

std::uint64_t scramble(std::uint64_t x) {
  return mix64(x);
}

}  // namespace supportd::engine::router
