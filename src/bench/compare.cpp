// `bench --compare` (compare.h): loads two JSON reports, refuses anything that is not a version-1
// report of ours (naming the file), and prints each headline figure of A and B with the ratio B/A.
#include "bench/compare.h"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

#include "bench/report_json.h"

namespace supportd::bench {

namespace json = boost::json;

namespace {

Result<json::object> load(const std::string& path) {
  std::error_code ec_dir;
  if (std::filesystem::is_directory(path, ec_dir))
    return Error::invalid(path + " is a directory, not a report", "compare");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::make(ErrorCode::kNotFound, "cannot read the report " + path);
  std::stringstream text;
  text << in.rdbuf();
  boost::system::error_code ec;
  json::value document = json::parse(text.str(), ec);
  if (ec) return Error::invalid(path + " is not JSON: " + ec.message(), "compare");
  if (!document.is_object() || !document.as_object().contains("classes") ||
      !document.as_object().contains("requests")) {
    return Error::invalid(path + " is not a report of supportd bench --json", "compare");
  }
  const json::value* version = document.as_object().if_contains("version");
  if (version == nullptr || !version->is_int64() || version->as_int64() != kReportVersion) {
    return Error::invalid(
        fmt::format("{}: report version {}, this supportd reads version {}", path,
                    version == nullptr ? std::string("missing") : json::serialize(*version),
                    kReportVersion),
        "compare");
  }
  return std::move(document.as_object());
}

// The value at a dotted path ("classes.all.ttft_ms.p50"); null when absent.
const json::value* find(const json::object& root, const std::string& path) {
  const json::value* v = nullptr;
  const json::object* o = &root;
  std::size_t start = 0;
  for (;;) {
    const std::size_t dot = path.find('.', start);
    const std::string key = path.substr(start, dot - start);
    if (o == nullptr) return nullptr;
    v = o->if_contains(key);
    if (v == nullptr) return nullptr;
    if (dot == std::string::npos) return v;
    o = v->if_object();
    start = dot + 1;
  }
}

// The number at a dotted path; nothing when absent or null.
std::optional<double> at(const json::object& root, const std::string& path) {
  const json::value* v = find(root, path);
  if (v == nullptr) return std::nullopt;
  if (v->is_double()) return v->as_double();
  if (v->is_int64()) return static_cast<double>(v->as_int64());
  if (v->is_uint64()) return static_cast<double>(v->as_uint64());
  return std::nullopt;
}

// Every compared value must be a number or null (a string there is not a report of ours).
Status check_numbers(const json::object& root, const std::string& file,
                     const std::vector<std::string>& paths) {
  for (const std::string& path : paths) {
    const json::value* v = find(root, path);
    if (v == nullptr || v->is_null() || v->is_number()) continue;
    return Error::invalid(
        fmt::format("{}: {} is {}, expected a number", file, path, json::serialize(*v)), "compare");
  }
  return {};
}

std::string text_at(const json::object& root, std::string_view section, std::string_view key) {
  const json::value* s = root.if_contains(section);
  const json::value* v =
      s && s->is_object() ? s->as_object().if_contains(key) : root.if_contains(key);
  if (v == nullptr) return "?";
  if (v->is_string()) return std::string(v->as_string());
  return json::serialize(*v);
}

std::string number(std::optional<double> v) {
  if (!v) return "-";
  const double a = std::abs(*v);
  if (a != 0 && a < 10) return fmt::format("{:.3f}", *v);
  if (a < 1000) return fmt::format("{:.1f}", *v);
  return fmt::format("{:.0f}", *v);
}

std::string describe(const json::object& r, const std::string& path) {
  std::string load = text_at(r, "config", "mode");
  if (load == "closed") load = fmt::format("closed {} users", text_at(r, "config", "concurrency"));
  if (load == "poisson") load = fmt::format("poisson {} req/s", text_at(r, "config", "rate"));
  return fmt::format("{}: {} at {}, model {}, {}", path, load, text_at(r, "config", "url"),
                     text_at(r, "", "model"), text_at(r, "", "started_at"));
}

}  // namespace

Result<std::string> compare_reports(const std::string& a_path, const std::string& b_path) {
  auto a = load(a_path);
  if (!a) return a.error();
  auto b = load(b_path);
  if (!b) return b.error();

  // The rows: a label and a dotted path, or a section heading (empty path).
  std::vector<std::pair<std::string, std::string>> rows;
  for (const char* key : {"requests", "ok", "rejected", "errors", "duration_s",
                          "request_throughput", "output_token_throughput", "input_token_throughput",
                          "goodput", "goodput_ratio", "peak_outstanding"}) {
    rows.emplace_back(key, key);
  }
  rows.emplace_back("steady_decode.tokens_per_s", "steady_decode.tokens_per_s");
  std::vector<std::string> paths;
  for (const auto& row : rows)
    paths.push_back(row.second);
  for (const char* name : {"all", "high", "normal", "low"}) {
    const std::string base = std::string("classes.") + name;
    for (const char* key : {"requests", "rejected", "errors", "reject_ms.p99", "reject_ms.max",
                            "request_throughput", "output_token_throughput", "goodput"}) {
      paths.push_back(base + "." + key);
    }
    for (const char* metric : {"ttft_ms", "itl_ms", "tpot_ms", "e2e_ms"}) {
      for (const char* p : {"p50", "p90", "p95", "p99", "max"})
        paths.push_back(fmt::format("{}.{}.{}", base, metric, p));
    }
  }
  if (Status status = check_numbers(*a, a_path, paths); !status) return status.error();
  if (Status status = check_numbers(*b, b_path, paths); !status) return status.error();

  std::string out = fmt::format("A = {}\nB = {}\n\n", describe(*a, a_path), describe(*b, b_path));
  out += fmt::format("{:<38}{:>14}{:>14}{:>9}\n", "", "A", "B", "B/A");
  auto row = [&](const std::string& label, const std::string& path) {
    const auto va = at(*a, path), vb = at(*b, path);
    std::string ratio = "-";
    if (va && vb && *va != 0) ratio = fmt::format("{:.2f}", *vb / *va);
    out += fmt::format("{:<38}{:>14}{:>14}{:>9}\n", label, number(va), number(vb), ratio);
  };
  for (const auto& [label, path] : rows)
    row(label, path);
  for (const char* name : {"all", "high", "normal", "low"}) {
    const std::string base = std::string("classes.") + name;
    if (at(*a, base + ".requests").value_or(0) == 0 && at(*b, base + ".requests").value_or(0) == 0)
      continue;
    out += fmt::format("\n{}\n", name);
    row("  requests", base + ".requests");
    row("  rejected", base + ".rejected");
    row("  errors", base + ".errors");
    for (const char* metric : {"ttft_ms", "itl_ms", "tpot_ms", "e2e_ms"}) {
      for (const char* p : {"p50", "p90", "p95", "p99", "max"})
        row(fmt::format("  {}.{}", metric, p), fmt::format("{}.{}.{}", base, metric, p));
    }
    if (at(*a, base + ".rejected").value_or(0) > 0 || at(*b, base + ".rejected").value_or(0) > 0) {
      row("  reject_ms.p99", base + ".reject_ms.p99");
      row("  reject_ms.max", base + ".reject_ms.max");
    }
    row("  request_throughput", base + ".request_throughput");
    row("  output_token_throughput", base + ".output_token_throughput");
    row("  goodput", base + ".goodput");
  }
  return out;
}

}  // namespace supportd::bench
