#include "engine/host_cache.h"

#include <algorithm>

namespace supportd::engine {
namespace {

std::size_t common_prefix(std::span<const HostCache::Token> a,
                          std::span<const HostCache::Token> b) {
  const std::size_t limit = std::min(a.size(), b.size());
  return static_cast<std::size_t>(std::mismatch(a.begin(), a.begin() + limit, b.begin()).first -
                                  a.begin());
}

}  // namespace

void HostCache::erase(std::list<Entry>::iterator it) {
  bytes_ -= it->state.size();
  entries_.erase(it);
}

bool HostCache::insert(Entry entry) {
  if (entry.tokens.empty() || entry.state.empty() || entry.state.size() > max_bytes_) return false;
  for (auto it = entries_.begin(); it != entries_.end();) {
    const std::size_t common = common_prefix(it->tokens, entry.tokens);
    if (common == entry.tokens.size()) return false;  // covered by a longer (or equal) entry
    if (common == it->tokens.size()) {
      erase(it++);  // superseded
    } else {
      ++it;
    }
  }
  bytes_ += entry.state.size();
  entries_.push_front(std::move(entry));
  while (bytes_ > max_bytes_)
    erase(std::prev(entries_.end()));
  return true;
}

HostCache::Match HostCache::lookup(std::span<const Token> tokens) {
  auto best = entries_.end();
  std::size_t length = 0;
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    const std::size_t common = common_prefix(it->tokens, tokens);
    if (common > length) {
      best = it;
      length = common;
    }
  }
  if (best == entries_.end()) return {};
  entries_.splice(entries_.begin(), entries_, best);
  return {&*best, length};
}

void HostCache::clear() {
  entries_.clear();
  bytes_ = 0;
}

}  // namespace supportd::engine
