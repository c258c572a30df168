// One finished span as plain data: what the OTLP encoder writes, the ring of kept traces
// shows, and the slow-request line reads. Every span of a request shares its trace's id
// (RequestTrace); times are Unix nanoseconds.
// Attribute and event keys are string literals (static storage): spans are made on request
// paths, and a literal key costs no allocation. Values are copied.
// Thread-safety: a plain value; one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "obs/trace/ids.h"

namespace supportd::obs::trace {

// OTLP's Span.SpanKind values.
enum class SpanKind : std::uint8_t {
  kInternal = 1,
  kServer = 2,
  kClient = 3,
  kProducer = 4,
  kConsumer = 5,
};
const char* span_kind_name(SpanKind kind);  // "internal", "server", ...

// OTLP's Status.StatusCode values.
enum class StatusCode : std::uint8_t { kUnset = 0, kOk = 1, kError = 2 };

// One of OTLP's AnyValue kinds: a string, an integer, a double, a boolean or a list of strings.
// Compact (40 bytes): a SERVER span holds a dozen, made and moved on every request's path.
class AttributeValue {
 public:
  enum class Type : std::uint8_t { kText, kInteger, kNumber, kFlag, kTexts };  // as Value's order

  AttributeValue() = default;
  static AttributeValue of(std::string value) { return AttributeValue(std::move(value)); }
  static AttributeValue of(std::int64_t value) { return AttributeValue(value); }
  static AttributeValue of(double value) { return AttributeValue(value); }
  static AttributeValue of(bool value) { return AttributeValue(value); }
  static AttributeValue of(std::vector<std::string> value) {
    return AttributeValue(std::make_shared<const std::vector<std::string>>(std::move(value)));
  }

  Type type() const { return static_cast<Type>(value_.index()); }
  // The value; REQUIRES: type() is its kind.
  const std::string& text() const { return std::get<std::string>(value_); }
  std::int64_t integer() const { return std::get<std::int64_t>(value_); }
  double number() const { return std::get<double>(value_); }
  bool flag() const { return std::get<bool>(value_); }
  const std::vector<std::string>& texts() const { return *std::get<Texts>(value_); }
  // The value when it is of that kind, else nullptr.
  const std::string* if_text() const { return std::get_if<std::string>(&value_); }
  const std::int64_t* if_integer() const { return std::get_if<std::int64_t>(&value_); }

 private:
  // A list is rare (finish reasons): held by a pointer, shared by copies (inline, a vector
  // would make every value larger, and GCC 12 warns on variants that hold one).
  using Texts = std::shared_ptr<const std::vector<std::string>>;
  using Value = std::variant<std::string, std::int64_t, double, bool, Texts>;
  template <typename T>
  explicit AttributeValue(T&& value) : value_(std::forward<T>(value)) {}
  Value value_;
};

// `key` names a string literal (static storage): no copy, no allocation, its length known.
struct Attribute {
  std::string_view key;
  AttributeValue value;
};

struct SpanEvent {
  std::int64_t time_ns = 0;
  const char* name = "";  // a string literal
  std::vector<Attribute> attributes;
};

// Another trace's span this one follows from (a WebSocket message's turn links to the
// handshake that opened the socket).
struct SpanLink {
  TraceId trace_id;
  SpanId span_id;
};

struct SpanRecord {
  SpanId span_id;
  SpanId parent_id;  // empty: the trace's root, or the remote caller's span is the parent
  std::string name;
  SpanKind kind = SpanKind::kInternal;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::vector<Attribute> attributes;
  std::vector<SpanEvent> events;
  std::optional<SpanLink> link;
  StatusCode status = StatusCode::kUnset;
  std::string status_message;

  // Adds an attribute (a key set twice keeps both; the last one wins for readers).
  void set(const char* key, std::string_view value) {
    attributes.push_back({key, AttributeValue::of(std::string(value))});
  }
  void set(const char* key, const char* value) { set(key, std::string_view(value)); }
  void set(const char* key, std::string&& value) {
    attributes.push_back({key, AttributeValue::of(std::move(value))});
  }
  void set(const char* key, std::int64_t value) {
    attributes.push_back({key, AttributeValue::of(value)});
  }
  void set(const char* key, int value) { set(key, static_cast<std::int64_t>(value)); }
  void set(const char* key, double value) {
    attributes.push_back({key, AttributeValue::of(value)});
  }
  void set(const char* key, bool value) { attributes.push_back({key, AttributeValue::of(value)}); }
  void set(const char* key, std::vector<std::string> value) {
    attributes.push_back({key, AttributeValue::of(std::move(value))});
  }
  // Adds an event at `time_ns` (`name` a string literal).
  void event(std::int64_t time_ns, const char* name, std::vector<Attribute> event_attributes = {}) {
    events.push_back({time_ns, name, std::move(event_attributes)});
  }
  // Status error with `message`, and the attribute error.type (a low-cardinality kind, e.g.
  // "deadline_exceeded", "500").
  void fail(std::string_view error_type, std::string_view message);
  // The value of attribute `key` (the last set), or nullptr.
  const AttributeValue* find(std::string_view key) const;
  double duration_ms() const { return static_cast<double>(end_ns - start_ns) / 1e6; }
};

}  // namespace supportd::obs::trace
