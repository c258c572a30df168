// The slow-request log line (see slow_log.h).
#include "obs/trace/slow_log.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace supportd::obs::trace {
namespace {

constexpr int kMaxDepth = 5;

std::string milliseconds(double ms) {
  return ms < 100 ? fmt::format("{:.1f} ms", ms) : fmt::format("{:.0f} ms", ms);
}

class Breakdown {
 public:
  explicit Breakdown(const KeptTrace& trace) {
    for (const auto& span : trace.spans) {
      if (span.span_id != trace.root_id) children_[span.parent_id].push_back(&span);
    }
    for (auto& [parent, list] : children_) {
      std::stable_sort(list.begin(), list.end(), [](const SpanRecord* a, const SpanRecord* b) {
        return a->start_ns < b->start_ns;
      });
    }
  }

  void write(const SpanId& parent, int depth, std::string& out) const {
    auto it = children_.find(parent);
    if (it == children_.end()) return;
    bool first = true;
    for (const SpanRecord* span : it->second) {
      if (!first) out += ", ";
      first = false;
      out += span->name;
      out += ' ';
      out += milliseconds(span->duration_ms());
      if (span->status == StatusCode::kError) out += " (failed)";
      if (depth < kMaxDepth && children_.contains(span->span_id)) {
        out += " [";
        write(span->span_id, depth + 1, out);
        out += ']';
      }
    }
  }

 private:
  struct Less {
    bool operator()(const SpanId& a, const SpanId& b) const { return a.bytes < b.bytes; }
  };
  std::map<SpanId, std::vector<const SpanRecord*>, Less> children_;
};

}  // namespace

std::string stage_breakdown(const KeptTrace& trace, std::size_t max_chars) {
  std::string out;
  Breakdown(trace).write(trace.root_id, 0, out);
  if (out.empty()) return "(no stages recorded)";
  if (out.size() > max_chars) {
    out.resize(max_chars);
    out += "...";
  }
  return out;
}

std::string slow_request_line(const KeptTrace& trace, double threshold_ms) {
  std::string line = fmt::format("slow request {}: {} (over {})", trace.name,
                                 milliseconds(trace.latency_ms), milliseconds(threshold_ms));
  if (trace.latency_ms + 0.05 < trace.duration_ms)
    line += fmt::format(", {} in all", milliseconds(trace.duration_ms));
  if (trace.status_code != 0) line += fmt::format(", status {}", trace.status_code);
  line += fmt::format(", trace {}, stages: {}", trace.trace_id.hex(), stage_breakdown(trace));
  return line;
}

}  // namespace supportd::obs::trace
