// One request inside the llama.cpp engine, and how sched/ sees it (a Ticket in the scheduler's
// queue, a RequestView for every other decision). Internal to engine/llama.
// Thread-safety: built by submit() on the caller's thread, then owned by the engine thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/utf8.h"
#include "engine/engine.h"
#include "engine/llama/compute_gate.h"
#include "engine/llama/model.h"
#include "engine/llama/sampler.h"
#include "engine/stop_matcher.h"
#include "sched/request_view.h"
#include "sched/scheduler.h"

namespace supportd::engine::llama {

using RequestId = Engine::RequestId;

// Its tokens are the prompt followed by every sampled token; the KV of tokens[0, n_past) is in
// the cache. The last sampled token is decoded in the next step, so a sequence always has
// tokens.size() - n_past >= 1 tokens left to feed: one while decoding, more while prefilling
// (also after a preemption that dropped its cells).
// What Loop::audit_kv finds: KV positions nobody owns.
struct KvAudit {
  std::int64_t cells_leaked = 0;
  int sequences_leaking = 0;
};

struct Sequence {
  RequestId id = 0;
  GenerationRequest request;
  std::shared_ptr<GenerationSink> sink;  // null once finished
  std::vector<Token> tokens;
  std::size_t prompt_size = 0;
  int max_new = 0;  // tokens to generate at most
  int cells = 0;    // KV cells reserved for the whole request

  int seq_id = -1;         // llama sequence id while running
  std::size_t n_past = 0;  // tokens whose KV is in the cache
  std::size_t reused = 0;  // prompt tokens taken from the prefix cache
  std::size_t shared = 0;  // leading positions whose KV cells are the prefix cache's own
  int batch_index = -1;    // logits row in the current step, -1 when none
  int generated = 0;
  int continued = 0;  // tokens of the request's continuation, at the end of the prompt tokens
  std::unique_ptr<Sampler> sampler;
  Utf8Stream utf8;
  StopMatcher stop{{}};

  // Preemption: the KV saved with llama_state_seq_get_data, and how many tokens it covers.
  std::vector<std::uint8_t> saved_state;
  std::size_t saved_n_past = 0;
  int preemptions = 0;
  bool counted_waiting = false;  // holds a place in AdmissionControl's queue count

  Clock::time_point submitted;
  Clock::time_point admitted;  // first admission
  Clock::time_point first_token;
  bool has_first_token = false;
  Clock::time_point next_token_at;  // with a throttle fault: its next decode step, not before
  Phases phases;  // what happened to it, for its trace (handed over in its Completion)
  // Held from submit to finish unless the request is background (compute_gate.h).
  ComputeGate::Foreground foreground;

  // Milliseconds from its submission to `at`: the unit of its phase stamps.
  double ms_at(Clock::time_point at) const {
    return std::chrono::duration<double, std::milli>(at - submitted).count();
  }

  std::size_t remaining() const { return tokens.size() - n_past; }
  // Its place in the scheduler's queue (waiting since it was submitted, a pause included).
  sched::Ticket ticket() const;
  // What the scheduling policies see of it now.
  sched::RequestView view() const;
};

}  // namespace supportd::engine::llama
