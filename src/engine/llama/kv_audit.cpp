// The KV leak audit (Loop::audit_kv, see loop.h): every sequence id llama.cpp knows is checked
// against its owner, a running request (positions [0, n_past)) or a prefix-cache entry
// (positions [0, its length)); what an id holds without an owner, or past what its owner has
// computed, is a leak. One pair of position lookups per sequence id: cheap enough for every
// publish of the stats.
#include <algorithm>

#include "engine/llama/loop.h"

namespace supportd::engine::llama {

KvAudit Loop::audit_kv() const {
  KvAudit audit;
  const int ids = options_.parallel + options_.prefix_cache_entries;
  for (int id = 0; id < ids; ++id) {
    const llama_pos last = llama_memory_seq_pos_max(memory_, id);
    if (last < 0) continue;  // holds nothing
    const llama_pos first = std::max<llama_pos>(0, llama_memory_seq_pos_min(memory_, id));
    std::optional<std::size_t> owned;  // positions its owner accounts for
    if (id < options_.parallel) {
      for (const auto& s : running_) {
        if (s->seq_id == id) owned = s->n_past;
      }
    } else {
      owned = prefix_cache_.entry_length(id);
    }
    const auto held_end = static_cast<std::int64_t>(last) + 1;
    const std::int64_t leaked =
        owned ? std::max<std::int64_t>(
                    0, held_end - std::max<std::int64_t>(first, static_cast<std::int64_t>(*owned)))
              : held_end - first;
    if (leaked > 0) {
      audit.cells_leaked += leaked;
      ++audit.sequences_leaking;
    }
  }
  return audit;
}

}  // namespace supportd::engine::llama
