// Which token prefixes have their KV kept in the engine's unified cache, and under which
// sequence id. A token trie: one node per cached token (one KV cell), entries are paths from
// the root, evicted least-recently-used first when cells or sequence ids run out.
// Entries are kept on probation until they prove useful: a cached cell is not free in one
// unified buffer, where every step's attention reads every cell up to the highest one in use,
// so a cache full of conversations nobody continues slows every step (measured with 64-token
// prompts that share nothing: completions 1.6x slower, TTFT 57 against 33 ms alone; with a
// shared system prompt, 32 conversations' tails kept beside it: 1.2-1.3x slower than 4).
// Proof covers a length: the tokens a request reused from an entry (mark_reused), or those
// the request that made the entry had reused itself (a shared system prompt, a conversation's
// earlier turns). An entry longer than its proof is on probation: at most `probation_entries`
// are, and beyond that the oldest loses its unproven tail (trimmed to its proof, or removed
// when nothing of it is proven or another entry holds the proven part).
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
  // `probation_entries`: at most this many entries on probation (at least 1).
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

  // An entry cut back to its proven part: clear positions [length, end) of its sequence.
  struct Trim {
    int seq_id = -1;
    std::size_t length = 0;
    bool operator==(const Trim&) const = default;
  };
  struct Insertion {
    int seq_id = -1;              // copy cells [0, tokens.size()) of the source into this id
    std::vector<int> evicted;     // clear these sequence ids (llama_memory_seq_rm) first
    std::vector<Trim> trimmed;    // and these entries' tails
    bool already_cached = false;  // nothing to copy
  };
  // Records `tokens` as cached, its first `proven` tokens proven (and what the entry it
  // replaces had proven). Entries whose path is a prefix of `tokens` are replaced (their ids
  // are in `evicted`); older entries are evicted while the bound would be exceeded, and the
  // oldest on probation lose their tails while more than `probation_entries` are. Returns
  // seq_id -1 when `tokens` alone exceed the bound.
  Insertion insert(std::span<const Token> tokens, std::size_t proven = 0);

  // A request reused the first `length` tokens of the entry under `seq_id` (from lookup):
  // they are proven. Unknown ids are ignored.
  void mark_reused(int seq_id, std::size_t length);

  // Evicts least-recently-used entries until at least `cells` cells are freed or none remain;
  // returns the sequence ids to clear.
  std::vector<int> evict_cells(std::size_t cells);

  // Drops everything; returns the sequence ids to clear.
  std::vector<int> clear();

  std::size_t cells() const { return nodes_; }
  std::size_t entries() const { return entries_.size(); }
  // Entries on probation (longer than their proof).
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
    std::size_t proven = 0;           // its first `proven` tokens were reused
    bool on_probation() const { return proven < static_cast<std::size_t>(end->depth); }
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

  // The node of the longest prefix of `tokens` in the trie (the root when none).
  Node* deepest(std::span<const Token> tokens) const;
  void touch(Entry* entry);
  std::vector<int> remove_entry(Entry* entry);
  // Ends `entry`'s probation: cut to its proof, or removed (into `result`).
  void end_probation(Entry* entry, Insertion& result);

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
