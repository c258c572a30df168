// Declaring and preparing the load flags of `supportd bench` (bench_flags.h).
#include "app/bench_flags.h"

#include <CLI/CLI.hpp>

#include "bench/distribution.h"
#include "bench/workload.h"

namespace supportd::app {

using bench::Distribution;

Status prepare(BenchFlags& f, const CLI::App& command) {
  bench::BenchOptions& o = f.options;
  if (f.endpoint != "chat" && f.endpoint != "completions")
    return Error::invalid("--endpoint must be chat or completions", "endpoint");
  o.chat = f.endpoint == "chat";
  if (command.count("--rate") > 0) o.mode = bench::LoadMode::kPoisson;
  if (command.count("--trace") > 0) o.mode = bench::LoadMode::kTrace;
  if (auto status = bench::apply_preset(o.preset, o.workload); !status) return status;
  if (!f.prompt_tokens.empty()) {
    auto d = Distribution::parse(f.prompt_tokens, "--prompt-tokens", 1);
    if (!d) return d.error();
    o.workload.prompt_tokens = *d;
  }
  if (!f.output_tokens.empty()) {
    auto d = Distribution::parse(f.output_tokens, "--output-tokens", 1);
    if (!d) return d.error();
    o.workload.output_tokens = *d;
  }
  const bool system_prompt = command.count("--system-prompt-tokens") > 0;
  if (system_prompt && f.system_prompt_tokens < 0)
    return Error::invalid("--system-prompt-tokens: must not be negative", "system-prompt-tokens");
  if (!f.prompt_tokens.empty() || !f.output_tokens.empty() || system_prompt)
    o.preset += " (modified)";
  if (system_prompt) o.workload.system_prompt_tokens = f.system_prompt_tokens;
  auto think = Distribution::parse(f.think_time, "--think-time", 0);
  if (!think) return think.error();
  o.think_time = *think;
  if (!f.priority_mix.empty()) {
    auto mix = bench::parse_priority_mix(f.priority_mix);
    if (!mix) return mix.error();
    o.workload.priority_mix = *mix;
  }
  if (!f.tenants.empty()) {
    auto tenants = bench::parse_tenants(f.tenants);
    if (!tenants) return tenants.error();
    o.workload.tenants = std::move(*tenants);
  }
  if (command.count("--timeout") > 0) o.start_timeout_s = f.start_timeout_s;
  o.priority_field = !f.no_priority_field;
  o.poll_server = !f.no_poll;
  o.progress = !f.no_progress;
  // In the options 0 means "not given" (no bound, or the default of 100 requests); given on the
  // command line, 0 would silently mean that too, so it is refused.
  if (command.count("--requests") > 0 && o.requests < 1)
    return Error::invalid("--requests: must be at least 1 (leave it out for 100)", "requests");
  if (command.count("--duration") > 0 && !(o.duration_s > 0))
    return Error::invalid("--duration: must be more than 0 seconds", "duration");
  for (const auto& [flag, value] :
       {std::pair{"--slo-ttft", o.slo_ttft_ms}, {"--slo-e2e", o.slo_e2e_ms}}) {
    if (command.count(flag) > 0 && !(value > 0)) {
      return Error::invalid(
          std::string(flag) + ": must be more than 0 ms (leave it out for no bound)", flag + 2);
    }
  }
  return bench::validate(o);
}

namespace {

// Which server, which endpoint, which model, which key.
void add_target_flags(CLI::App* b, BenchFlags& f) {
  bench::BenchOptions& o = f.options;
  const std::string target = "Target";
  b->add_option("--url", o.url, "Base URL of the server (a trailing /v1 is fine)")
      ->type_name("URL")
      ->capture_default_str()
      ->group(target);
  b->add_option("--endpoint", f.endpoint, "chat (/v1/chat/completions) or completions")
      ->type_name("NAME")
      ->capture_default_str()
      ->group(target);
  b->add_option("--model", o.model, "Model id to send (default: the first of GET /v1/models)")
      ->type_name("ID")
      ->group(target);
  b->add_option("--api-key", o.api_key, "Bearer key for every request (when no --tenants)")
      ->type_name("KEY")
      ->group(target);
}

// How requests arrive: closed loop (users) or open loop (a rate, a trace).
void add_load_flags(CLI::App* b, BenchFlags& f) {
  bench::BenchOptions& o = f.options;
  const std::string load = "Load";
  auto* concurrency = b->add_option("--concurrency", o.concurrency,
                                    "Closed loop: this many users, each waiting for its answer")
                          ->type_name("N")
                          ->capture_default_str()
                          ->group(load);
  b->add_option("--think-time", f.think_time,
                "Closed loop: seconds (DIST) between a user's requests")
      ->type_name("DIST")
      ->capture_default_str()
      ->group(load);
  b->add_option("--ramp-up", o.ramp_up_s, "Closed loop: start the users evenly over S seconds")
      ->type_name("S")
      ->group(load);
  auto* rate = b->add_option("--rate", o.rate, "Open loop: Poisson arrivals per second")
                   ->type_name("R")
                   ->group(load);
  auto* trace =
      b->add_option("--trace", o.trace_path, "Open loop: arrival times from FILE (see below)")
          ->type_name("FILE")
          ->group(load);
  b->add_option("--trace-speed", o.trace_speed, "Divide the trace's times by X (2 = twice as fast)")
      ->type_name("X")
      ->capture_default_str()
      ->group(load);
  concurrency->excludes(rate)->excludes(trace);
  rate->excludes(trace);
}

// What is measured and for how long: warm-up, when to stop, timeouts, limits, the seed.
void add_run_flags(CLI::App* b, BenchFlags& f) {
  bench::BenchOptions& o = f.options;
  const std::string load = "Load";
  b->add_option("--warmup", o.warmup_s, "Requests sent in the first S seconds are not measured")
      ->type_name("S")
      ->group(load);
  b->add_option("--warmup-requests", o.warmup_requests, "The first N requests are not measured")
      ->type_name("N")
      ->group(load);
  b->add_option("--requests", o.requests,
                "Stop after N measured requests (default 100 when no --duration)")
      ->type_name("N")
      ->group(load);
  b->add_option("--duration", o.duration_s,
                "Stop sending S seconds after the first measured request")
      ->type_name("S")
      ->group(load);
  b->add_option("--request-timeout", o.request_timeout_s, "Client timeout per request, seconds")
      ->type_name("S")
      ->capture_default_str()
      ->group(load);
  b->add_option("--max-time", o.max_time_s,
                "Cut the whole run after S seconds, abandoning requests in flight (0: no cap)")
      ->type_name("S")
      ->group(load);
  b->add_option("--connect-timeout", o.connect_timeout_s, "Client timeout per connection, seconds")
      ->type_name("S")
      ->capture_default_str()
      ->group(load);
  b->add_option("--max-outstanding", o.max_outstanding,
                "Open loop: arrivals beyond N in flight become client_limit errors")
      ->type_name("N")
      ->capture_default_str()
      ->group(load);
  b->add_option("--seed", o.workload.seed, "Seed of every random choice (same seed, same requests)")
      ->type_name("N")
      ->capture_default_str()
      ->group(load);
}

// What each request asks: prompt and answer lengths, repetition, classes, tenants.
void add_workload_flags(CLI::App* b, BenchFlags& f) {
  bench::BenchOptions& o = f.options;
  const std::string workload = "Workload";
  b->add_option("--preset", o.preset,
                "256-128 (256-word questions, 128 output tokens) or chat (128-word system prompt, "
                "questions uniform:30-80, answers uniform:64-256)")
      ->type_name("NAME")
      ->capture_default_str()
      ->group(workload);
  b->add_option("--prompt-tokens", f.prompt_tokens, "Question length in words (DIST)")
      ->type_name("DIST")
      ->group(workload);
  b->add_option("--output-tokens", f.output_tokens, "max_tokens (DIST), with ignore_eos")
      ->type_name("DIST")
      ->group(workload);
  b->add_option("--system-prompt-tokens", f.system_prompt_tokens,
                "Words of the system prompt every request shares")
      ->type_name("N")
      ->group(workload);
  b->add_option("--repeat-ratio", o.workload.repeat_ratio,
                "Share of requests repeating an earlier question exactly (0-1)")
      ->type_name("R")
      ->capture_default_str()
      ->group(workload);
  b->add_option("--priority-mix", f.priority_mix,
                "Weights of the classes, e.g. high=1,normal=8,low=1 (default: all normal)")
      ->type_name("LIST")
      ->group(workload);
  b->add_option("--tenants", f.tenants,
                "NAME=KEY[:WEIGHT],...: each request picks a tenant by weight and sends its key")
      ->type_name("LIST")
      ->group(workload);
  b->add_option("--timeout", f.start_timeout_s,
                "Send \"timeout\": S (supportd refuses with 503 what cannot start in time)")
      ->type_name("S")
      ->group(workload);
  b->add_option("--temperature", o.temperature, "Sampling temperature")
      ->type_name("T")
      ->capture_default_str()
      ->group(workload);
  b->add_flag("--no-priority-field", f.no_priority_field,
              "Send the class only as X-Priority, not as the body field \"priority\" (vLLM wants "
              "an integer there)")
      ->group(workload);
}

// The SLOs goodput counts against.
void add_slo_flags(CLI::App* b, BenchFlags& f) {
  bench::BenchOptions& o = f.options;
  const std::string slo = "SLO";
  b->add_option("--slo-ttft", o.slo_ttft_ms,
                "Goodput: time to first token at most MS (more than 0)")
      ->type_name("MS")
      ->group(slo);
  b->add_option("--slo-e2e", o.slo_e2e_ms, "Goodput: end-to-end latency at most MS (more than 0)")
      ->type_name("MS")
      ->group(slo);
}

}  // namespace

void add_bench_flags(CLI::App* command, BenchFlags& flags) {
  add_target_flags(command, flags);
  add_load_flags(command, flags);
  add_run_flags(command, flags);
  add_workload_flags(command, flags);
  add_slo_flags(command, flags);
}

}  // namespace supportd::app
