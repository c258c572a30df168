// Reading protoc's text format (what `protoc --decode` prints with the official OTLP
// definitions) back into a tree, and the spans of an ExportTraceServiceRequest from it, so that
// tests check the span tree field by field. Only protoc decodes the protobuf; this reads its
// printout.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace supportd::testing {

// One message: its scalar fields (strings unescaped, numbers and enum names as printed) and
// its message fields, each in the order printed (repeated fields appear several times).
struct TextMessage {
  std::vector<std::pair<std::string, std::string>> scalars;
  std::vector<std::pair<std::string, TextMessage>> messages;

  // The first scalar `name`, or empty.
  std::string scalar(std::string_view name) const;
  // Every message field `name`.
  std::vector<const TextMessage*> all(std::string_view name) const;
};

// nullopt (with the reason in `error`) when `text` is not well-formed text format.
std::optional<TextMessage> parse_text_format(std::string_view text, std::string* error);

// A span as exported, ids in lower-case hex ("" for an empty parent).
struct DecodedSpan {
  std::string trace_id;
  std::string span_id;
  std::string parent_span_id;
  std::string trace_state;
  std::string name;
  std::string kind;                               // "SPAN_KIND_SERVER", ...
  std::string status_code;                        // "STATUS_CODE_ERROR", or "" when unset
  std::map<std::string, std::string> attributes;  // values as text; a list joined with ','
  std::vector<std::string> events;                // names, in order
  std::vector<std::string> links;                 // "<trace id>-<span id>" each, in order
  long long start_ns = 0;
  long long end_ns = 0;
};

// Every span of every resource and scope of a decoded ExportTraceServiceRequest.
std::vector<DecodedSpan> decoded_spans(const TextMessage& request);

class TestCollector;
// Every span of every POST `collector` received, each decoded by protoc and read back; a POST
// that does not decode fails the running test.
std::vector<DecodedSpan> collected_spans(const TestCollector& collector);

}  // namespace supportd::testing
