// The JSON report (report_json.h): the fields in a fixed order, numbers rounded, null for empty
// percentiles, pretty-printed with arrays of plain values kept on one line.
#include "bench/report_json.h"

#include <boost/json.hpp>

#include <cmath>

namespace supportd::bench {

namespace json = boost::json;

namespace {

json::value rounded(double value, double scale = 1000) {
  if (!std::isfinite(value)) return nullptr;
  return std::round(value * scale) / scale;
}

json::value percentiles(const obs::Percentiles& p) {
  json::object o;
  o["count"] = p.count;
  for (const auto& [name, value] :
       {std::pair{"p50", p.p50}, std::pair{"p90", p.p90}, std::pair{"p95", p.p95},
        std::pair{"p99", p.p99}, std::pair{"max", p.max}, std::pair{"mean", p.mean}}) {
    o[name] = p.count == 0 ? json::value(nullptr) : rounded(value);
  }
  return o;
}

json::object counts(const std::map<std::string, std::int64_t>& by_kind) {
  json::object o;
  for (const auto& [kind, count] : by_kind)
    o[kind] = count;
  return o;
}

json::value optional_mean(double value) {
  return value < 0 ? json::value(nullptr) : rounded(value, 100);
}

json::object config(const BenchOptions& o) {
  json::object c{{"url", o.url},
                 {"endpoint", o.chat ? "chat" : "completions"},
                 {"model", o.model},
                 {"mode", load_mode_name(o.mode)},
                 {"seed", o.workload.seed},
                 {"warmup_s", o.warmup_s},
                 {"warmup_requests", o.warmup_requests},
                 {"requests", o.requests},
                 {"duration_s", o.duration_s},
                 {"request_timeout_s", o.request_timeout_s},
                 {"max_time_s", o.max_time_s},
                 {"max_outstanding", o.max_outstanding},
                 {"preset", o.preset},
                 {"prompt_tokens", o.workload.prompt_tokens.describe()},
                 {"output_tokens", o.workload.output_tokens.describe()},
                 {"system_prompt_tokens", o.workload.system_prompt_tokens},
                 {"repeat_ratio", o.workload.repeat_ratio},
                 {"temperature", o.temperature},
                 {"priority_field", o.priority_field},
                 {"timeout_s", o.start_timeout_s ? json::value(*o.start_timeout_s) : nullptr},
                 {"slo", json::object{{"ttft_ms", o.slo_ttft_ms}, {"e2e_ms", o.slo_e2e_ms}}}};
  if (o.mode == LoadMode::kClosed) {
    c["concurrency"] = o.concurrency;
    c["think_time_s"] = o.think_time.describe();
    c["ramp_up_s"] = o.ramp_up_s;
  } else if (o.mode == LoadMode::kPoisson) {
    c["rate"] = o.rate;
  } else {
    c["trace"] = o.trace_path;
    c["trace_arrivals"] = o.trace.size();
    c["trace_speed"] = o.trace_speed;
  }
  json::object mix;
  for (int i = 0; i < kClassCount; ++i)
    mix[class_name(i)] = o.workload.priority_mix[static_cast<std::size_t>(i)];
  c["priority_mix"] = std::move(mix);
  json::array tenants;  // names and weights only: keys are secrets
  for (const Tenant& t : o.workload.tenants)
    tenants.push_back(json::object{{"name", t.name}, {"weight", t.weight}});
  c["tenants"] = std::move(tenants);
  return c;
}

json::object class_json(const ClassReport& c) {
  return json::object{{"requests", c.requests},
                      {"ok", c.ok},
                      {"rejected", c.rejected},
                      {"errors", c.errors},
                      {"good", c.good},
                      {"rejections", counts(c.rejections)},
                      {"error_kinds", counts(c.error_kinds)},
                      {"ttft_ms", percentiles(c.ttft_ms)},
                      {"itl_ms", percentiles(c.itl_ms)},
                      {"tpot_ms", percentiles(c.tpot_ms)},
                      {"e2e_ms", percentiles(c.e2e_ms)},
                      {"queue_ms", percentiles(c.queue_ms)},
                      {"reject_ms", percentiles(c.reject_ms)},
                      {"retry_after_s", percentiles(c.retry_after_s)},
                      {"request_throughput", rounded(c.request_throughput)},
                      {"output_token_throughput", rounded(c.output_token_throughput)},
                      {"goodput", rounded(c.goodput)},
                      {"output_tokens", c.output_tokens},
                      {"short_outputs", c.short_outputs},
                      {"repeated", c.repeated},
                      {"mean_prompt_tokens", optional_mean(c.mean_prompt_tokens)},
                      {"mean_cached_tokens", optional_mean(c.mean_cached_tokens)},
                      {"mean_question_words", rounded(c.mean_question_words, 100)}};
}

json::object timeline_json(const Report& r) {
  json::array t, sent, completed, rejected, errors, tokens;
  for (const TimelineBucket& b : r.timeline) {
    t.push_back(b.start_s);
    sent.push_back(b.sent);
    completed.push_back(b.completed);
    rejected.push_back(b.rejected);
    errors.push_back(b.errors);
    tokens.push_back(b.tokens);
  }
  json::array client_t, outstanding;
  for (const ClientSample& s : r.client) {
    client_t.push_back(rounded(s.time_s));
    outstanding.push_back(s.outstanding);
  }
  json::array server_t, waiting, running;
  std::array<json::array, kClassCount> class_waiting;
  auto value = [](double v) { return v < 0 ? json::value(nullptr) : json::value(v); };
  for (const ServerSample& s : r.server) {
    server_t.push_back(rounded(s.time_s));
    waiting.push_back(value(s.waiting));
    running.push_back(value(s.running));
    for (int c = 0; c < kClassCount; ++c)
      class_waiting[static_cast<std::size_t>(c)].push_back(
          value(s.class_waiting[static_cast<std::size_t>(c)]));
  }
  json::object classes;
  for (int c = 0; c < kClassCount; ++c)
    classes[class_name(c)] = std::move(class_waiting[static_cast<std::size_t>(c)]);
  return json::object{{"interval_s", 1},
                      {"t_s", std::move(t)},
                      {"sent", std::move(sent)},
                      {"completed", std::move(completed)},
                      {"rejected", std::move(rejected)},
                      {"errors", std::move(errors)},
                      {"tokens", std::move(tokens)},
                      {"client", json::object{{"t_s", std::move(client_t)},
                                              {"outstanding", std::move(outstanding)}}},
                      {"server", json::object{{"t_s", std::move(server_t)},
                                              {"waiting", std::move(waiting)},
                                              {"running", std::move(running)},
                                              {"class_waiting", std::move(classes)}}}};
}

bool is_flat(const json::array& a) {
  for (const json::value& v : a)
    if (v.is_object() || v.is_array()) return false;
  return true;
}

void pretty(const json::value& v, std::string& out, int depth) {
  const std::string indent(static_cast<std::size_t>(depth + 1) * 2, ' ');
  const std::string closing(static_cast<std::size_t>(depth) * 2, ' ');
  if (v.is_object() && !v.as_object().empty()) {
    out += "{\n";
    bool first = true;
    for (const auto& [key, value] : v.as_object()) {
      if (!first) out += ",\n";
      first = false;
      out += indent + json::serialize(json::value(key)) + ": ";
      pretty(value, out, depth + 1);
    }
    out += "\n" + closing + "}";
  } else if (v.is_array() && !v.as_array().empty() && !is_flat(v.as_array())) {
    out += "[\n";
    bool first = true;
    for (const json::value& value : v.as_array()) {
      if (!first) out += ",\n";
      first = false;
      out += indent;
      pretty(value, out, depth + 1);
    }
    out += "\n" + closing + "]";
  } else {
    out += json::serialize(v);
  }
}

}  // namespace

std::string report_json(const Report& r) {
  json::object classes;
  for (int c = 0; c <= kClassCount; ++c)
    classes[class_name(c)] = class_json(r.classes[static_cast<std::size_t>(c)]);
  json::array tenants;
  for (const TenantReport& t : r.tenants) {
    tenants.push_back(json::object{{"name", t.name},
                                   {"requests", t.requests},
                                   {"ok", t.ok},
                                   {"rejected", t.rejected},
                                   {"errors", t.errors},
                                   {"output_tokens", t.output_tokens},
                                   {"ttft_p50_ms", rounded(t.ttft_p50_ms)},
                                   {"ttft_p99_ms", rounded(t.ttft_p99_ms)}});
  }
  json::array versions;
  for (const VersionReport& v : r.versions) {
    versions.push_back(json::object{{"name", v.name},
                                    {"requests", v.requests},
                                    {"ok", v.ok},
                                    {"rejected", v.rejected},
                                    {"errors", v.errors},
                                    {"ttft_p50_ms", rounded(v.ttft_p50_ms)},
                                    {"ttft_p99_ms", rounded(v.ttft_p99_ms)},
                                    {"e2e_p50_ms", rounded(v.e2e_p50_ms)},
                                    {"e2e_p99_ms", rounded(v.e2e_p99_ms)}});
  }
  json::object examples;
  for (const auto& [kind, detail] : r.error_examples)
    examples[kind] = detail;
  const SteadyDecode& s = r.steady;
  json::object document{
      {"version", kReportVersion},
      {"tool", "supportd bench"},
      {"started_at", r.started_at},
      {"model", r.model},
      {"server_kind", r.server_kind},
      {"interrupted", r.interrupted},
      {"cut_reason", r.cut_reason},
      {"requests", r.requests},
      {"ok", r.ok},
      {"errors", r.errors},
      {"rejected", r.rejected},
      {"warmup_requests", r.warmup_requests},
      {"duration_s", rounded(r.duration_s)},
      {"request_throughput", rounded(r.request_throughput)},
      {"output_token_throughput", rounded(r.output_token_throughput)},
      {"input_token_throughput", rounded(r.input_token_throughput)},
      {"goodput", rounded(r.goodput)},
      {"goodput_ratio", rounded(r.goodput_ratio, 10000)},
      {"peak_outstanding", r.peak_outstanding},
      {"client_cpu_s", rounded(r.client_cpu_s)},
      {"client_peak_rss_mib", rounded(r.client_peak_rss_mib, 10)},
      {"max_client_lag_ms", rounded(r.max_lag_ms)},
      {"config", config(r.options)},
      {"classes", std::move(classes)},
      {"tenants", std::move(tenants)},
      {"versions", std::move(versions)},
      {"error_examples", std::move(examples)},
      {"steady_decode", json::object{{"streams", s.streams},
                                     {"overlapping", s.overlapping},
                                     {"window_start_s", rounded(s.window_start_s, 1e6)},
                                     {"window_end_s", rounded(s.window_end_s, 1e6)},
                                     {"window_s", rounded(s.window_s, 1e6)},
                                     {"tokens", s.tokens},
                                     {"tokens_per_s", rounded(s.tokens_per_s)}}},
      {"timeline", timeline_json(r)}};
  std::string out;
  pretty(document, out, 0);
  out += "\n";
  return out;
}

}  // namespace supportd::bench
