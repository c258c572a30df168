// Which token prefixes have their KV kept in the engine's unified cache, and under which
// sequence id. A token trie: one node per cached token (one KV cell), entries are paths from
// the root, evicted least-recently-used first when cells or sequence ids run out.
// Entries are kept on probation until they prove useful: a cached cell is not free in one
// unified buffer, where every step's attention reads every cell up to the highest one in use,
// so a cache full of conversations nobody continues slows every step (measured with 64-token
// prompts that share nothing: completions 1.6x slower, TTFT 57 against 33 ms alone). An entry
// is proven when it is inserted by a request that itself reused a cached prefix (a shared
// system prompt, a conversation's next turn), or when a request reuses it (mark_reused); at
// most `probation_entries` unproven entries are kept, the oldest going first.
// Pure bookkeeping: the caller performs the matching llama_memory_seq_* calls.
// Not thread-safe; owned by the engine thread.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

namespace supportd::engine {

class PrefixCache {
 public:
  using Token = std::int32_t;

  // `seq_ids`: sequence ids reserved for cache entries (one per entry).
  // `max_cells`: at most this many distinct cached tokens.
  // `probation_entries`: at most this many entries not yet proven (at least 1).
  PrefixCache(std::vector<int> seq_ids, std::size_t max_cells, std::size_t probation_entries);
  ~PrefixCache();

  struct Match {
    int seq_id = -1;         // copy cells [0, length) of this sequence
    std::size_t length = 0;  // 0 when nothing matches
  };
  // Longest cached prefix of `tokens`; marks the entry as recently used.
  Match lookup(std::span<const Token> tokens);
  // The length of the longest cached prefix of `tokens`, nothing marked.
  std::size_t cached_length(std::span<const Token> tokens) const;

  struct Insertion {
    int seq_id = -1;              // copy cells [0, tokens.size()) of the source into this id
    std::vector<int> evicted;     // clear these sequence ids (llama_memory_seq_rm) first
    bool already_cached = false;  // nothing to copy
  };
  // Records `tokens` as cached, proven when `proven` (or when the entry it replaces was).
  // Entries whose path is a prefix of `tokens` are replaced (their ids are in `evicted`); older
  // entries are evicted while the bound would be exceeded, and the oldest unproven ones while
  // more than `probation_entries` are. Returns seq_id -1 when `tokens` alone exceed the bound.
  Insertion insert(std::span<const Token> tokens, bool proven = false);

  // A request reused the entry under `seq_id` (from lookup): it is proven. Unknown ids are
  // ignored.
  void mark_reused(int seq_id);

  // Evicts least-recently-used entries until at least `cells` cells are freed or none remain;
  // returns the sequence ids to clear.
  std::vector<int> evict_cells(std::size_t cells);

  // Drops everything; returns the sequence ids to clear.
  std::vector<int> clear();

  std::size_t cells() const { return nodes_; }
  std::size_t entries() const { return entries_.size(); }
  std::size_t unproven_entries() const { return unproven_; }
  // The tokens cached under `seq_id`; nullopt when no entry holds that id.
  std::optional<std::size_t> entry_length(int seq_id) const;
  std::size_t max_cells() const { return max_cells_; }

 private:
  struct Node;
  struct Entry {
    int seq_id;
    Node* end;
    std::list<Entry*>::iterator lru;  // position in lru_ (front = most recent)
    bool proven = false;
  };
  struct Node {
    Token token = 0;
    Node* parent = nullptr;
    std::unordered_map<Token, std::unique_ptr<Node>> children;
    int depth = 0;  // number of tokens from the root
    int refs = 0;   // entries whose path passes through (or ends at) this node
    Entry* ends_here = nullptr;
    Entry* any = nullptr;  // some entry whose path passes through this node
  };

  void touch(Entry* entry);
  std::vector<int> remove_entry(Entry* entry);

  std::unique_ptr<Node> root_;
  std::unordered_map<int, std::unique_ptr<Entry>> entries_;  // by seq id
  std::list<Entry*> lru_;
  std::vector<int> free_seq_ids_;
  std::size_t max_cells_;
  std::size_t probation_entries_;
  std::size_t nodes_ = 0;
  std::size_t unproven_ = 0;  // entries not proven
};

}  // namespace supportd::engine
