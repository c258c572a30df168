// Which token prefixes have their KV kept in the engine's unified cache, and under which
// sequence id. A token trie: one node per cached token (one KV cell), entries are paths from
// the root, evicted least-recently-used first when cells or sequence ids run out.
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
  PrefixCache(std::vector<int> seq_ids, std::size_t max_cells);
  ~PrefixCache();

  struct Match {
    int seq_id = -1;         // copy cells [0, length) of this sequence
    std::size_t length = 0;  // 0 when nothing matches
  };
  // Longest cached prefix of `tokens`; marks the entry as recently used.
  Match lookup(std::span<const Token> tokens);

  struct Insertion {
    int seq_id = -1;              // copy cells [0, tokens.size()) of the source into this id
    std::vector<int> evicted;     // clear these sequence ids (llama_memory_seq_rm) first
    bool already_cached = false;  // nothing to copy
  };
  // Records `tokens` as cached. Entries whose path is a prefix of `tokens` are replaced (their ids
  // are in `evicted`); older entries are evicted while the bound would be exceeded.
  // Returns seq_id -1 when `tokens` alone exceed the bound.
  Insertion insert(std::span<const Token> tokens);

  // Evicts least-recently-used entries until at least `cells` cells are freed or none remain;
  // returns the sequence ids to clear.
  std::vector<int> evict_cells(std::size_t cells);

  // Drops everything; returns the sequence ids to clear.
  std::vector<int> clear();

  std::size_t cells() const { return nodes_; }
  std::size_t entries() const { return entries_.size(); }
  // The tokens cached under `seq_id`; nullopt when no entry holds that id.
  std::optional<std::size_t> entry_length(int seq_id) const;
  std::size_t max_cells() const { return max_cells_; }

 private:
  struct Node;
  struct Entry {
    int seq_id;
    Node* end;
    std::list<Entry*>::iterator lru;  // position in lru_ (front = most recent)
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
  std::size_t nodes_ = 0;
};

}  // namespace supportd::engine
