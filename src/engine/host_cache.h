// The prefix cache's host-memory tier: the KV of token prefixes saved out of the engine's KV
// cache (llama_state_seq_get_data). Cells idle in the KV cache still cost time, since every
// step's attention scans the whole span of used cells; saved here they cost none, and a
// later request starting with the same tokens gets them back at memory speed instead of
// computing them again. Least recently used entries go first when the byte budget is full.
// A restore copies an entry's state; the entry stays, since other conversations may share
// its beginning.
// Pure bookkeeping: the caller saves and restores the KV. Not thread-safe; engine thread.
#pragma once

#include <cstdint>
#include <list>
#include <span>
#include <vector>

namespace supportd::engine {

class HostCache {
 public:
  using Token = std::int32_t;

  explicit HostCache(std::size_t max_bytes) : max_bytes_(max_bytes) {}

  struct Entry {
    std::vector<Token> tokens;        // the KV covers positions [0, tokens.size())
    std::vector<std::uint8_t> state;  // as llama_state_seq_get_data wrote it
  };

  // Keeps `entry`, replacing entries whose tokens are a prefix of its tokens. Evicts the least
  // recently used entries while over budget. Returns false (keeping nothing) when the state
  // alone exceeds the budget or an entry already covers these tokens.
  bool insert(Entry entry);

  struct Match {
    const Entry* entry = nullptr;  // null when nothing matches; valid until the next insert
    std::size_t length = 0;        // tokens shared with the lookup's tokens
  };
  // The entry sharing the longest prefix with `tokens`; marks it as recently used.
  Match lookup(std::span<const Token> tokens);

  void clear();

  std::size_t bytes() const { return bytes_; }
  std::size_t entries() const { return entries_.size(); }
  std::size_t max_bytes() const { return max_bytes_; }

 private:
  void erase(std::list<Entry>::iterator it);

  std::list<Entry> entries_;  // front: most recently used
  std::size_t max_bytes_;
  std::size_t bytes_ = 0;
};

}  // namespace supportd::engine
