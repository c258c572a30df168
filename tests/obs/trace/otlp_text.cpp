// protoc's text format read back into a tree (see otlp_text.h).
#include "otlp_text.h"

#include <gtest/gtest.h>

#include <cctype>
#include <string>

#include "otlp_decode.h"

namespace supportd::testing {
namespace {

class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  // Fields until `}` (nested) or the end (top level).
  bool message(TextMessage& out, bool nested) {
    for (;;) {
      skip_space();
      if (at_ >= text_.size()) return !nested || fail("unexpected end");
      if (text_[at_] == '}') {
        if (!nested) return fail("unbalanced '}'");
        ++at_;
        return true;
      }
      std::string name = identifier();
      if (name.empty()) return fail("expected a field name");
      skip_space();
      if (at_ < text_.size() && text_[at_] == ':') {
        ++at_;
        skip_space();
      }
      if (at_ < text_.size() && text_[at_] == '{') {
        ++at_;
        TextMessage child;
        if (!message(child, true)) return false;
        out.messages.emplace_back(std::move(name), std::move(child));
        continue;
      }
      std::string value;
      if (!scalar(value)) return false;
      out.scalars.emplace_back(std::move(name), std::move(value));
    }
  }

  std::string error;

 private:
  bool fail(const std::string& why) {
    error = why + " at offset " + std::to_string(at_);
    return false;
  }
  void skip_space() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_])))
      ++at_;
  }
  std::string identifier() {
    const std::size_t from = at_;
    while (at_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[at_])) || text_[at_] == '_'))
      ++at_;
    return std::string(text_.substr(from, at_ - from));
  }
  bool scalar(std::string& out) {
    if (at_ < text_.size() && text_[at_] == '"') return quoted(out);
    const std::size_t from = at_;
    while (at_ < text_.size() && !std::isspace(static_cast<unsigned char>(text_[at_])) &&
           text_[at_] != '}')
      ++at_;
    out = text_.substr(from, at_ - from);
    return !out.empty() || fail("expected a value");
  }
  // A C-escaped string as protoc prints it: \n \r \t \" \' \\ and \NNN octal.
  bool quoted(std::string& out) {
    ++at_;
    while (at_ < text_.size() && text_[at_] != '"') {
      char c = text_[at_++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (at_ >= text_.size()) return fail("unfinished escape");
      c = text_[at_++];
      switch (c) {
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        default:
          if (c >= '0' && c <= '7') {
            int value = c - '0';
            for (int i = 0; i < 2 && at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '7';
                 ++i)
              value = value * 8 + (text_[at_++] - '0');
            out += static_cast<char>(value);
          } else {
            out += c;  // \" \' \\ and anything else stand for themselves
          }
      }
    }
    if (at_ >= text_.size()) return fail("unfinished string");
    ++at_;
    return true;
  }

  std::string_view text_;
  std::size_t at_ = 0;
};

std::string hex(const std::string& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

// A fixed64 time as printed; 0 when absent.
long long nanoseconds(const std::string& printed) {
  return printed.empty() ? 0 : std::stoll(printed);
}

// An AnyValue as text: the string itself, a number or bool as printed, a list joined by ','.
std::string any_value(const TextMessage& value) {
  if (!value.scalars.empty()) return value.scalars.front().second;
  for (const TextMessage* list : value.all("array_value")) {
    std::string joined;
    for (const TextMessage* item : list->all("values")) {
      if (!joined.empty()) joined += ',';
      joined += any_value(*item);
    }
    return joined;
  }
  return {};
}

}  // namespace

std::string TextMessage::scalar(std::string_view name) const {
  for (const auto& [key, value] : scalars)
    if (key == name) return value;
  return {};
}

std::vector<const TextMessage*> TextMessage::all(std::string_view name) const {
  std::vector<const TextMessage*> out;
  for (const auto& [key, value] : messages)
    if (key == name) out.push_back(&value);
  return out;
}

std::optional<TextMessage> parse_text_format(std::string_view text, std::string* error) {
  Reader reader(text);
  TextMessage root;
  if (!reader.message(root, false)) {
    if (error != nullptr) *error = reader.error;
    return std::nullopt;
  }
  return root;
}

std::vector<DecodedSpan> decoded_spans(const TextMessage& request) {
  std::vector<DecodedSpan> out;
  for (const TextMessage* resource : request.all("resource_spans")) {
    for (const TextMessage* scope : resource->all("scope_spans")) {
      for (const TextMessage* span : scope->all("spans")) {
        DecodedSpan s;
        s.trace_id = hex(span->scalar("trace_id"));
        s.span_id = hex(span->scalar("span_id"));
        s.parent_span_id = hex(span->scalar("parent_span_id"));
        s.trace_state = span->scalar("trace_state");
        s.name = span->scalar("name");
        s.kind = span->scalar("kind");
        for (const TextMessage* status : span->all("status"))
          s.status_code = status->scalar("code");
        for (const TextMessage* attribute : span->all("attributes")) {
          const auto values = attribute->all("value");
          s.attributes[attribute->scalar("key")] = values.empty() ? "" : any_value(*values[0]);
        }
        for (const TextMessage* event : span->all("events"))
          s.events.push_back(event->scalar("name"));
        for (const TextMessage* link : span->all("links"))
          s.links.push_back(hex(link->scalar("trace_id")) + "-" + hex(link->scalar("span_id")));
        s.start_ns = nanoseconds(span->scalar("start_time_unix_nano"));
        s.end_ns = nanoseconds(span->scalar("end_time_unix_nano"));
        out.push_back(std::move(s));
      }
    }
  }
  return out;
}

std::vector<DecodedSpan> collected_spans(const TestCollector& collector) {
  std::vector<DecodedSpan> spans;
  for (const auto& post : collector.posts()) {
    EXPECT_EQ(post.path, "/v1/traces");
    std::string error;
    auto text = decode_export_request(post.body, &error);
    EXPECT_TRUE(text) << error;
    if (!text) continue;
    auto parsed = parse_text_format(*text, &error);
    EXPECT_TRUE(parsed) << error;
    if (!parsed) continue;
    for (auto& span : decoded_spans(*parsed))
      spans.push_back(std::move(span));
  }
  return spans;
}

}  // namespace supportd::testing
