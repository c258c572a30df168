// One engine step: build the batch (decode tokens first, then prefill chunks under the token
// budget), run llama_decode on it (once, or once for each half), sample every sequence that
// produced logits.
#include <algorithm>
#include <thread>

#include <spdlog/spdlog.h>

#include "engine/llama/compute_gate.h"
#include "engine/llama/loop.h"

namespace supportd::engine::llama {
namespace {

// The most prompt tokens a warm-up call computes while another engine serves callers.
constexpr int kSharedWarmUpTokens = 64;

void add_token(llama_batch& batch, Token token, llama_pos pos, int seq_id, bool logits) {
  const int i = batch.n_tokens++;
  batch.token[i] = token;
  batch.pos[i] = pos;
  batch.n_seq_id[i] = 1;
  batch.seq_id[i][0] = seq_id;
  batch.logits[i] = logits;
}

}  // namespace

void Loop::step(bool background) {
  batch_.n_tokens = 0;
  last_step_costed_ = false;
  std::vector<Planned> planned;
  planned.reserve(running_.size());

  // Every decoding sequence (one token left to feed) advances by one token, unless a
  // throttle fault holds it back until its time.
  const auto now = Clock::now();
  auto throttled_until = Clock::time_point::max();
  Clock::duration injected{0};  // a drill's delay for this step (obs/faults)
  for (auto& s : running_) {
    s->batch_index = -1;
    if (s->remaining() != 1) continue;
    const InjectedFaults& faults = s->request.injected;
    if (faults.decode_tokens_per_second > 0) {
      const auto interval = std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(1.0 / faults.decode_tokens_per_second));
      // The first decode step comes one interval after the token the prefill gave, so that
      // n tokens take at least n - 1 intervals.
      if (s->next_token_at == Clock::time_point{}) s->next_token_at = now + interval;
      if (s->next_token_at > now) {
        throttled_until = std::min(throttled_until, s->next_token_at);
        continue;
      }
      s->next_token_at = now + interval;
    }
    injected = std::max<Clock::duration>(injected, faults.decode_delay);
    planned.push_back({s.get(), 1});
  }
  const int decode_tokens = static_cast<int>(planned.size());  // first in `planned`
  std::int64_t decode_context = 0;  // the cells they attend: their sequences' own, and theirs
  for (const Planned& p : planned)
    decode_context += static_cast<std::int64_t>(p.sequence->n_past) + 1;
  // Prefill chunks fill the rest of the budget, oldest admission first; a minimum chunk keeps
  // prefill moving even when the decode tokens alone fill the budget.
  const int step_tokens =
      background ? std::min(options_.step_tokens, kBackgroundStepTokens) : options_.step_tokens;
  const int capacity = std::max(step_tokens, options_.parallel);
  int budget = std::min(capacity - decode_tokens, std::max(step_tokens - decode_tokens, 16));
  const auto chunks_begin = static_cast<std::ptrdiff_t>(planned.size());
  for (auto& s : running_) {
    if (budget <= 0) break;
    if (s->remaining() <= 1) continue;
    if (join_prefill(*s)) continue;  // a sequence ahead is computing this prompt's beginning
    const int chunk =
        static_cast<int>(std::min<std::size_t>(s->remaining(), static_cast<std::size_t>(budget)));
    planned.push_back({s.get(), chunk});
    injected = std::max<Clock::duration>(injected, s->request.injected.prefill_delay);
    budget -= chunk;
  }
  // The order of the batch. With a buffer per sequence, llama.cpp splits a batch into passes
  // over the weights, each a run of consecutive sequence ids taking the same number of tokens
  // from each: in order of sequence id overall, a prompt chunk's first token rides along with
  // the decode tokens around it instead of cutting their run in two (one pass fewer for each
  // prompt between decoding sequences). With one buffer, the decode tokens and then the chunks,
  // each in order of sequence id (the split below needs them apart).
  const auto by_sequence = [](const Planned& a, const Planned& b) {
    return a.sequence->seq_id < b.sequence->seq_id;
  };
  if (unified_) {
    std::sort(planned.begin(), planned.begin() + chunks_begin, by_sequence);
    std::sort(planned.begin() + chunks_begin, planned.end(), by_sequence);
  } else {
    std::sort(planned.begin(), planned.end(), by_sequence);
  }
  for (const auto& [s, tokens] : planned) {
    for (int k = 0; k < tokens; ++k) {
      const std::size_t at = s->n_past + static_cast<std::size_t>(k);
      add_token(batch_, s->tokens[at], static_cast<llama_pos>(at), s->seq_id,
                at + 1 == s->tokens.size());
    }
    if (s->n_past + static_cast<std::size_t>(tokens) == s->tokens.size())
      s->batch_index = batch_.n_tokens - 1;
  }
  if (batch_.n_tokens == 0) {
    // Only throttled sequences: wait for the first one's time (or anything in the inbox).
    if (throttled_until != Clock::time_point::max()) {
      std::unique_lock lock(inbox_mutex_);
      inbox_cv_.wait_until(lock, throttled_until);
    }
    return;
  }
  const std::size_t shared = shared_prefix(planned);
  if (shared != shared_prefix_) {
    llama_set_shared_prefix(context_, static_cast<std::uint32_t>(shared));
    shared_prefix_ = shared;
  }
  if (shared > 0) {
    ++counters_.shared_prefix_steps;
    counters_.shared_prefix_tokens += static_cast<std::int64_t>(shared);
  }
  // Threads for this step: fixed by --threads, or chosen by measurement.
  const int threads = options_.threads > 0 ? options_.threads : tuner_.choose(batch_.n_tokens);
  if (threads != threads_) {
    llama_set_n_threads(context_, threads, threads);
    threads_ = threads;
  }
  // Decode tokens and prefill chunks go to llama_decode separately when the step holds both
  // and reaches the size at which CPU flash attention switches to its tiled kernel: that
  // kernel skips a block of cells only when no row of its 64-row tile sees any of them, so a
  // tile mixing many sequences' tokens attends densely over every cell of the unified cache
  // (finished conversations kept for reuse included). Apart, each decode row skips what it
  // cannot see, and a prefill chunk's tiles belong to one sequence. The second call costs a
  // pass over the weights, and pays from one decode token: a 64-token chunk with 1, 2, 3
  // decode tokens took 73, 85, 119 ms in one call and 61, 64, 69 ms in two once the cache held
  // finished conversations (smollm2-135m, 2 threads; docs/performance.md, "Split steps").
  const bool split = unified_ && decode_tokens > 0 && batch_.n_tokens > decode_tokens &&
                     batch_.n_tokens >= kAttentionTileRows;
  // The cores, in turn with the process's other engines, at the class of the step's best
  // sequence; the step's time starts when it has them.
  // A step that starts a prompt (a request without its first token) goes before the other
  // engines' decode-only steps of its class.
  auto best = sched::Priority::kLow;
  bool starts_prompt = false;
  for (const Planned& p : planned) {
    best = std::min(best, p.sequence->request.priority);
    starts_prompt = starts_prompt || !p.sequence->has_first_token;
  }
  ComputeGate::Turn turn = process_compute_gate().enter(best, starts_prompt);
  const auto started = Clock::now();
  const double predicted_ms = split ? step_time_.predict(decode_tokens) +
                                          step_time_.predict(batch_.n_tokens - decode_tokens)
                                    : step_time_.predict(batch_.n_tokens);
  // A request arriving during the step cannot start before it ends.
  outlook_.step_end = sched::seconds_after(started, std::max(predicted_ms / 1e3, 0.0));
  admission_.publish(outlook_);
  // The prompt's chunks, stamped for its trace (a recompute after a preemption is not one).
  for (const auto& [s, tokens] : planned) {
    if (!s->has_first_token && s->remaining() > 1) s->phases.begin_chunk(s->ms_at(started), tokens);
  }
  const std::span<const Planned> all(planned);
  if (decode_tokens > 0 && batch_.n_tokens > decode_tokens) ++counters_.mixed_steps;
  if (split) {
    ++counters_.split_steps;
    const auto decoding = static_cast<std::size_t>(decode_tokens);
    if (run_batch(0, decode_tokens, all.first(decoding), threads)) {
      run_batch(decode_tokens, batch_.n_tokens, all.subspan(decoding), threads);
    }
  } else {
    run_batch(0, batch_.n_tokens, all, threads);
  }
  turn.release();
  // A drill's slow step: every sequence in it waits, as they would for a slow decode.
  if (injected.count() > 0) std::this_thread::sleep_for(injected);
  const auto ended = Clock::now();
  for (const Planned& p : planned)
    p.sequence->phases.close(p.sequence->ms_at(ended));  // no-op unless a chunk is open
  counters_.last_step_ms = std::chrono::duration<double, std::milli>(ended - started).count();
  last_step_tokens_ = batch_.n_tokens;
  last_decode_tokens_ = decode_tokens;
  last_decode_context_ = decode_context;
  last_step_split_ = split;
  last_step_costed_ = !background;
  step_time_.record_step(counters_.last_step_ms);
}

std::size_t Loop::shared_prefix(std::span<const Planned> planned) const {
  if (unified_ || !options_.shared_prefix_attention || planned.size() < 2 ||
      options_.flash_attention != EngineOptions::FlashAttention::kOff) {
    return 0;
  }
  const std::vector<Token>& first = planned.front().sequence->tokens;
  std::size_t length = first.size();
  for (const auto& [s, tokens] : planned) {
    // Positions [0, n_past + tokens) are in the cache once this step is computed.
    length = std::min(length, s->n_past + static_cast<std::size_t>(tokens));
    const auto begin = first.begin();
    length = static_cast<std::size_t>(
        std::mismatch(begin, begin + static_cast<std::ptrdiff_t>(length), s->tokens.begin()).first -
        begin);
    if (length < kMinSharedPrefix) return 0;
  }
  // A whole number of kSharedPrefixAlign: the values' product then runs in llama.cpp's tiled
  // matrix kernel (its dot length must be a multiple of the tile), and the graph changes less
  // often (each new length builds a new one).
  return length / kSharedPrefixAlign * kSharedPrefixAlign;
}

bool Loop::run_batch(int first, int end, std::span<const Planned> planned, int threads) {
  // A view of batch_[first, end): llama_decode reads only the arrays.
  llama_batch part = batch_;
  part.n_tokens = end - first;
  part.token += first;
  part.pos += first;
  part.n_seq_id += first;
  part.seq_id += first;
  part.logits += first;
  const auto started = Clock::now();
  if (!decode_batch(part)) {
    for (const auto& p : planned) {
      // Drop whatever part of this step reached the cache, then fail the request.
      llama_memory_seq_rm(memory_, p.sequence->seq_id, static_cast<llama_pos>(p.sequence->n_past),
                          -1);
      finish(*p.sequence, FinishReason::kError,
             Error::make(ErrorCode::kInternal, "the engine failed to decode this request"));
    }
    return false;
  }
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  counters_.steps += 1;
  counters_.step_tokens += part.n_tokens;
  counters_.busy_seconds += ms / 1e3;
  step_time_.record(part.n_tokens, ms);
  counters_.threads = threads;
  if (options_.threads <= 0) tuner_.record(threads, part.n_tokens, ms);

  for (const auto& p : planned) {
    Sequence& s = *p.sequence;
    s.n_past += static_cast<std::size_t>(p.tokens);
    scheduler_.charge(s.request.tenant, p.tokens);  // fairness counts engine tokens
    // The prompt is now in the cache: requests that share its beginning can reuse it at once.
    // With a buffer per sequence that costs a copy, and a prompt that starts meanwhile finds
    // the running sequence anyway (join_prefill).
    if (unified_ && !s.has_first_token && s.n_past == s.prompt_size) cache_prefix(s, s.prompt_size);
  }
  // Logits belong to this call: sample before the next one overwrites them.
  for (const auto& p : planned) {
    Sequence& s = *p.sequence;
    if (s.batch_index < 0 || !s.sink) continue;
    on_token(s, s.sampler->sample(context_, s.batch_index - first));
  }
  return true;
}

void Loop::warm_up() {
  // A cold model is slow for its first requests (page faults, allocator growth, kernel
  // repacking): run what a busy moment looks like once, before reporting ready. Then run it
  // again, warm, timed: the step-time model starts from those calls, so admission control can
  // predict the service rate from a fresh server's first step, instead of accepting every
  // deadline until a step has been measured and refusing some of them later.
  const auto started = Clock::now();
  const int sequences = std::min(options_.parallel, 8);
  const int capacity = std::max(options_.step_tokens, options_.parallel);
  std::vector<Token> sample = model_.tokenize(
      "Hello! I ordered a pair of shoes last week and they have not arrived yet. Could you "
      "tell me where my parcel is and when I can expect it?",
      true, false);
  const int prompt =
      std::max(1, std::min<int>(static_cast<int>(sample.size()), capacity / sequences));
  bool ok = true;
  double first_call_ms = 0;  // the cold model's first call: what the warm-up spares a caller
  // A server stopped while starting does not warm up first: each call can take seconds.
  const auto stopping = [this] {
    std::lock_guard lock(inbox_mutex_);
    return stop_requested_;
  };
  for (int round = 0; ok && round < 2; ++round) {
    const bool timed = round == 1;
    const auto timed_decode = [&] {
      if (stopping()) {
        ok = false;
        return;
      }
      // At the callers' usual class: a candidate warming up beside a serving version takes
      // every other turn for its ten calls, neither starving nor starved.
      const ComputeGate::Turn turn = process_compute_gate().enter(sched::Priority::kNormal);
      const auto call_started = Clock::now();
      ok = llama_decode(context_, batch_) == 0;
      const double ms =
          std::chrono::duration<double, std::milli>(Clock::now() - call_started).count();
      if (ok && timed) {
        step_time_.record(batch_.n_tokens, ms);
        step_time_.record_step(ms);
      }
      if (first_call_ms == 0) first_call_ms = ms;
    };
    // While another version serves callers, the prompts go a few sequences per call: one call
    // of all of them holds the compute gate for a whole step of sequences x prompt tokens (half
    // a second for a 0.5B model on two cores, longer cold), which those callers wait out.
    const int per_call = process_compute_gate().in_foreground() > 0
                             ? std::clamp(kSharedWarmUpTokens / prompt, 1, sequences)
                             : sequences;
    for (int first = 0; ok && first < sequences; first += per_call) {
      batch_.n_tokens = 0;
      for (int s = first; s < std::min(sequences, first + per_call); ++s) {
        for (int i = 0; i < prompt; ++i)
          add_token(batch_, sample[i], i, s, i == prompt - 1);
      }
      timed_decode();
    }
    for (int k = 0; ok && k < 4; ++k) {
      batch_.n_tokens = 0;
      for (int s = 0; s < sequences; ++s)
        add_token(batch_, sample[0], prompt + k, s, true);
      timed_decode();
    }
    llama_memory_clear(memory_, true);
  }
  spdlog::info(
      "engine: warm-up {} ({} sequences x {} tokens, {:.0f} ms, the first call {:.0f} ms; a "
      "step of {} tokens {:.1f} ms, of {} tokens {:.1f} ms)",
      ok ? "done" : (stopping() ? "stopped" : "FAILED"), sequences, prompt,
      std::chrono::duration<double, std::milli>(Clock::now() - started).count(), first_call_ms,
      sequences * prompt, step_time_.predict(sequences * prompt), sequences,
      step_time_.predict(sequences));
}

bool Loop::decode_batch(const llama_batch& batch) {
  const int n_tokens = batch.n_tokens;
  int rc = llama_decode(context_, batch);
  if (rc == 1) {
    // No room in the KV cache (fragmentation, or more reuse than planned): give the prefix
    // cache's cells back and try once more.
    spdlog::warn("KV cache full for a {}-token step; clearing the prefix cache", n_tokens);
    drop_cached_prefixes(prefix_cache_.clear());
    rc = llama_decode(context_, batch);
  }
  if (rc != 0) {
    spdlog::error("llama_decode failed with code {} on a {}-token step", rc, n_tokens);
    return false;
  }
  return true;
}

void Loop::on_token(Sequence& s, Token token) {
  if (!s.has_first_token) {
    s.has_first_token = true;
    s.first_token = Clock::now();
  }
  if (!s.request.ignore_eos && model_.is_end_of_generation(token)) {
    finish(s, FinishReason::kStop);
    return;
  }
  s.tokens.push_back(token);
  ++s.generated;
  ++counters_.tokens_generated;
  const std::string text = s.stop.push(s.utf8.push(model_.piece(token)));
  if (!text.empty()) s.sink->on_text(text);
  if (s.stop.stopped()) {
    finish(s, FinishReason::kStop);
  } else if (s.generated >= s.max_new) {
    finish(s, FinishReason::kLength);
  }
}

}  // namespace supportd::engine::llama
