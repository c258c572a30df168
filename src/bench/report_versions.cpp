// The load tester's figures per model version, by the name each answer gave (see
// version_reports in report.h).
#include <map>

#include "bench/report.h"

namespace supportd::bench {

std::vector<VersionReport> version_reports(const RunRecord& record, const std::string& requested) {
  struct Samples {
    VersionReport report;
    std::vector<double> ttft, e2e;
  };
  std::map<std::string, Samples> by_name;
  bool other = false;  // an answer named something else than what was asked for
  for (const RequestResult& r : record.results) {
    if (r.warmup) continue;
    Samples& samples = by_name[r.served_by];
    samples.report.name = r.served_by;
    ++samples.report.requests;
    if (!r.served_by.empty() && r.served_by != requested) other = true;
    if (r.outcome == Outcome::kRejected) ++samples.report.rejected;
    if (r.outcome == Outcome::kError) ++samples.report.errors;
    if (r.outcome != Outcome::kOk) continue;
    ++samples.report.ok;
    if (!r.token_s.empty()) samples.ttft.push_back(r.token_s.front() * 1000.0);
    samples.e2e.push_back((r.end_s - r.send_s) * 1000.0);
  }
  std::size_t named = 0;
  for (const auto& [name, samples] : by_name)
    named += name.empty() ? 0 : 1;
  std::vector<VersionReport> reports;
  if (named == 0 || (named == 1 && !other)) return reports;
  for (auto& [name, samples] : by_name) {
    const obs::Percentiles ttft = obs::percentiles_of(std::move(samples.ttft));
    const obs::Percentiles e2e = obs::percentiles_of(std::move(samples.e2e));
    samples.report.ttft_p50_ms = ttft.p50;
    samples.report.ttft_p99_ms = ttft.p99;
    samples.report.e2e_p50_ms = e2e.p50;
    samples.report.e2e_p99_ms = e2e.p99;
    reports.push_back(std::move(samples.report));
  }
  return reports;
}

}  // namespace supportd::bench
