// From a run's raw record to its numbers (report.h): per-class samples and percentiles,
// throughput and goodput over the measured window, the steady-decode window, the per-second
// timeline.
#include "bench/report.h"

#include <algorithm>
#include <cmath>

namespace supportd::bench {

const char* class_name(int index) {
  constexpr const char* kNames[] = {"high", "normal", "low", "all"};
  return index >= 0 && index <= kClassCount ? kNames[index] : "all";
}

SteadyDecode steady_decode(const std::vector<std::vector<double>>& streams) {
  SteadyDecode s;
  double latest_first = -1e300, earliest_last = 1e300;
  for (const auto& times : streams) {
    if (times.empty()) continue;
    ++s.streams;
    latest_first = std::max(latest_first, times.front());
    earliest_last = std::min(earliest_last, times.back());
  }
  if (s.streams == 0) return s;
  s.window_start_s = latest_first;
  s.window_end_s = earliest_last;
  if (!(earliest_last > latest_first)) return s;
  s.overlapping = true;
  s.window_s = earliest_last - latest_first;
  for (const auto& times : streams) {
    const auto from = std::lower_bound(times.begin(), times.end(), latest_first);
    const auto to = std::upper_bound(times.begin(), times.end(), earliest_last);
    if (to > from) s.tokens += to - from;
  }
  s.tokens_per_s = static_cast<double>(s.tokens) / s.window_s;
  return s;
}

namespace {

struct Samples {
  std::vector<double> ttft, itl, tpot, e2e, queue, reject, retry_after;
  double prompt_sum = 0, cached_sum = 0, words_sum = 0;
  std::int64_t prompt_count = 0, cached_count = 0;
};

void add(ClassReport& c, Samples& s, const RequestResult& r, const BenchOptions& options) {
  ++c.requests;
  if (r.repeated) ++c.repeated;
  s.words_sum += r.question_words;
  if (r.outcome == Outcome::kRejected) {
    ++c.rejected;
    ++c.rejections[r.kind];
    if (r.header_s >= 0) s.reject.push_back((r.header_s - r.send_s) * 1000);
    if (r.retry_after_s >= 0) s.retry_after.push_back(r.retry_after_s);
    return;
  }
  if (r.outcome == Outcome::kError) {
    ++c.errors;
    ++c.error_kinds[r.kind];
    return;
  }
  ++c.ok;
  const double e2e = (r.end_s - r.send_s) * 1000;
  s.e2e.push_back(e2e);
  const auto events = static_cast<std::int64_t>(r.token_s.size());
  const std::int64_t tokens = r.completion_tokens >= 0 ? r.completion_tokens : events;
  c.output_tokens += tokens;
  if (tokens < r.max_tokens) ++c.short_outputs;
  if (r.prompt_tokens >= 0) {
    s.prompt_sum += r.prompt_tokens;
    ++s.prompt_count;
  }
  if (r.cached_tokens >= 0) {
    s.cached_sum += r.cached_tokens;
    ++s.cached_count;
  }
  if (r.queued_ms >= 0) s.queue.push_back(r.queued_ms);
  double ttft = e2e;  // a stream without content: its first token never came
  if (!r.token_s.empty()) {
    ttft = r.token_s.front() * 1000.0;
    s.ttft.push_back(ttft);
    for (std::size_t i = 1; i < r.token_s.size(); ++i)
      s.itl.push_back((r.token_s[i] - r.token_s[i - 1]) * 1000.0);
    if (tokens >= 2) s.tpot.push_back((e2e - ttft) / static_cast<double>(tokens - 1));
  }
  const bool ttft_met =
      options.slo_ttft_ms <= 0 || (!r.token_s.empty() && ttft <= options.slo_ttft_ms);
  const bool e2e_met = options.slo_e2e_ms <= 0 || e2e <= options.slo_e2e_ms;
  if (ttft_met && e2e_met) ++c.good;
}

void close(ClassReport& c, Samples& s, double duration_s) {
  c.ttft_ms = obs::percentiles_of(s.ttft);
  c.itl_ms = obs::percentiles_of(std::move(s.itl));
  c.tpot_ms = obs::percentiles_of(std::move(s.tpot));
  c.e2e_ms = obs::percentiles_of(s.e2e);
  c.queue_ms = obs::percentiles_of(std::move(s.queue));
  c.reject_ms = obs::percentiles_of(std::move(s.reject));
  c.retry_after_s = obs::percentiles_of(std::move(s.retry_after));
  c.ttft_sorted = std::move(s.ttft);
  c.e2e_sorted = std::move(s.e2e);
  std::sort(c.ttft_sorted.begin(), c.ttft_sorted.end());
  std::sort(c.e2e_sorted.begin(), c.e2e_sorted.end());
  if (s.prompt_count > 0) c.mean_prompt_tokens = s.prompt_sum / static_cast<double>(s.prompt_count);
  if (s.cached_count > 0) c.mean_cached_tokens = s.cached_sum / static_cast<double>(s.cached_count);
  if (c.requests > 0) c.mean_question_words = s.words_sum / static_cast<double>(c.requests);
  if (duration_s > 0) {
    c.request_throughput = static_cast<double>(c.ok) / duration_s;
    c.output_token_throughput = static_cast<double>(c.output_tokens) / duration_s;
    c.goodput = static_cast<double>(c.good) / duration_s;
  }
}

std::vector<TimelineBucket> timeline(const RunRecord& record) {
  const auto seconds = static_cast<std::size_t>(std::max(0.0, std::ceil(record.end_s))) + 1;
  std::vector<TimelineBucket> buckets(seconds);
  for (std::size_t i = 0; i < buckets.size(); ++i)
    buckets[i].start_s = static_cast<double>(i);
  auto at = [&](double t) -> TimelineBucket& {
    const auto i = static_cast<std::size_t>(std::clamp(t, 0.0, static_cast<double>(seconds - 1)));
    return buckets[i];
  };
  for (const RequestResult& r : record.results) {
    ++at(r.send_s).sent;
    TimelineBucket& end = at(r.end_s);
    if (r.outcome == Outcome::kOk) ++end.completed;
    if (r.outcome == Outcome::kRejected) ++end.rejected;
    if (r.outcome == Outcome::kError) ++end.errors;
    for (float offset : r.token_s)
      ++at(r.send_s + offset).tokens;
  }
  return buckets;
}

}  // namespace

Report build_report(const RunRecord& record, const BenchOptions& options) {
  Report report;
  report.options = options;
  report.model = record.model;
  report.server_kind = record.server_kind;
  report.started_at = record.started_at;
  report.interrupted = record.interrupted;
  report.cut_reason = record.cut_reason;
  report.peak_outstanding = record.peak_outstanding;
  report.client_cpu_s = record.client_cpu_s;
  report.client_peak_rss_mib = record.client_peak_rss_mib;
  report.max_lag_ms = record.max_lag_ms;

  // The measured window: the first measured send to the last measured end.
  double window_end = -1;
  for (const RequestResult& r : record.results) {
    if (r.warmup) {
      ++report.warmup_requests;
      continue;
    }
    window_end = std::max(window_end, r.end_s);
  }
  if (record.measure_start_s >= 0 && window_end >= record.measure_start_s) {
    report.measure_start_s = record.measure_start_s;
    report.duration_s = window_end - record.measure_start_s;
  }

  std::array<Samples, kClassCount + 1> samples;
  std::vector<Samples> tenant_samples(options.workload.tenants.size());
  for (const Tenant& t : options.workload.tenants)
    report.tenants.push_back({t.name});
  std::vector<std::vector<double>> streams;
  double input_tokens = 0;
  for (const RequestResult& r : record.results) {
    if (r.warmup) continue;
    const int c = std::clamp(r.priority, 0, kClassCount - 1);
    add(report.classes[c], samples[c], r, options);
    add(report.classes[kAllClasses], samples[kAllClasses], r, options);
    if (r.tenant >= 0 && r.tenant < static_cast<int>(report.tenants.size())) {
      TenantReport& t = report.tenants[static_cast<std::size_t>(r.tenant)];
      ++t.requests;
      if (r.outcome == Outcome::kOk) {
        ++t.ok;
        t.output_tokens += r.completion_tokens >= 0 ? r.completion_tokens
                                                    : static_cast<std::int64_t>(r.token_s.size());
        if (!r.token_s.empty())
          tenant_samples[static_cast<std::size_t>(r.tenant)].ttft.push_back(r.token_s.front() *
                                                                            1000.0);
      }
      if (r.outcome == Outcome::kRejected) ++t.rejected;
      if (r.outcome == Outcome::kError) ++t.errors;
    }
    if (r.outcome == Outcome::kError && !r.detail.empty() &&
        !report.error_examples.contains(r.kind))
      report.error_examples[r.kind] = r.detail;
    if (r.outcome == Outcome::kOk) {
      if (r.prompt_tokens > 0) input_tokens += r.prompt_tokens;
      if (!r.token_s.empty()) {
        std::vector<double> times;
        times.reserve(r.token_s.size());
        for (float offset : r.token_s)
          times.push_back(r.send_s + offset);
        streams.push_back(std::move(times));
      }
    }
  }
  for (int c = 0; c <= kClassCount; ++c)
    close(report.classes[c], samples[c], report.duration_s);
  for (std::size_t t = 0; t < report.tenants.size(); ++t) {
    const obs::Percentiles p = obs::percentiles_of(std::move(tenant_samples[t].ttft));
    report.tenants[t].ttft_p50_ms = p.p50;
    report.tenants[t].ttft_p99_ms = p.p99;
  }

  const ClassReport& all = report.classes[kAllClasses];
  report.requests = all.requests;
  report.ok = all.ok;
  report.rejected = all.rejected;
  report.errors = all.errors;
  report.request_throughput = all.request_throughput;
  report.output_token_throughput = all.output_token_throughput;
  report.goodput = all.goodput;
  report.goodput_ratio =
      all.requests > 0 ? static_cast<double>(all.good) / static_cast<double>(all.requests) : 0;
  if (report.duration_s > 0) report.input_token_throughput = input_tokens / report.duration_s;
  report.versions = version_reports(record, record.model);
  report.steady = steady_decode(streams);
  report.timeline = timeline(record);
  report.client = record.client;
  report.server = record.server;
  return report;
}

}  // namespace supportd::bench
