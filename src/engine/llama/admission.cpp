// Starting, preempting and resuming sequences: who gets a sequence id and KV cells.
#include <algorithm>

#include <spdlog/spdlog.h>

#include "engine/llama/loop.h"
#include "sched/preemption.h"
#include "sched/promises.h"

namespace supportd::engine::llama {

std::int64_t Loop::free_cells() const {
  // Per sequence, a request fits its own buffer (submit checked it against max_context_).
  if (!unified_) return max_context_;
  return options_.context_cells - cells_reserved_ -
         static_cast<std::int64_t>(prefix_cache_.cells());
}

void Loop::evict_cached_prefixes(std::int64_t wanted) {
  if (wanted <= free_cells()) return;
  drop_cached_prefixes(prefix_cache_.evict_cells(static_cast<std::size_t>(wanted - free_cells())));
}

void Loop::drop_cached_prefixes(const std::vector<int>& ids,
                                const std::vector<PrefixCache::Trim>& trims) {
  for (int id : ids)
    llama_memory_seq_rm(memory_, id, -1, -1);
  for (const auto& trim : trims)
    llama_memory_seq_rm(memory_, trim.seq_id, static_cast<llama_pos>(trim.length), -1);
  if (!unified_ || (ids.empty() && trims.empty())) return;
  // A running sequence that shared an evicted entry's cells now holds them alone.
  for (const auto& s : running_) {
    if (s->shared > 0)
      s->shared =
          std::min(s->shared, prefix_cache_.cached_length(std::span(s->tokens).first(s->shared)));
  }
}

bool Loop::copy_prefix(int from, int to, std::size_t end) {
  const auto last = static_cast<llama_pos>(end);
  if (unified_) {
    llama_memory_seq_cp(memory_, from, to, 0, last);
    return true;
  }
  // Between buffers llama.cpp's seq_cp copies only whole ones, and only at its next decode,
  // which a saved state written back meanwhile would race with; the state API copies just
  // the sequence's cells, at once.
  const std::size_t size = llama_state_seq_get_size(context_, from);
  if (copy_buffer_.size() < size) copy_buffer_.resize(size);
  const std::size_t written = llama_state_seq_get_data(context_, copy_buffer_.data(), size, from);
  if (written == 0 || llama_state_seq_set_data(context_, copy_buffer_.data(), written, to) == 0) {
    spdlog::error("engine: could not copy sequence {}'s KV to {}", from, to);
    llama_memory_seq_rm(memory_, to, -1, -1);
    return false;
  }
  llama_memory_seq_rm(memory_, to, last, -1);
  return true;
}

void Loop::admit() {
  const auto now = Clock::now();
  const bool idle = running_.empty();
  while (const sched::Ticket* next = scheduler_.next(now, static_cast<int>(running_.size()))) {
    // Copies: preempting pushes into the scheduler.
    const RequestId candidate = next->id;
    const Priority priority = next->priority;
    const int cells = next->cells;
    const bool fits = !free_seq_ids_.empty() && cells <= free_cells();
    if (!fits && !make_room(priority, cells)) break;  // wait for running sequences to finish
    const RequestId chosen = fits ? keep_promise(candidate, now) : candidate;
    scheduler_.pop(chosen);
    auto node = waiting_.extract(chosen);
    start(std::move(node.mapped()));
  }
  start_due_promises(now);
  if (idle && !running_.empty()) admission_.engine_busy(now);
}

RequestId Loop::keep_promise(RequestId candidate, Clock::time_point now) {
  const sched::RequestView chosen = waiting_.at(candidate)->view();
  const sched::Pace pace = this->pace();
  if (!sched::may_pass_over(chosen, free_slots(), pace, promise_rules_)) return candidate;
  const RequestId promised =
      sched::keep_promise(chosen, view_waiting(), view_running(), free_cells(), pace, now);
  if (promised != candidate) {
    spdlog::debug("request {} starts before request {}: the free slot is its last chance", promised,
                  candidate);
  }
  return promised;
}

void Loop::start_due_promises(Clock::time_point now) {
  const sched::Pace pace = this->pace();
  if (!promise_rules_.pausing() || waiting_.empty() || pace.step_seconds <= 0) return;
  const double window = sched::promise_window(slowest_iteration_, pace.step_seconds);
  sched::due_promises(view_waiting(), sched::seconds_after(now, window), due_);
  for (const sched::RequestView* promised : due_) {
    const bool slot_free = !free_seq_ids_.empty();
    Sequence* victim = nullptr;
    if (!slot_free) {
      const auto* stream = sched::stream_to_pause_for_promise(view_running(), promised->priority);
      if (stream == nullptr) continue;  // it expires: nothing it may displace
      victim = &running_at(*stream);
    }
    const std::int64_t freed = slot_free ? 0 : victim->cells;
    if (promised->cells > free_cells() + freed + static_cast<std::int64_t>(prefix_cache_.cells())) {
      continue;  // even that would not make room for it
    }
    if (victim != nullptr) {
      spdlog::debug("request {} starts at its deadline: request {} pauses for it", promised->id,
                    victim->id);
      preempt(*victim);
    }
    evict_cached_prefixes(promised->cells);
    scheduler_.pop(promised->id);
    auto node = waiting_.extract(promised->id);
    start(std::move(node.mapped()));
  }
}

bool Loop::make_room(Priority candidate, int cells) {
  // First the prefix cache gives back cells.
  if (!free_seq_ids_.empty() && cells > free_cells()) {
    evict_cached_prefixes(cells);
    if (cells <= free_cells()) return true;
  }
  if (options_.preemption == EngineOptions::Preemption::kOff) return false;
  // Then running streams give way, as sched/preemption.h rules, until it fits.
  while (free_seq_ids_.empty() || cells > free_cells()) {
    const sched::RequestView* victim = sched::stream_to_pause(view_running(), candidate);
    if (victim == nullptr) return false;
    preempt(running_at(*victim));
    if (!free_seq_ids_.empty()) evict_cached_prefixes(cells);
  }
  return true;
}

void Loop::start(std::unique_ptr<Sequence> sequence) {
  Sequence& s = *sequence;
  leave_queue(s);
  s.seq_id = free_seq_ids_.back();
  free_seq_ids_.pop_back();
  const auto now = Clock::now();
  if (s.admitted == Clock::time_point{}) {
    s.admitted = now;
    s.phases.started_ms = s.ms_at(now);
  } else {
    s.phases.resumed(s.ms_at(now));
  }
  cells_reserved_ += s.cells;

  if (!s.saved_state.empty()) {
    // Resuming after a preemption: put the saved KV back under the new sequence id.
    const std::size_t read =
        llama_state_seq_set_data(context_, s.saved_state.data(), s.saved_state.size(), s.seq_id);
    s.shared = 0;  // the restored cells are a copy of their own
    if (read > 0) {
      s.n_past = s.saved_n_past;
    } else {
      spdlog::warn("engine: could not restore request {}'s KV; recomputing it", s.request.id);
      llama_memory_seq_rm(memory_, s.seq_id, -1, -1);
    }
    s.saved_state.clear();
    s.saved_state.shrink_to_fit();
  }
  if (s.n_past == 0) {
    // Reuse the longest cached prefix, leaving at least one token to feed.
    ++counters_.prefix_lookups;
    const auto match = prefix_cache_.lookup(std::span(s.tokens).first(s.tokens.size() - 1));
    if (match.length > 0 && copy_prefix(match.seq_id, s.seq_id, match.length)) {
      if (match.length >= kProvingReuse) prefix_cache_.mark_reused(match.seq_id, match.length);
      s.n_past = match.length;
      s.shared = unified_ ? match.length : 0;
      if (!s.has_first_token) s.reused = match.length;
      ++counters_.prefix_hits;
      counters_.prompt_tokens_reused += static_cast<std::int64_t>(match.length);
    }
  }
  if (s.preemptions == 0) s.sampler->accept_prompt(std::span(s.tokens).first(s.prompt_size));
  running_.push_back(std::move(sequence));
}

void Loop::preempt(Sequence& s) {
  ++s.preemptions;
  s.phases.preempted(s.ms_at(Clock::now()));
  ++counters_.preemptions;
  if (options_.preemption == EngineOptions::Preemption::kSave && s.n_past > 0) {
    const std::size_t size = llama_state_seq_get_size(context_, s.seq_id);
    s.saved_state.resize(size);
    const std::size_t written =
        llama_state_seq_get_data(context_, s.saved_state.data(), size, s.seq_id);
    if (written == 0) {
      s.saved_state.clear();
    } else {
      counters_.preemption_saved_bytes += static_cast<std::int64_t>(written);
      counters_.preemption_saved_tokens += s.n_past;
    }
    s.saved_n_past = s.n_past;
  } else {
    cache_prefix(s, s.n_past);  // recompute later, cheaply if the prefix cache still holds it
  }
  llama_memory_seq_rm(memory_, s.seq_id, -1, -1);
  free_seq_ids_.push_back(s.seq_id);
  cells_reserved_ -= s.cells;
  s.seq_id = -1;
  s.n_past = 0;
  s.shared = 0;
  s.batch_index = -1;

  // Back to the queue with its original arrival time, ahead of later arrivals of its class.
  auto it =
      std::find_if(running_.begin(), running_.end(), [&](const auto& p) { return p.get() == &s; });
  std::unique_ptr<Sequence> owned = std::move(*it);
  running_.erase(it);
  scheduler_.push(owned->ticket());
  waiting_.emplace(owned->id, std::move(owned));
}

void Loop::cache_prefix(Sequence& s, std::size_t length) {
  if (length == 0) return;
  share_cached_cells(s, length);
  const auto insertion = prefix_cache_.insert(std::span(s.tokens).first(length),
                                              s.reused >= kProvingReuse ? s.reused : 0);
  drop_cached_prefixes(insertion.evicted, insertion.trimmed);
  if (insertion.seq_id >= 0 && !insertion.already_cached) {
    if (!copy_prefix(s.seq_id, insertion.seq_id, length)) {
      // The trie now names cells that are not there: forget what it holds.
      drop_cached_prefixes(prefix_cache_.clear());
    } else if (unified_) {
      s.shared = std::max(s.shared, length);
    }
  }
}

void Loop::share_cached_cells(Sequence& s, std::size_t length) {
  // A sequence that computed a prefix the cache already holds (it started before that prefix
  // was cached, e.g. a burst of requests with one system prompt) has its own copy of those
  // cells. The trie counts the shared tokens once, so the copies would stay in the KV cache
  // unaccounted for, and every step's attention would scan them: swap the copy for the
  // cache's cells (same tokens at the same positions, so the same keys and values). With a
  // buffer per sequence there is nothing to share.
  if (!unified_) return;
  const auto match = prefix_cache_.lookup(std::span(s.tokens).first(length));
  if (match.length <= s.shared) return;
  const auto end = static_cast<llama_pos>(match.length);
  llama_memory_seq_rm(memory_, s.seq_id, 0, end);
  llama_memory_seq_cp(memory_, match.seq_id, s.seq_id, 0, end);
  s.shared = match.length;
  ++counters_.prefix_copies_merged;
}

bool Loop::join_prefill(Sequence& s) {
  // At least one token stays to feed: its logits give the next token.
  const auto wanted = std::span<const Token>(s.tokens).first(s.tokens.size() - 1);
  std::size_t best = s.n_past;
  int source = -1;
  const auto cached = prefix_cache_.lookup(wanted);
  if (cached.length > best) {
    best = cached.length;
    source = cached.seq_id;
  }
  std::size_t coming = 0;  // longest shared prefix a sequence ahead is still computing
  bool ahead = true;       // running_ is in admission order: those before `s` go first
  for (const auto& other : running_) {
    if (other.get() == &s) {
      ahead = false;
      continue;
    }
    if (other->seq_id < 0 || !other->sink) continue;
    const std::size_t limit = std::min(wanted.size(), other->tokens.size());
    const auto mismatch =
        std::mismatch(wanted.begin(), wanted.begin() + limit, other->tokens.begin());
    const auto common = static_cast<std::size_t>(mismatch.first - wanted.begin());
    const std::size_t computed = std::min(common, other->n_past);
    if (computed > best) {
      best = computed;
      source = other->seq_id;
    }
    // Only a sequence ahead is waited for, so the first of a burst never waits.
    if (ahead && other->n_past < common) coming = std::max(coming, common);
  }
  if (coming >= best + kMinJoinTokens) return true;  // join once, when it is done
  if (source >= 0) {
    // [0, n_past) of `s` holds the same tokens as the source's: take the source's cells for
    // the whole shared span (one copy in the cache, not two).
    llama_memory_seq_rm(memory_, s.seq_id, 0, -1);
    if (!copy_prefix(source, s.seq_id, best)) {
      s.n_past = 0;  // its own cells are gone too: compute the prompt from the start
      s.shared = 0;
      return false;
    }
    if (best >= kProvingReuse) prefix_cache_.mark_reused(source, best);  // a cache entry's id
    counters_.prompt_tokens_reused += static_cast<std::int64_t>(best - s.n_past);
    ++counters_.prefill_joins;
    s.n_past = best;
    s.shared = unified_ ? best : 0;  // shared cells count where they were computed
    if (!s.has_first_token) s.reused = best;
  }
  return false;
}

void Loop::release_cells(Sequence& s, bool keep_in_cache) {
  // Keep the conversation so far: the next turn starts with it.
  if (keep_in_cache) cache_prefix(s, s.n_past);
  llama_memory_seq_rm(memory_, s.seq_id, -1, -1);
  free_seq_ids_.push_back(s.seq_id);
  s.seq_id = -1;
  cells_reserved_ -= s.cells;
}

}  // namespace supportd::engine::llama
