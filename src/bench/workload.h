// What the load tester asks: for each request, its priority class, tenant, question (new or a
// repeat of an earlier one) and output length, drawn from the configured distributions with
// seeded generators, so request number i is the same in every run with the same seed.
// Thread-safety: not thread-safe; one Workload per run, used from one thread.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "bench/distribution.h"
#include "core/status.h"
#include "sched/priority.h"

namespace supportd::bench {

constexpr int kClassCount = sched::kPriorityCount;  // high, normal, low

struct Tenant {
  std::string name;
  std::string key;  // sent as "Authorization: Bearer <key>"; may be empty
  double weight = 1;
};

struct WorkloadOptions {
  Distribution prompt_tokens = Distribution::fixed(256);  // words in the user question
  Distribution output_tokens = Distribution::fixed(128);  // max_tokens (with ignore_eos)
  int system_prompt_tokens = 0;  // words in the system prompt shared by every request
  double repeat_ratio = 0;       // share of requests repeating an earlier question exactly
  std::array<double, kClassCount> priority_mix{0, 1, 0};  // weights of high, normal, low
  std::vector<Tenant> tenants;                            // empty: requests carry no key
  std::uint64_t seed = 1;
};

// Applies a named workload: "256-128" (256-word questions, 128 output tokens, no system
// prompt) or "chat" (a 128-word system prompt, questions uniform:30-80, answers
// uniform:64-256). kInvalidArgument names the known presets.
Status apply_preset(const std::string& name, WorkloadOptions& options);

// Parses "high=1,normal=8,low=1" (weights, any scale; missing classes weigh 0).
Result<std::array<double, kClassCount>> parse_priority_mix(const std::string& text);

// Parses "NAME=KEY[:WEIGHT],..." (weight defaults to 1; a key may be empty: "guest=").
Result<std::vector<Tenant>> parse_tenants(const std::string& text);

// Per-request values a trace file may fix instead of the distributions.
struct RequestOverride {
  std::optional<int> prompt_tokens;
  std::optional<int> output_tokens;
  std::optional<sched::Priority> priority;
};

struct RequestSpec {
  std::int64_t index = 0;  // issue order, from 0
  sched::Priority priority = sched::Priority::kNormal;
  int tenant = -1;             // index into WorkloadOptions::tenants; -1: none
  std::uint64_t question = 0;  // question id; repeats share it
  int question_words = 0;
  int max_tokens = 0;
  bool repeated = false;  // the question was asked before in this run
};

class Workload {
 public:
  explicit Workload(WorkloadOptions options);

  // The next request (index 0, 1, 2, ... in call order).
  RequestSpec next(const RequestOverride& override_values = {});

  // The user question of `spec` (prompt_text of its question id).
  std::string question_text(const RequestSpec& spec) const;
  // The shared system prompt; empty when system_prompt_tokens is 0.
  const std::string& system_prompt() const { return system_prompt_; }
  const WorkloadOptions& options() const { return options_; }

 private:
  std::uint64_t question_seed(std::uint64_t question) const;

  const WorkloadOptions options_;
  std::string system_prompt_;
  std::mt19937_64 lengths_, outputs_, classes_, tenants_, repeats_;
  std::discrete_distribution<int> class_pick_;
  std::discrete_distribution<int> tenant_pick_;
  std::vector<std::pair<std::uint64_t, int>> questions_;  // distinct questions: id, words
  std::int64_t next_index_ = 0;
};

}  // namespace supportd::bench
