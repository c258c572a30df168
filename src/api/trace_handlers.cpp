// GET /v1/traces and GET /v1/traces/{trace_id} (see trace_handlers.h).
#include "api/trace_handlers.h"

#include <algorithm>
#include <charconv>

#include <boost/json.hpp>

#include "api/errors.h"
#include "obs/trace/tracer.h"

namespace supportd::api {
namespace json = boost::json;
namespace trace = obs::trace;
namespace {

constexpr std::int64_t kDefaultListed = 50;

double ms_between(std::int64_t from_ns, std::int64_t to_ns) {
  return static_cast<double>(to_ns - from_ns) / 1e6;
}

json::value value_json(const trace::AttributeValue& value) {
  switch (value.type()) {
    case trace::AttributeValue::Type::kText: return json::value(value.text());
    case trace::AttributeValue::Type::kInteger: return json::value(value.integer());
    case trace::AttributeValue::Type::kNumber: return json::value(value.number());
    case trace::AttributeValue::Type::kFlag: return json::value(value.flag());
    case trace::AttributeValue::Type::kTexts: {
      json::array list;
      for (const auto& item : value.texts())
        list.emplace_back(item);
      return list;
    }
  }
  return nullptr;
}

json::object attributes_json(const std::vector<trace::Attribute>& attributes) {
  json::object out;
  for (const auto& a : attributes)
    out[a.key] = value_json(a.value);
  return out;
}

const char* status_name(trace::StatusCode status) {
  switch (status) {
    case trace::StatusCode::kUnset: return "unset";
    case trace::StatusCode::kOk: return "ok";
    case trace::StatusCode::kError: return "error";
  }
  return "unset";
}

// What every listing and the single trace share.
json::object summary_json(const trace::KeptTrace& t) {
  json::object o{{"trace_id", t.trace_id.hex()},
                 {"root_span_id", t.root_id.hex()},
                 {"name", t.name},
                 {"reason", trace::keep_reason_name(t.reason)},
                 {"start_unix_ms", static_cast<double>(t.start_ns) / 1e6},
                 {"duration_ms", t.duration_ms},
                 {"latency_ms", t.latency_ms},
                 {"status", t.status_code},
                 {"error_type", t.error_type},
                 {"request_id", t.request_id},
                 {"tenant", t.tenant},
                 {"span_count", t.spans.size()},
                 {"dropped_spans", t.dropped_spans}};
  // The root's direct children, in start order: the first level of where the time went.
  std::vector<const trace::SpanRecord*> stages;
  for (const auto& span : t.spans)
    if (span.parent_id == t.root_id && span.span_id != t.root_id) stages.push_back(&span);
  std::stable_sort(stages.begin(), stages.end(),
                   [](auto* a, auto* b) { return a->start_ns < b->start_ns; });
  json::array list;
  for (const auto* span : stages) {
    list.push_back(json::object{{"name", span->name},
                                {"start_ms", ms_between(t.start_ns, span->start_ns)},
                                {"duration_ms", span->duration_ms()}});
  }
  o["stages"] = std::move(list);
  return o;
}

json::object trace_json(const trace::KeptTrace& t) {
  json::object o = summary_json(t);
  std::vector<const trace::SpanRecord*> ordered;
  for (const auto& span : t.spans)
    ordered.push_back(&span);
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](auto* a, auto* b) { return a->start_ns < b->start_ns; });
  json::array spans;
  for (const auto* s : ordered) {
    json::array events;
    for (const auto& e : s->events) {
      events.push_back(json::object{{"name", e.name},
                                    {"time_ms", ms_between(t.start_ns, e.time_ns)},
                                    {"attributes", attributes_json(e.attributes)}});
    }
    json::object span{{"span_id", s->span_id.hex()},
                      {"parent_span_id", s->parent_id.empty() ? "" : s->parent_id.hex()},
                      {"name", s->name},
                      {"kind", trace::span_kind_name(s->kind)},
                      {"start_ms", ms_between(t.start_ns, s->start_ns)},
                      {"duration_ms", s->duration_ms()},
                      {"status", status_name(s->status)},
                      {"attributes", attributes_json(s->attributes)},
                      {"events", std::move(events)}};
    if (!s->status_message.empty()) span["status_message"] = s->status_message;
    spans.push_back(std::move(span));
  }
  o["spans"] = std::move(spans);
  return o;
}

http::Response tracing_off() {
  return error_response(Error::make(ErrorCode::kNotFound, "tracing is off on this server"));
}

}  // namespace

http::Response list_traces(Services& services, http::Request& request) {
  if (services.tracer == nullptr) return tracing_off();
  const trace::TraceRing& ring = services.tracer->ring();
  std::int64_t limit = kDefaultListed;
  if (const auto text = request.query_param("limit")) {
    const char* end = text->data() + text->size();
    const auto [stop, ec] = std::from_chars(text->data(), end, limit);
    const auto most = static_cast<std::int64_t>(ring.capacity());
    if (ec != std::errc() || stop != end || limit < 1 || limit > most) {
      return error_response(Error::invalid(
          "limit must be a whole number from 1 to " + std::to_string(most), "limit"));
    }
  }
  json::array traces;
  for (const auto& kept : ring.recent(static_cast<std::size_t>(limit)))
    traces.push_back(summary_json(*kept));
  const auto& options = services.tracer->options();
  json::object body{{"slow_ms", options.slow_ms},
                    {"sample_ratio", options.sample_ratio},
                    {"exporting", services.tracer->exporter().exporting()},
                    {"capacity", ring.capacity()},
                    {"traces", std::move(traces)}};
  return http::Response::json(200, json::serialize(body));
}

http::Response get_trace(Services& services, http::Request& request) {
  if (services.tracer == nullptr) return tracing_off();
  const auto id = trace::TraceId::from_hex(request.param("trace_id"));
  if (!id) {
    return error_response(Error::invalid("a trace id is 32 lower-case hex digits", "trace_id"));
  }
  const auto kept = services.tracer->ring().find(*id);
  if (kept == nullptr) {
    return error_response(
        Error::make(ErrorCode::kNotFound, "trace " + id->hex() +
                                              " is not kept here (only recent slow or "
                                              "failed requests are; see GET /v1/traces)"));
  }
  return http::Response::json(200, json::serialize(trace_json(*kept)));
}

}  // namespace supportd::api
