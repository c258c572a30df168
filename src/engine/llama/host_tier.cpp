// The prefix cache's host-memory tier: idle entries leave the KV cache for host memory, and
// come back when a prompt starts with their tokens (see host_cache.h for why).
#include <algorithm>

#include <spdlog/spdlog.h>

#include "engine/llama/loop.h"

namespace supportd::engine::llama {

Clock::time_point LlamaEngine::Loop::next_offload() const {
  const auto oldest = prefix_cache_.oldest_use();
  if (host_cache_.max_bytes() == 0 || !oldest) return Clock::time_point::max();
  return *oldest + std::chrono::milliseconds(options_.prefix_cache_idle_ms + 1);
}

bool LlamaEngine::Loop::offload_idle_prefix() {
  if (host_cache_.max_bytes() == 0) return false;
  const auto before = Clock::now() - std::chrono::milliseconds(options_.prefix_cache_idle_ms);
  auto idle = prefix_cache_.idle_since(before);
  if (!idle) return false;
  // While a running sequence holds all of the entry's cells, freeing them frees nothing.
  for (const auto& s : running_) {
    if (s->seq_id >= 0 && s->n_past >= idle->tokens.size() &&
        std::equal(idle->tokens.begin(), idle->tokens.end(), s->tokens.begin())) {
      prefix_cache_.touch(idle->seq_id);
      return false;
    }
  }
  // The entry's sequence id holds every cell of its tokens, shared ones included, so the
  // saved state stands alone: it can come back even after other entries are gone.
  const auto started = Clock::now();
  std::vector<std::uint8_t> state(llama_state_seq_get_size(context_, idle->seq_id));
  const std::size_t written =
      llama_state_seq_get_data(context_, state.data(), state.size(), idle->seq_id);
  state.resize(written);
  const std::size_t tokens = idle->tokens.size();
  if (written > 0 && host_cache_.insert({std::move(idle->tokens), std::move(state)})) {
    ++counters_.prefix_offloads;
    spdlog::debug(
        "engine: moved a cached prefix of {} tokens ({:.1f} MiB) to host memory in {:.1f} ms",
        tokens, static_cast<double>(written) / (1 << 20),
        std::chrono::duration<double, std::milli>(Clock::now() - started).count());
  }
  for (int id : prefix_cache_.remove(idle->seq_id))
    llama_memory_seq_rm(memory_, id, -1, -1);
  return true;
}

bool LlamaEngine::Loop::restore_prefix(Sequence& s, const PrefixCache::Match& cached) {
  if (host_cache_.entries() == 0) return false;
  const auto wanted = std::span<const Token>(s.tokens).first(s.tokens.size() - 1);
  const auto host = host_cache_.lookup(wanted);
  if (host.entry == nullptr || host.length < cached.length + kMinRestoreTokens) return false;
  const auto& state = host.entry->state;
  if (llama_state_seq_set_data(context_, state.data(), state.size(), s.seq_id) == 0) {
    spdlog::warn("engine: could not restore a cached prefix of {} tokens for request {}",
                 host.length, s.request.id);
    llama_memory_seq_rm(memory_, s.seq_id, -1, -1);
    return false;
  }
  // Keep only what this prompt shares; where the KV cache holds the beginning too, take its
  // cells instead of the restored copy (one copy in the cache, not two).
  llama_memory_seq_rm(memory_, s.seq_id, static_cast<llama_pos>(host.length), -1);
  if (cached.length > 0) {
    const auto end = static_cast<llama_pos>(cached.length);
    llama_memory_seq_rm(memory_, s.seq_id, 0, end);
    llama_memory_seq_cp(memory_, cached.seq_id, s.seq_id, 0, end);
  }
  s.n_past = host.length;
  s.shared = cached.length;
  if (!s.has_first_token) s.reused = host.length;
  ++counters_.prefix_restores;
  counters_.prompt_tokens_reused += static_cast<std::int64_t>(host.length);
  return true;
}

}  // namespace supportd::engine::llama
