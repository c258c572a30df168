// A deliberate KV leak, for the tests of the leak watchdog only: this file is compiled into
// supportd_llama_test_hooks, which tests link and supportd never does, so no serving process
// can reach it. It copies a prefix-cache entry's cells into a free sequence id and takes that
// id out of use, as a bug that forgot to release a sequence would.
#include "engine/llama/kv_leak_hook.h"

#include "engine/llama/loop.h"

namespace supportd::engine::llama {

bool Loop::leak_kv_cells_for_test() {
  if (free_seq_ids_.empty()) return false;
  for (int id = options_.parallel; id < options_.parallel + options_.prefix_cache_entries; ++id) {
    const auto length = prefix_cache_.entry_length(id);
    if (!length || *length == 0) continue;
    const int lost = free_seq_ids_.back();
    free_seq_ids_.pop_back();
    llama_memory_seq_cp(memory_, id, lost, -1, -1);
    publish_stats();
    return true;
  }
  return false;
}

bool leak_kv_cells(LlamaEngine& engine) {
  bool leaked = false;
  engine.loop_->run_on_engine([&] { leaked = engine.loop_->leak_kv_cells_for_test(); });
  return leaked;
}

}  // namespace supportd::engine::llama
