// The token log (token_log.h): written through a temporary file so a failed write keeps an older
// log whole, and read back to compute the steady-decode rate.
#include "bench/token_log.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include "core/temp_file.h"

namespace supportd::bench {

namespace {

constexpr std::string_view kHeader = "request,class,tenant,warmup,outcome,send_s,token,time_s";

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::kOk: return "ok";
    case Outcome::kRejected: return "rejected";
    case Outcome::kError: return "error";
  }
  return "error";
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

// Splits one CSV line (fields may be quoted).
std::vector<std::string> split_csv(std::string_view line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

}  // namespace

Status write_token_log(const RunRecord& record, const WorkloadOptions& workload,
                       const std::string& path) {
  std::string text(kHeader);
  text += '\n';
  auto out = std::back_inserter(text);
  for (const RequestResult& r : record.results) {
    const std::string tenant =
        r.tenant >= 0 && r.tenant < static_cast<int>(workload.tenants.size())
            ? csv_field(workload.tenants[static_cast<std::size_t>(r.tenant)].name)
            : std::string();
    const char* name = sched::priority_name(static_cast<sched::Priority>(r.priority));
    for (std::size_t i = 0; i < r.token_s.size(); ++i) {
      fmt::format_to(out, "{},{},{},{},{},{:.6f},{},{:.6f}\n", r.index, name, tenant,
                     r.warmup ? 1 : 0, outcome_name(r.outcome), r.send_s, i,
                     r.send_s + static_cast<double>(r.token_s[i]));
    }
  }
  // A failed or interrupted write leaves an earlier log at `path` whole.
  return write_file_atomically(path, text);
}

Result<SteadyDecode> steady_decode_from_log(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return Error::invalid(path + ": a directory, not a token log", "steady-decode-from");
  std::ifstream in(path);
  if (!in) return Error::make(ErrorCode::kNotFound, "cannot read the token log " + path);
  std::string line;
  int number = 0;
  std::map<long long, std::vector<double>> streams;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (number == 1) {
      if (line != kHeader) {
        return Error::invalid(fmt::format("{}:1: not a token log of supportd bench "
                                          "--record-tokens (expected the header {})",
                                          path, kHeader),
                              "steady-decode-from");
      }
      continue;
    }
    if (line.empty()) continue;
    const auto fields = split_csv(line);
    auto bad = [&](const std::string& why) {
      return Error::invalid(fmt::format("{}:{}: {}", path, number, why), "steady-decode-from");
    };
    if (fields.size() != 8) return bad(fmt::format("{} fields, expected 8", fields.size()));
    long long request = 0;
    double time = 0;
    const auto [r_end, r_ec] =
        std::from_chars(fields[0].data(), fields[0].data() + fields[0].size(), request);
    if (r_ec != std::errc() || r_end != fields[0].data() + fields[0].size())
      return bad("request '" + fields[0] + "' is not an integer");
    const auto [t_end, t_ec] =
        std::from_chars(fields[7].data(), fields[7].data() + fields[7].size(), time);
    if (t_ec != std::errc() || t_end != fields[7].data() + fields[7].size())
      return bad("time_s '" + fields[7] + "' is not a number");
    if (fields[3] != "0" && fields[3] != "1") return bad("warmup must be 0 or 1");
    if (fields[3] == "1" || fields[4] != "ok") continue;
    streams[request].push_back(time);
  }
  if (in.bad()) return Error::make(ErrorCode::kIo, "error reading the token log " + path);
  if (number == 0) {
    return Error::invalid(path + ": empty, not a token log of supportd bench --record-tokens",
                          "steady-decode-from");
  }
  std::vector<std::vector<double>> list;
  list.reserve(streams.size());
  for (auto& [request, times] : streams) {
    std::sort(times.begin(), times.end());
    list.push_back(std::move(times));
  }
  return steady_decode(list);
}

}  // namespace supportd::bench
