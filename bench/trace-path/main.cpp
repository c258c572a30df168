// What tracing adds to one request, measured without a network, a model or wrk: the FAQ fast
// path's tracing as the server runs it (the request watcher's SERVER span, the route and
// tenant, the desk's "faq" stage span, the response's two headers, the end-of-request decision
// and the hand-off to the exporter), per request, with its heap allocations counted.
// bench/trace-cost measures the whole server under wrk; this isolates the tracer's own share so
// that a change to it can be judged in seconds, beside the configuration it changes.
// Arms (google-benchmark names):
//   TracedRequest/off       no watcher: the baseline (the response alone)
//   TracedRequest/dropped   tracing on, sampler at 0: spans built, then freed
//   TracedRequest/kept      sampled, no exporter: the decision, nothing encoded
//   TracedRequest/dead      sampled, exporter at a port nothing listens on (queue full: refused)
//   TracedRequest/exported  sampled, exporter to an in-process HTTP sink on 127.0.0.1
//   usage: trace_path [google-benchmark flags]   (bench/trace-path/run builds and runs it)
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>

#include <benchmark/benchmark.h>

#include "api/request_tracing.h"
#include "core/http_url.h"
#include "http/server.h"
#include "obs/trace/current.h"
#include "obs/trace/tracer.h"

// Every heap allocation of this process, counted (the arms report allocations per request).
namespace {
std::atomic<std::uint64_t> allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

namespace supportd {
namespace {

namespace trace = obs::trace;

// The collector: supportd's own HTTP server answering every POST with 200 and an empty body,
// on its own thread. What a collector does with the bytes is not the server's cost.
std::unique_ptr<http::Server> start_sink() {
  http::ServerOptions options;
  options.port = 0;
  options.body_limit = 64u << 20;  // a batch of 2,048 spans is about 1 MB
  auto sink = std::make_unique<http::Server>(
      options, [](http::Request&) { return http::Response::text(200, ""); });
  if (Status started = sink->start(); !started) {
    std::fprintf(stderr, "trace_path: the sink: %s\n", started.error().message.c_str());
    std::exit(1);
  }
  return sink;
}

// A port nothing listens on: bound, never listened, so connections are refused at once.
int dead_port() {
  static const int port = [] {
    const int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    ::bind(s, reinterpret_cast<sockaddr*>(&address), length);
    ::getsockname(s, reinterpret_cast<sockaddr*>(&address), &length);
    return static_cast<int>(ntohs(address.sin_port));  // the socket stays open: the port stays ours
  }();
  return port;
}

trace::ExporterOptions exporter_at(int port) {
  trace::ExporterOptions options;
  options.url =
      parse_http_url("http://127.0.0.1:" + std::to_string(port) + "/v1/traces", "url").value();
  return options;
}

// One FAQ request's tracing, in the server's order of calls; without a watcher (tracing off)
// what is left is the request's own work here (its response), the arms' common baseline.
void traced_request(const http::RequestWatcher& watcher, http::Request& request,
                    const std::string& answer) {
  std::unique_ptr<http::RequestWatch> watch = watcher ? watcher(request) : nullptr;
  api::name_route(request, "/v1/answer");
  api::tag_tenant("default");
  if (const trace::Current& current = trace::current(); current.trace != nullptr) {
    // The desk's "faq" stage (desk/stage_timer.h): a child of the current span.
    auto owner = current.trace->shared_from_this();
    trace::SpanRecord span = owner->begin_span("faq", current.span);
    span.end_ns = owner->now_ns();
    owner->add(std::move(span));
  }
  http::Response response = http::Response::json(200, answer);
  std::string head;  // where the connection writes the watch's fields (traceparent, X-Request-Id)
  if (watch) {
    watch->handled(response);
    watch->write_fields(head);
  }
  http::Exchange exchange;
  exchange.status = 200;
  exchange.written = true;
  exchange.body_bytes = response.body.size();
  if (watch) watch->ended(exchange);
  benchmark::DoNotOptimize(response);
  benchmark::DoNotOptimize(head);
}

enum Arm { kOff, kDropped, kKept, kDead, kExported };

void TracedRequest(benchmark::State& state, Arm arm) {
  std::unique_ptr<http::Server> sink;
  trace::TracerOptions options;
  options.sample_ratio = arm == kDropped ? 0.0 : 1.0;
  options.slow_ms = 0;
  if (arm == kDead) options.exporter = exporter_at(dead_port());
  if (arm == kExported) {
    sink = start_sink();
    options.exporter = exporter_at(sink->port());
  }
  options.resource.attributes.emplace_back("service.name",
                                           trace::AttributeValue::of(std::string("supportd")));
  trace::Tracer tracer(std::move(options), nullptr);
  const http::RequestWatcher watcher =
      arm == kOff ? http::RequestWatcher() : api::make_request_watcher(tracer);

  http::Request request;
  request.method = "POST";
  request.target = request.path = "/v1/answer";
  request.remote = "127.0.0.1:51234";
  request.headers = {
      {"host", "127.0.0.1:8080"}, {"content-type", "application/json"}, {"content-length", "52"}};
  const std::string answer(420, 'a');  // about a FAQ answer's JSON

  if (arm == kDead) {  // until the queue is full, as it is once a collector has been away
    for (int i = 0; i < 20000; ++i)
      traced_request(watcher, request, answer);
  }
  const std::uint64_t allocations_before = allocations.load();
  for (auto _ : state)
    traced_request(watcher, request, answer);
  state.counters["allocations"] =
      benchmark::Counter(static_cast<double>(allocations.load() - allocations_before) /
                         static_cast<double>(state.iterations()));
  tracer.shutdown(std::chrono::seconds(2));
}

BENCHMARK_CAPTURE(TracedRequest, off, kOff);
BENCHMARK_CAPTURE(TracedRequest, dropped, kDropped);
BENCHMARK_CAPTURE(TracedRequest, kept, kKept);
BENCHMARK_CAPTURE(TracedRequest, dead, kDead);
BENCHMARK_CAPTURE(TracedRequest, exported, kExported);

}  // namespace
}  // namespace supportd

BENCHMARK_MAIN();
