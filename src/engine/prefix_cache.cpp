// The prefix-cache trie: lookup, insertion and LRU eviction by cells and sequence ids
// (see prefix_cache.h).
#include "engine/prefix_cache.h"

#include <algorithm>

namespace supportd::engine {

PrefixCache::PrefixCache(std::vector<int> seq_ids, std::size_t max_cells,
                         std::size_t probation_entries)
    : root_(std::make_unique<Node>()),
      free_seq_ids_(std::move(seq_ids)),
      max_cells_(max_cells),
      probation_entries_(std::max<std::size_t>(1, probation_entries)) {
  std::reverse(free_seq_ids_.begin(), free_seq_ids_.end());  // hand out the lowest id first
}

PrefixCache::~PrefixCache() = default;

void PrefixCache::touch(Entry* entry) {
  lru_.splice(lru_.begin(), lru_, entry->lru);
  for (Node* node = entry->end; node != root_.get(); node = node->parent)
    node->any = entry;
}

PrefixCache::Node* PrefixCache::deepest(std::span<const Token> tokens) const {
  Node* node = root_.get();
  for (Token token : tokens) {
    auto it = node->children.find(token);
    if (it == node->children.end()) break;
    node = it->second.get();
  }
  return node;
}

PrefixCache::Match PrefixCache::lookup(std::span<const Token> tokens) {
  Node* node = deepest(tokens);
  if (node == root_.get()) return {};
  Entry* entry = node->any;
  touch(entry);
  return {entry->seq_id, static_cast<std::size_t>(node->depth)};
}

std::size_t PrefixCache::cached_length(std::span<const Token> tokens) const {
  return static_cast<std::size_t>(deepest(tokens)->depth);
}

std::vector<int> PrefixCache::remove_entry(Entry* entry) {
  std::vector<int> cleared{entry->seq_id};
  if (entry->on_probation()) --unproven_;  // before the walk frees the nodes it reads
  Node* node = entry->end;
  node->ends_here = nullptr;
  // Walk up: drop nodes no entry uses any more, re-point `any` on the ones that stay.
  while (node != root_.get()) {
    Node* parent = node->parent;
    if (--node->refs == 0) {
      parent->children.erase(node->token);
      --nodes_;
    } else if (node->any == entry) {
      node->any = node->ends_here;
      if (node->any == nullptr) {
        for (auto& [token, child] : node->children) {
          node->any = child->any;
          break;
        }
      }
    }
    node = parent;
  }
  lru_.erase(entry->lru);
  free_seq_ids_.push_back(entry->seq_id);
  entries_.erase(entry->seq_id);
  return cleared;
}

void PrefixCache::mark_reused(int seq_id, std::size_t length) {
  const auto it = entries_.find(seq_id);
  if (it == entries_.end()) return;
  Entry& entry = *it->second;
  const bool was = entry.on_probation();
  entry.proven =
      std::max(entry.proven, std::min(length, static_cast<std::size_t>(entry.end->depth)));
  if (was && !entry.on_probation()) --unproven_;
}

void PrefixCache::end_probation(Entry* entry, Insertion& result) {
  Node* keep = entry->end;
  while (static_cast<std::size_t>(keep->depth) > entry->proven)
    keep = keep->parent;
  // Nothing proven, or the proven part is another entry's too (a shared system prompt that
  // every conversation's entry begins with): that entry keeps it.
  if (keep == root_.get() || keep->refs > 1) {
    auto cleared = remove_entry(entry);
    result.evicted.insert(result.evicted.end(), cleared.begin(), cleared.end());
    return;
  }
  // The nodes below `keep` are this entry's alone (refs never grow deeper down a path).
  for (Node* node = entry->end; node != keep;) {
    Node* parent = node->parent;
    parent->children.erase(node->token);
    --nodes_;
    node = parent;
  }
  entry->end = keep;
  keep->ends_here = entry;
  keep->any = entry;
  --unproven_;
  result.trimmed.push_back({entry->seq_id, entry->proven});
}

PrefixCache::Insertion PrefixCache::insert(std::span<const Token> tokens, std::size_t proven) {
  Insertion result;
  if (tokens.empty() || tokens.size() > max_cells_) return result;

  // How much of `tokens` is already in the trie.
  Node* node = deepest(tokens);
  std::size_t matched = static_cast<std::size_t>(node->depth);
  if (matched == tokens.size()) {  // a cached entry already covers it
    touch(node->any);
    mark_reused(node->any->seq_id, proven);
    result.already_cached = true;
    result.seq_id = node->any->seq_id;
    return result;
  }

  // An entry ending on the matched path becomes redundant: the new entry covers it. (No entry is a
  // prefix of another, so there is at most one.)
  for (Node* n = node; n != root_.get(); n = n->parent) {
    if (n->ends_here != nullptr) {
      proven = std::max(proven, n->ends_here->proven);  // e.g. a prompt's, now its conversation
      auto cleared = remove_entry(n->ends_here);
      result.evicted.insert(result.evicted.end(), cleared.begin(), cleared.end());
      break;
    }
  }

  // Make room for the new tail and find a free sequence id. Evictions may drop nodes of the
  // matched path, so walk it again after each one.
  for (;;) {
    node = deepest(tokens);
    matched = static_cast<std::size_t>(node->depth);
    if (nodes_ + (tokens.size() - matched) <= max_cells_ && !free_seq_ids_.empty()) break;
    if (lru_.empty()) return result;
    auto cleared = remove_entry(lru_.back());
    result.evicted.insert(result.evicted.end(), cleared.begin(), cleared.end());
  }

  for (std::size_t i = matched; i < tokens.size(); ++i) {
    auto child = std::make_unique<Node>();
    child->token = tokens[i];
    child->parent = node;
    child->depth = node->depth + 1;
    Node* raw = child.get();
    node->children.emplace(tokens[i], std::move(child));
    node = raw;
    ++nodes_;
  }

  auto entry = std::make_unique<Entry>();
  entry->seq_id = free_seq_ids_.back();
  free_seq_ids_.pop_back();
  entry->end = node;
  node->ends_here = entry.get();
  for (Node* n = node; n != root_.get(); n = n->parent)
    ++n->refs;
  entry->proven = std::min(proven, tokens.size());
  if (entry->on_probation()) ++unproven_;
  lru_.push_front(entry.get());
  entry->lru = lru_.begin();
  touch(entry.get());
  result.seq_id = entry->seq_id;
  Entry* added = entry.get();
  entries_.emplace(entry->seq_id, std::move(entry));

  // Probation: the oldest entries on probation lose their tails while there are too many
  // (never the new one, which is at the front).
  for (auto it = std::prev(lru_.end()); unproven_ > probation_entries_ && *it != added;) {
    Entry* candidate = *it;
    const bool last = it == lru_.begin();
    if (!last) --it;
    if (candidate->on_probation()) end_probation(candidate, result);
    if (last) break;
  }
  return result;
}

std::vector<int> PrefixCache::evict_cells(std::size_t cells) {
  std::vector<int> cleared;
  const std::size_t target = cells >= nodes_ ? 0 : nodes_ - cells;
  while (nodes_ > target && !lru_.empty()) {
    auto ids = remove_entry(lru_.back());
    cleared.insert(cleared.end(), ids.begin(), ids.end());
  }
  return cleared;
}

std::vector<int> PrefixCache::clear() {
  return evict_cells(nodes_);
}

std::optional<std::size_t> PrefixCache::entry_length(int seq_id) const {
  const auto it = entries_.find(seq_id);
  if (it == entries_.end()) return std::nullopt;
  return static_cast<std::size_t>(it->second->end->depth);
}

}  // namespace supportd::engine
