// W3C Trace Context headers (see trace_context.h): traceparent and tracestate, by the grammar
// of the Recommendation, section 3.
#include "obs/trace/trace_context.h"

#include <algorithm>
#include <vector>

namespace supportd::obs::trace {
namespace {

constexpr std::size_t kMaxMembers = 32;
constexpr std::size_t kMaxTracestate = 512;
constexpr std::size_t kLongMember = 128;  // removed first when the list must shrink

std::string_view trim_spaces(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
    text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
    text.remove_suffix(1);
  return text;
}

bool lower_hex(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool lcalpha(char c) {
  return c >= 'a' && c <= 'z';
}
bool digit(char c) {
  return c >= '0' && c <= '9';
}
// lcalpha / DIGIT / "_" / "-" / "*" / "/"
bool key_char(char c) {
  return lcalpha(c) || digit(c) || c == '_' || c == '-' || c == '*' || c == '/';
}

bool all_key_chars(std::string_view text) {
  return std::all_of(text.begin(), text.end(), key_char);
}

// simple-key = lcalpha 0*255(key char); multi-tenant-key = tenant-id "@" system-id, tenant-id
// = (lcalpha / DIGIT) 0*240(key char), system-id = lcalpha 0*13(key char).
bool valid_key(std::string_view key) {
  const std::size_t at = key.find('@');
  if (at == std::string_view::npos) {
    return !key.empty() && key.size() <= 256 && lcalpha(key[0]) && all_key_chars(key);
  }
  const std::string_view tenant = key.substr(0, at);
  const std::string_view system = key.substr(at + 1);
  return !tenant.empty() && tenant.size() <= 241 && (lcalpha(tenant[0]) || digit(tenant[0])) &&
         all_key_chars(tenant) && !system.empty() && system.size() <= 14 && lcalpha(system[0]) &&
         all_key_chars(system);
}

// value = 0*255(chr) nblk-chr; chr = %x20 / nblk-chr; nblk-chr = %x21-2B / %x2D-3C / %x3E-7E.
bool valid_value(std::string_view value) {
  if (value.empty() || value.size() > 256 || value.back() == ' ') return false;
  return std::all_of(value.begin(), value.end(),
                     [](char c) { return c >= 0x20 && c <= 0x7e && c != ',' && c != '='; });
}

}  // namespace

std::optional<SpanContext> parse_traceparent(std::string_view header) {
  header = trim_spaces(header);
  if (header.size() < kTraceparentSize) return std::nullopt;
  const std::string_view version = header.substr(0, 2);
  if (!lower_hex(version) || version == "ff") return std::nullopt;
  if (version == "00" ? header.size() != kTraceparentSize
                      : header.size() > kTraceparentSize && header[kTraceparentSize] != '-') {
    return std::nullopt;
  }
  if (header[2] != '-' || header[35] != '-' || header[52] != '-') return std::nullopt;
  const std::string_view flags = header.substr(53, 2);
  auto trace_id = TraceId::from_hex(header.substr(3, 32));
  auto span_id = SpanId::from_hex(header.substr(36, 16));
  if (!trace_id || !span_id || !lower_hex(flags) || trace_id->empty() || span_id->empty()) {
    return std::nullopt;
  }
  const int high = flags[0] <= '9' ? flags[0] - '0' : flags[0] - 'a' + 10;
  const int low = flags[1] <= '9' ? flags[1] - '0' : flags[1] - 'a' + 10;
  SpanContext context;
  context.trace_id = *trace_id;
  context.span_id = *span_id;
  context.flags = static_cast<std::uint8_t>(high << 4 | low);
  // A later version's flags may mean more than version 00 knows: only "sampled" is kept.
  if (version != "00") context.flags &= kSampledFlag;
  return context;
}

void write_traceparent(const TraceId& trace_id, const SpanId& span_id, std::uint8_t flags,
                       char* out) {
  constexpr char kHex[] = "0123456789abcdef";
  out[0] = '0';
  out[1] = '0';
  out[2] = out[35] = out[52] = '-';
  write_hex(trace_id, out + 3);
  write_hex(span_id, out + 36);
  out[53] = kHex[flags >> 4];
  out[54] = kHex[flags & 0xf];
}

std::string format_traceparent(const TraceId& trace_id, const SpanId& span_id, std::uint8_t flags) {
  std::string out(kTraceparentSize, '-');
  write_traceparent(trace_id, span_id, flags, out.data());
  return out;
}

std::string parse_tracestate(std::string_view header) {
  std::vector<std::string_view> members;
  std::vector<std::string_view> keys;
  std::size_t at = 0;
  while (at <= header.size()) {
    const std::size_t comma = std::min(header.find(',', at), header.size());
    const std::string_view member = trim_spaces(header.substr(at, comma - at));
    at = comma + 1;
    if (member.empty()) continue;  // empty list members are allowed
    const std::size_t equals = member.find('=');
    if (equals == std::string_view::npos) return {};
    const std::string_view key = member.substr(0, equals);
    if (!valid_key(key) || !valid_value(member.substr(equals + 1))) return {};
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) return {};
    keys.push_back(key);
    members.push_back(member);
    if (members.size() > kMaxMembers) return {};
  }
  auto joined_size = [&members] {
    std::size_t size = 0;
    for (auto m : members)
      size += m.size() + 1;
    return size == 0 ? 0 : size - 1;
  };
  // Too long: members over 128 characters go first, then members from the end.
  for (std::size_t i = members.size(); i-- > 0 && joined_size() > kMaxTracestate;) {
    if (members[i].size() > kLongMember) members.erase(members.begin() + static_cast<long>(i));
  }
  while (joined_size() > kMaxTracestate)
    members.pop_back();
  std::string out;
  for (auto m : members) {
    if (!out.empty()) out += ',';
    out += m;
  }
  return out;
}

}  // namespace supportd::obs::trace
