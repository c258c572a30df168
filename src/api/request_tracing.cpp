// The HTTP SERVER span of each request (see request_tracing.h).
#include "api/request_tracing.h"

#include <algorithm>
#include <functional>
#include <optional>

#include "obs/trace/current.h"
#include "obs/trace/otlp_encoder.h"
#include "obs/trace/tracer.h"

namespace supportd::api {
namespace {

namespace trace = obs::trace;

constexpr std::size_t kMaxRequestId = 128;
// The most attributes a SERVER span gets below: its vector is allocated once.
constexpr std::size_t kRootAttributes = 13;

// A caller's X-Request-Id is kept when it is short and plain (no spaces, quotes or controls).
bool usable_request_id(std::string_view id) {
  return !id.empty() && id.size() <= kMaxRequestId && std::all_of(id.begin(), id.end(), [](char c) {
    return c > 0x20 && c < 0x7f && c != '"' && c != '\\';
  });
}

// The peer's address without its port ("127.0.0.1:5678" -> "127.0.0.1", "[::1]:5678" -> "::1").
std::string_view client_address(std::string_view remote) {
  const std::size_t colon = remote.rfind(':');
  if (colon == std::string_view::npos) return remote;
  std::string_view address = remote.substr(0, colon);
  if (address.size() >= 2 && address.front() == '[')
    address = address.substr(1, address.size() - 2);
  return address;
}

class TracedRequest final : public http::RequestWatch {
 public:
  TracedRequest(trace::Tracer& tracer, const http::Request& request, const std::string& scheme)
      : tracer_(tracer), request_(request), scheme_(scheme) {
    // Two traceparent headers are as good as none (W3C: restart the trace). One pass over the
    // headers (names are lower case) finds the three this reads.
    std::string_view parent, given_id;
    int parents = 0;
    std::string state;
    for (const auto& [name, value] : request.headers) {
      if (name == std::string_view("traceparent")) {
        parent = value;
        ++parents;
      } else if (name == std::string_view("tracestate")) {
        if (!state.empty()) state += ',';
        state += value;
      } else if (name == std::string_view("x-request-id") && given_id.empty()) {
        given_id = value;
      }
    }
    trace_ = tracer.start(parents == 1 ? parent : std::string_view(), state);
    // Without a usable X-Request-Id of the caller's the request's id is its root span's.
    if (usable_request_id(given_id)) trace_->set_request_id(std::string(given_id));
    scope_.emplace(trace_.get(), trace::SpanId{});
  }

  ~TracedRequest() override {
    if (!ended_) ended(http::Exchange{});  // the connection failed before the end
  }

  void handled(http::Response&) override { scope_.reset(); }

  // traceparent and X-Request-Id, written straight into the head.
  void write_fields(std::string& head) const override {
    constexpr std::string_view kParent = "traceparent: ", kId = "\r\nX-Request-Id: ";
    const std::string& given = trace_->given_request_id();  // checked: printable, no CR or LF
    const std::size_t id_size = given.empty() ? 2 * trace::SpanId::kSize : given.size();
    const std::size_t at = head.size();
    head.resize(at + kParent.size() + trace::kTraceparentSize + kId.size() + id_size + 2);
    char* out = head.data() + at;
    out = std::copy(kParent.begin(), kParent.end(), out);
    trace::write_traceparent(trace_->trace_id(), trace_->root_id(),
                             trace_->sampled() ? trace::kSampledFlag : 0, out);
    out = std::copy(kId.begin(), kId.end(), out + trace::kTraceparentSize);
    if (given.empty()) {
      trace::write_hex(trace_->root_id(), out);
    } else {
      std::copy(given.begin(), given.end(), out);
    }
    out += id_size;
    out[0] = '\r';
    out[1] = '\n';
  }

  void ended(const http::Exchange& exchange) override {
    ended_ = true;
    scope_.reset();
    const std::int64_t start_ns = trace_->start_ns(), end_ns = trace_->now_ns();
    // HTTP conventions: error.type for every 4xx and 5xx, the error status for a 5xx only (a
    // 4xx is the caller's fault, not the server's). Either is kept as a failed request, so a
    // refusal (429, 503, a 400) is in the ring an operator looks at.
    if (exchange.status >= 400) trace_->mark_failed();
    if (exchange.streamed && exchange.first_byte != std::chrono::steady_clock::time_point{}) {
      // A stream's latency is how long its first byte took; the rest is its length.
      trace_->set_latency_ms(static_cast<double>(trace_->unix_ns(exchange.first_byte) - start_ns) /
                             1e6);
    }
    const double latency_ms = trace_->latency_ms() >= 0
                                  ? trace_->latency_ms()
                                  : static_cast<double>(end_ns - start_ns) / 1e6;
    // A trace nobody will read (dropped, or refused by a full export queue) ends here, its
    // SERVER span never made: most of what a dropped request's tracing costs. One only the
    // exporter will read has its SERVER span encoded as it is described, straight into the
    // export batch, never made as a record.
    const auto encode_root = [&](trace::ProtobufWriter& out, const trace::ExportedTrace& ids) {
      const trace::RequestTrace::Labels labels = trace_->labels();
      const std::string_view name = root_name(labels);
      trace::SpanEncoder root(out, ids, trace_->root_id(), trace_->remote_parent(), name,
                              trace::SpanKind::kServer, start_ns, end_ns);
      describe(root, name, labels.tenant, exchange, end_ns);
      root.finish();
    };
    if (tracer_.end_early(*trace_, latency_ms, {.count = 1, .write = std::cref(encode_root)}))
      return;
    const trace::RequestTrace::Labels labels = trace_->labels();
    const std::string_view name = root_name(labels);
    trace::SpanRecord root = trace_->begin_root(std::string(name), trace::SpanKind::kServer);
    root.end_ns = end_ns;
    root.attributes.reserve(kRootAttributes);
    describe(root, name, labels.tenant, exchange, end_ns);
    trace_->add(std::move(root));
    trace_->end_part();
  }

 private:
  // The SERVER span's name: the route's ("POST /v1/answer") once one matched, else the method,
  // or "HTTP" when that is not known (an answer given before the request line was read whole).
  std::string_view root_name(const trace::RequestTrace::Labels& labels) const {
    if (!labels.route.empty()) return labels.route;
    return request_.method.empty() ? std::string_view("HTTP") : std::string_view(request_.method);
  }

  // The SERVER span's attributes, status and events, into a record or an encoder (the same
  // calls). `name`: the span's ("POST /v1/answer" once a route matched).
  template <typename Span>
  void describe(Span& root, std::string_view name, const std::string& tenant,
                const http::Exchange& exchange, std::int64_t end_ns) const {
    if (!request_.method.empty()) root.set("http.request.method", request_.method);
    if (!request_.path.empty()) root.set("url.path", request_.path);
    root.set("url.scheme", scheme_);
    if (const std::size_t space = name.find(' '); space != std::string_view::npos)
      root.set("http.route", name.substr(space + 1));
    root.set("network.protocol.version", "1.1");
    root.set("client.address", client_address(request_.remote));
    if (const auto agent = request_.header("user-agent"); !agent.empty())
      root.set("user_agent.original", agent);
    if (exchange.status != 0) root.set("http.response.status_code", exchange.status);
    if (exchange.body_bytes > 0)
      root.set("http.response.body.size", static_cast<std::int64_t>(exchange.body_bytes));
    if (!tenant.empty()) root.set("supportd.tenant", tenant);
    // A request id of its own is the span's id: said once, by the span.
    if (trace_->has_given_request_id()) root.set("supportd.request_id", trace_->request_id());
    if (exchange.status >= 500) {
      root.fail(std::to_string(exchange.status), "");
    } else if (exchange.status >= 400) {
      root.set("error.type", std::to_string(exchange.status));
    }
    if (!exchange.written) root.event(end_ns, "client went away");
  }

  trace::Tracer& tracer_;
  const http::Request& request_;
  const std::string scheme_;  // url.scheme: "http" or "https"
  std::shared_ptr<trace::RequestTrace> trace_;
  std::optional<trace::Scope> scope_;
  bool ended_ = false;
};

}  // namespace

http::RequestWatcher make_request_watcher(trace::Tracer& tracer, std::string scheme) {
  return [&tracer, scheme = std::move(scheme)](
             http::Request& request) -> std::unique_ptr<http::RequestWatch> {
    return std::make_unique<TracedRequest>(tracer, request, scheme);
  };
}

void name_route(const http::Request&, const std::string& route_name) {
  if (trace::RequestTrace* current = trace::current().trace) current->set_route(route_name);
}

void tag_tenant(const std::string& tenant) {
  if (trace::RequestTrace* current = trace::current().trace) current->set_tenant(tenant);
}

}  // namespace supportd::api
