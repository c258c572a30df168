// One engine's continuous batching as the capacity planner simulates it, built from what the
// engine measured of itself (engine/iteration_cost.h, /v1/stats "capacity.iteration_cost").
// Requests arrive (Poisson), wait in one FIFO queue for one of the engine's slots, and are
// served in iterations the way engine/llama's loop serves them: at the start of an iteration
// the free slots take the oldest waiting requests (a request arriving during an iteration
// waits for its end, free slot or not; one arriving at an idle engine starts at once); then
// every sequence that has computed its prompt decodes one token, and prompts are computed in
// chunks in the rest of the step's token budget (oldest first; at least 16 tokens even when
// the decode tokens fill it); the iteration costs
//   fixed + per decode token x decode tokens + per prompt token x prompt tokens
//         (+ per split when the iteration holds both kinds and at least split tokens: the
//          engine then computes them in two calls)
//         + per decode pair x decode tokens x (decode tokens - 1) / 2 (the growth beyond
//          linear in the decode tokens the engine measured, if any).
// The chunk that completes a prompt gives the request its first token; it leaves with its
// last, and its slot is free for the next iteration.
// Every request computes the same prompt tokens and generates the same tokens (the measured
// means, rounded): the variability the simulation sees is the arrivals' and the batch's.
// Left out: preemption, deadlines, prompts that share a prefix, the KV cache's limit, and
// priority classes (one FIFO queue).
// Why a simulation: a slot's service time depends on what else is in the batch, and the
// arrivals' bursts start prompts together (their chunks share the iterations the others decode
// in, and their requests then finish together), which a birth-death chain over a closed loop's
// rates does not see: bench/capacity-backtest compares both with supportd's measured waits.
// Thread-safety: pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/status.h"

namespace supportd::plan {

struct BatchingModel {
  int slots = 0;          // sequences the engine runs at once
  int step_tokens = 256;  // tokens one step may carry (decode tokens and prompt chunks)
  double fixed_ms = 0;    // an iteration's cost: fixed + per token of each kind
  double per_decode_token_ms = 0;
  double per_prompt_token_ms = 0;
  double per_split_ms = 0;        // what a split iteration adds (a second pass over the weights)
  double per_decode_pair_ms = 0;  // what each pair of decode tokens in an iteration adds
  int split_tokens = 0;      // an iteration holding both kinds is split from this many (0: never)
  double prompt_tokens = 0;  // computed per request (simulated as the nearest whole number, >= 1)
  double output_tokens = 0;  // generated per request (likewise)
  // The machine's speed over time, as a factor on every cost (1: as the costs say; 1.1: 10%
  // slower): speed_trace[i] holds from i x speed_window_s to (i + 1) x speed_window_s of
  // simulated time, and the trace repeats. Empty: a steady machine. What a machine's measured
  // drift does to the waits (bench/capacity-backtest measures each run's trace).
  std::vector<double> speed_trace;
  double speed_window_s = 5;
  // How iterations scatter around their costs: each simulated iteration takes its cost plus one
  // of these milliseconds, drawn at random with the chances `excess_shares` gives (as many,
  // 0 or more, in proportion; empty: every value equally likely), and at least a tenth of its
  // cost. What the engine measured of its own iterations (engine/iteration_cost.h,
  // "excess_ms" and "excess_shares"): a stall of 20 ms in one iteration queues everything that
  // arrives during it, which the same 20 ms spread over every iteration does not. Empty: every
  // iteration its cost.
  std::vector<double> excess_ms;
  std::vector<double> excess_shares;
};

// kInvalidArgument naming the flag when a cost is negative or not a number, an iteration would
// cost nothing, the split size is negative, slots are outside 1 .. 4096, the step's budget is below
// 16, a token count is below 1 or above a million, a speed is not a number above 0, the
// speed's window is not one above 0, an excess is not a number within a million milliseconds
// either way (or there are more than 100,000 of them), or the excess's shares are not as many
// numbers of 0 or more with a sum above 0.
Status check_batching(const BatchingModel& model);

// Requests per second the engine completes with every slot kept busy: a closed loop in which a
// request that leaves is replaced at the next iteration; with a speed trace, its average over
// the trace's windows (each window's rate is the steady machine's over its speed).
// REQUIRES: check_batching(model) ok.
double batching_capacity(const BatchingModel& model);

struct SimulatedQueue {
  std::int64_t requests = 0;  // measured, after the warm-up
  std::vector<double> waits;  // seconds from arrival to a slot, every measured request, sorted
  double mean_wait_s = 0;
  double p_wait = 0;          // the share of requests that waited at all
  double ttft_mean_s = 0;     // arrival to the first token
  double service_mean_s = 0;  // a slot to the last token
};

struct SimulationOptions {
  // Measured (at least 1), fewer for long requests: a simulation takes about a second at most.
  std::int64_t requests = 100000;
  std::int64_t warmup = 5000;  // simulated first and not measured (scaled with `requests`)
  std::uint64_t seed = 1;
  // Slot-iterations the simulation may take (2e8: about a second); long requests are simulated
  // in fewer numbers to keep within it, but never fewer than 200 (or `requests`).
  double max_work = 2e8;
};

// The queue at `arrival_rate` per second. Seeded (the arrivals and the excess drawn): the same
// inputs give the same numbers.
// kInvalidArgument from check_batching, for a rate that is not a number above 0, or for one at
// or above batching_capacity (no steady state).
Result<SimulatedQueue> simulate_batching(const BatchingModel& model, double arrival_rate,
                                         const SimulationOptions& options = {});

// The q-quantile (0 <= q <= 1) of sorted samples by nearest rank. REQUIRES: not empty.
double nearest_rank(const std::vector<double>& sorted, double q);

// How much a measured run differs from the steady state by chance alone: near saturation the
// waits of neighbours are correlated for many service times, so one run of minutes measures a
// mean wait that may lie far from the long-run mean (bench/capacity-backtest reads its runs
// against this). A run is `seconds` of Poisson arrivals at `arrival_rate` into an idle engine,
// every arrival measured, as `supportd bench --rate R --duration S` sends them; a sample is the
// mean over `repeats` such runs (each its own seed) of their mean wait and of their p95 wait.
struct RunSpread {
  double seconds = 0;
  int repeats = 1;
  int samples = 0;
  // Percentiles 5, 50 and 95 over the samples.
  std::array<double, 3> mean_wait_s{};
  std::array<double, 3> wait_p95_s{};
};

constexpr int kRunSpreadSamples = 200;

// kInvalidArgument as simulate_batching, or for seconds that hold no arrival on average (rate
// x seconds below 1) or more than a million, or repeats outside 1 .. 100. Seeded.
Result<RunSpread> simulate_run_spread(const BatchingModel& model, double arrival_rate,
                                      double seconds, int repeats = 1, std::uint64_t seed = 1,
                                      int samples = kRunSpreadSamples);

}  // namespace supportd::plan
