// The terminal report (report_text.h): the header with totals, one column per priority class,
// rejections and errors by kind, the steady-decode rate.
#include "bench/report_text.h"

#include <fmt/format.h>

#include <functional>

namespace supportd::bench {

namespace {

std::string describe_load(const BenchOptions& o) {
  switch (o.mode) {
    case LoadMode::kClosed:
      return fmt::format("closed loop, {} users, think time {} s", o.concurrency,
                         o.think_time.describe());
    case LoadMode::kPoisson: return fmt::format("open loop, Poisson {:g} req/s", o.rate);
    case LoadMode::kTrace:
      return fmt::format("open loop, trace {} ({} arrivals, speed x{:g})", o.trace_path,
                         o.trace.size(), o.trace_speed);
  }
  return {};
}

std::string kinds(const std::map<std::string, std::int64_t>& by_kind) {
  std::string text;
  for (const auto& [kind, count] : by_kind)
    text += fmt::format("{}{} {}", text.empty() ? "" : ", ", kind, count);
  return text;
}

}  // namespace

std::string format_steady_decode(const SteadyDecode& s) {
  if (s.streams == 0) return "steady decode: no stream produced tokens";
  if (!s.overlapping) {
    return fmt::format(
        "steady decode: none; the {} streams were never all decoding at once (the last first "
        "token at {:.3f} s came after the first last token at {:.3f} s)",
        s.streams, s.window_start_s, s.window_end_s);
  }
  return fmt::format(
      "steady decode: {} streams, {} token events in {:.3f} s = {:.1f} tokens/s (window "
      "{:.3f}-{:.3f} s)",
      s.streams, s.tokens, s.window_s, s.tokens_per_s, s.window_start_s, s.window_end_s);
}

std::string format_summary(const Report& r) {
  const BenchOptions& o = r.options;
  std::string out;
  out += fmt::format("supportd bench: {} -> {} ({}), model {}\n", describe_load(o), o.url,
                     r.server_kind.empty() ? "server queue not polled" : r.server_kind, r.model);
  out += fmt::format(
      "workload ({} endpoint, {}): question {} words, output {} tokens, system prompt {} "
      "words, repeat ratio {:g}\n",
      o.chat ? "chat" : "completions", o.preset.empty() ? "custom" : "preset " + o.preset,
      o.workload.prompt_tokens.describe(), o.workload.output_tokens.describe(),
      o.workload.system_prompt_tokens, o.workload.repeat_ratio);
  if (r.interrupted) {
    out += fmt::format("CUT SHORT ({}): requests in flight were abandoned (kind \"interrupted\")\n",
                       r.cut_reason == "max_time" ? "--max-time reached" : "signal");
  }
  out += fmt::format(
      "measured {} requests in {:.2f} s (after {} warm-up): ok {}, rejected {}, "
      "errors {}; peak in flight {}\n",
      r.requests, r.duration_s, r.warmup_requests, r.ok, r.rejected, r.errors, r.peak_outstanding);
  std::string slo;
  if (o.slo_ttft_ms > 0) slo += fmt::format("TTFT <= {:g} ms", o.slo_ttft_ms);
  if (o.slo_e2e_ms > 0)
    slo += fmt::format("{}E2E <= {:g} ms", slo.empty() ? "" : ", ", o.slo_e2e_ms);
  out += fmt::format(
      "throughput {:.2f} req/s, {:.1f} output tokens/s, {:.1f} prompt tokens/s; "
      "goodput {:.2f} req/s ({:.1f}% {})\n",
      r.request_throughput, r.output_token_throughput, r.input_token_throughput, r.goodput,
      r.goodput_ratio * 100, slo.empty() ? "ok, no SLO given" : "within " + slo);
  const ClassReport& all = r.classes[kAllClasses];
  if (all.mean_prompt_tokens >= 0) {
    out += fmt::format(
        "prompt tokens counted by the server: mean {:.1f} for {:.1f} question words "
        "sent{}\n",
        all.mean_prompt_tokens, all.mean_question_words,
        all.mean_cached_tokens >= 0
            ? fmt::format(" (mean {:.1f} reused from the prefix cache)", all.mean_cached_tokens)
            : "");
  }
  out += fmt::format("client: {:.2f} s CPU on its I/O thread, peak RSS {:.0f} MiB\n",
                     r.client_cpu_s, r.client_peak_rss_mib);
  if (o.mode != LoadMode::kClosed && r.max_lag_ms > 5)
    out += fmt::format("note: the client sent up to {:.1f} ms after an arrival's time\n",
                       r.max_lag_ms);

  std::vector<int> columns;
  for (int c = 0; c < kClassCount; ++c)
    if (r.classes[static_cast<std::size_t>(c)].requests > 0) columns.push_back(c);
  columns.push_back(kAllClasses);
  out += fmt::format("\n{:<22}", "");
  for (int c : columns)
    out += fmt::format("{:>12}", class_name(c));
  out += "\n";
  auto row = [&](const std::string& label,
                 const std::function<std::string(const ClassReport&)>& cell) {
    out += fmt::format("{:<22}", label);
    for (int c : columns)
      out += fmt::format("{:>12}", cell(r.classes[static_cast<std::size_t>(c)]));
    out += "\n";
  };
  row("requests", [](const ClassReport& c) { return std::to_string(c.requests); });
  row("ok", [](const ClassReport& c) { return std::to_string(c.ok); });
  row("rejected", [](const ClassReport& c) { return std::to_string(c.rejected); });
  row("errors", [](const ClassReport& c) { return std::to_string(c.errors); });
  auto latency = [&](const std::string& name, obs::Percentiles ClassReport::*field) {
    const std::pair<const char*, double obs::Percentiles::*> rows[] = {
        {"p50", &obs::Percentiles::p50},
        {"p90", &obs::Percentiles::p90},
        {"p95", &obs::Percentiles::p95},
        {"p99", &obs::Percentiles::p99},
        {"max", &obs::Percentiles::max}};
    for (const auto& [label, member] : rows) {
      row(name + " " + label + " ms", [&](const ClassReport& c) {
        const obs::Percentiles& p = c.*field;
        return p.count == 0 ? std::string("-") : fmt::format("{:.1f}", p.*member);
      });
    }
  };
  latency("TTFT", &ClassReport::ttft_ms);
  latency("ITL", &ClassReport::itl_ms);
  latency("TPOT", &ClassReport::tpot_ms);
  latency("E2E", &ClassReport::e2e_ms);
  if (all.rejected > 0) {
    row("rejection p99 ms", [](const ClassReport& c) {
      return c.reject_ms.count == 0 ? std::string("-") : fmt::format("{:.1f}", c.reject_ms.p99);
    });
    row("rejection max ms", [](const ClassReport& c) {
      return c.reject_ms.count == 0 ? std::string("-") : fmt::format("{:.1f}", c.reject_ms.max);
    });
  }
  row("requests/s",
      [](const ClassReport& c) { return fmt::format("{:.2f}", c.request_throughput); });
  row("output tokens/s",
      [](const ClassReport& c) { return fmt::format("{:.1f}", c.output_token_throughput); });
  row("goodput req/s", [](const ClassReport& c) { return fmt::format("{:.2f}", c.goodput); });
  out += "\n";
  if (!all.rejections.empty()) out += "rejections: " + kinds(all.rejections) + "\n";
  if (all.retry_after_s.count > 0) {
    out += fmt::format("Retry-After: {} of {} rejections, {:g}-{:g} s\n", all.retry_after_s.count,
                       all.rejected, all.retry_after_s.p50 > 0 ? all.retry_after_s.p50 : 0.0,
                       all.retry_after_s.max);
  }
  if (!all.error_kinds.empty()) {
    out += "errors: " + kinds(all.error_kinds) + "\n";
    for (const auto& [kind, detail] : r.error_examples)
      out += fmt::format("  {}: {}\n", kind, detail.substr(0, 160));
  }
  if (all.short_outputs > 0) {
    out += fmt::format(
        "note: {} ok answers were shorter than max_tokens (does the server honour "
        "ignore_eos?)\n",
        all.short_outputs);
  }
  for (const TenantReport& t : r.tenants) {
    out += fmt::format(
        "tenant {}: {} requests, ok {}, rejected {}, errors {}, {} output tokens, "
        "TTFT p50 {:.1f} ms p99 {:.1f} ms\n",
        t.name, t.requests, t.ok, t.rejected, t.errors, t.output_tokens, t.ttft_p50_ms,
        t.ttft_p99_ms);
  }
  for (const VersionReport& v : r.versions) {
    out += fmt::format(
        "version {}: {} requests, ok {}, rejected {}, errors {}, TTFT p50 {:.1f} ms p99 {:.1f} "
        "ms, E2E p50 {:.1f} ms p99 {:.1f} ms\n",
        v.name.empty() ? "(not named)" : v.name, v.requests, v.ok, v.rejected, v.errors,
        v.ttft_p50_ms, v.ttft_p99_ms, v.e2e_p50_ms, v.e2e_p99_ms);
  }
  out += format_steady_decode(r.steady) + "\n";
  return out;
}

}  // namespace supportd::bench
