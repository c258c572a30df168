// The HTML report (report_html.h): the text summary in a <pre>, then latency CDFs and per-second
// charts drawn with svg_chart.h.
#include "bench/report_html.h"

#include <algorithm>

#include <fmt/format.h>

#include "bench/report_text.h"
#include "bench/svg_chart.h"

namespace supportd::bench {

namespace {

constexpr const char* kClassColors[] = {"#d62728", "#1f77b4", "#2ca02c", "#222222"};
constexpr std::size_t kCdfSteps = 300;

std::string latency_cdf(const Report& r, const std::string& title,
                        std::vector<double> ClassReport::*values) {
  std::vector<ChartSeries> series;
  for (int c = 0; c <= kClassCount; ++c) {
    const ClassReport& report = r.classes[static_cast<std::size_t>(c)];
    if (c < kClassCount && report.requests == r.requests) continue;  // same as "all"
    series.push_back({class_name(c), kClassColors[c], empirical_cdf(report.*values, kCdfSteps)});
  }
  return line_chart({title, "milliseconds (log scale)", "fraction of ok requests", true}, series);
}

}  // namespace

std::vector<std::pair<double, double>> empirical_cdf(const std::vector<double>& sorted,
                                                     std::size_t max_steps) {
  std::vector<std::pair<double, double>> points;
  const std::size_t n = sorted.size();
  if (n == 0 || max_steps == 0) return points;
  // Every `stride`-th value is a step (the last one always): a vertical rise at the value, then
  // flat to the next step, so a handful of requests reads as a handful of steps, not slopes.
  const std::size_t stride = (n + max_steps - 1) / max_steps;
  double below = 0;
  points.emplace_back(sorted.front(), 0.0);
  for (std::size_t i = stride - 1;; i += stride) {
    i = std::min(i, n - 1);
    const double fraction = static_cast<double>(i + 1) / static_cast<double>(n);
    if (points.back().first != sorted[i]) points.emplace_back(sorted[i], below);
    points.emplace_back(sorted[i], fraction);
    below = fraction;
    if (i == n - 1) break;
  }
  return points;
}

std::string report_html(const Report& r) {
  const double marker = r.warmup_requests > 0 ? r.measure_start_s : -1;
  ChartSeries sent{"sent", "#9467bd", {}}, completed{"completed ok", "#1f77b4", {}},
      rejected{"rejected", "#ff7f0e", {}}, errors{"errors", "#d62728", {}},
      tokens{"output tokens", "#2ca02c", {}};
  for (const TimelineBucket& b : r.timeline) {
    const double t = b.start_s + 0.5;
    sent.points.emplace_back(t, b.sent);
    completed.points.emplace_back(t, b.completed);
    if (r.rejected > 0) rejected.points.emplace_back(t, b.rejected);
    if (r.errors > 0) errors.points.emplace_back(t, b.errors);
    tokens.points.emplace_back(t, static_cast<double>(b.tokens));
  }
  ChartSeries outstanding{"client: in flight", "#7f7f7f", {}};
  for (const ClientSample& s : r.client)
    outstanding.points.emplace_back(s.time_s, s.outstanding);
  ChartSeries waiting{"server: waiting", "#000000", {}}, running{"server: running", "#8c564b", {}};
  std::array<ChartSeries, kClassCount> class_waiting;
  for (int c = 0; c < kClassCount; ++c)
    class_waiting[static_cast<std::size_t>(c)] = {
        std::string("waiting ") + class_name(c), kClassColors[c], {}};
  for (const ServerSample& s : r.server) {
    if (s.waiting >= 0) waiting.points.emplace_back(s.time_s, s.waiting);
    if (s.running >= 0) running.points.emplace_back(s.time_s, s.running);
    for (int c = 0; c < kClassCount; ++c) {
      const double v = s.class_waiting[static_cast<std::size_t>(c)];
      if (v >= 0) class_waiting[static_cast<std::size_t>(c)].points.emplace_back(s.time_s, v);
    }
  }
  std::vector<ChartSeries> queue{outstanding, waiting, running};
  for (const ChartSeries& s : class_waiting)
    queue.push_back(s);

  const std::string title = fmt::format("supportd bench: {} ({})", r.model, r.started_at);
  std::string html = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n"
      "<style>body{{font-family:sans-serif;margin:24px;color:#222}}pre{{background:#f6f6f6;"
      "padding:12px;overflow-x:auto}}svg{{display:block;margin:12px 0}}</style>\n</head>\n<body>\n"
      "<h1>{}</h1>\n<pre>{}</pre>\n",
      html_escape(title), html_escape(title), html_escape(format_summary(r)));
  html += "<h2>Latency</h2>\n";
  html += latency_cdf(r, "Time to first token, CDF per class", &ClassReport::ttft_sorted);
  html += latency_cdf(r, "End-to-end latency, CDF per class", &ClassReport::e2e_sorted);
  html += "<h2>Throughput over time</h2>\n";
  html += line_chart(
      {"Requests per second", "seconds since start", "requests / s", false, marker, "measuring"},
      {sent, completed, rejected, errors});
  html += line_chart(
      {"Output tokens per second", "seconds since start", "tokens / s", false, marker, "measuring"},
      {tokens});
  html += "<h2>Queue depth over time</h2>\n";
  if (r.server_kind.empty())
    html +=
        "<p>The server's queue was not available (neither /v1/stats nor a known /metrics); "
        "only the client's requests in flight are shown.</p>\n";
  html += line_chart({"Requests in flight and waiting", "seconds since start", "requests", false,
                      marker, "measuring"},
                     queue);
  html += "</body>\n</html>\n";
  return html;
}

}  // namespace supportd::bench
