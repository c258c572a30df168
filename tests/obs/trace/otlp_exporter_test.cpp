// The background exporter against a collector on loopback: batches POSTed as protobuf to
// /v1/traces (several threads' spans each once), 503 then 200 retried, what is not retried, a dead
// endpoint that blocks nobody and counts what it drops, and the flush at shutdown.
#include "obs/trace/otlp_exporter.h"

#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "otlp_decode.h"

namespace supportd::obs::trace {
namespace {

using namespace std::chrono_literals;

ExportedTrace one_trace(int spans, const std::string& name = "stage") {
  ExportedTrace trace;
  trace.trace_id = random_trace_id();
  for (int i = 0; i < spans; ++i) {
    SpanRecord span;
    span.span_id = random_span_id();
    span.name = name;
    span.start_ns = 1;
    span.end_ns = 2;
    trace.spans.push_back(std::move(span));
  }
  trace.root_id = trace.spans.front().span_id;
  return trace;
}

ExporterOptions to(const std::string& base_url) {
  auto url = parse_http_url(base_url + "/v1/traces", "test");
  EXPECT_TRUE(url);
  ExporterOptions o;
  o.url = *url;
  o.first_backoff = 10ms;
  o.max_backoff = 20ms;
  return o;
}

std::unique_ptr<OtlpExporter> exporter(ExporterOptions options, obs::Registry* registry = nullptr) {
  return std::make_unique<OtlpExporter>(std::move(options), Resource{}, InstrumentationScope{},
                                        registry, [] {});
}

// A port on loopback where nothing listens.
std::string dead_endpoint() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  socklen_t size = sizeof address;
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
  close(fd);
  return "http://127.0.0.1:" + std::to_string(ntohs(address.sin_port));
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

// Each POST's body decoded by protoc with the official definitions (a failure is reported and
// leaves an empty text).
std::vector<std::string> decoded_posts(const std::vector<testing::TestCollector::Post>& posts) {
  std::vector<std::string> texts;
  for (const auto& post : posts) {
    std::string error;
    auto text = testing::decode_export_request(post.body, &error);
    if (!text) ADD_FAILURE() << error;
    texts.push_back(text ? *text : std::string());
  }
  return texts;
}

TEST(OtlpExporter, PostsBatchesOfProtobufToV1Traces) {
  if (auto why = testing::otlp_decoding_unavailable(); !why.empty()) GTEST_SKIP() << why;
  testing::TestCollector collector;
  auto options = to(collector.url());
  options.max_batch_spans = 4;
  options.delay = 1h;  // only full batches go before shutdown
  auto e = exporter(options);
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(e->enqueue(one_trace(2, "stage" + std::to_string(i))));
  e->shutdown(10s);
  const auto posts = collector.posts();
  ASSERT_EQ(posts.size(), 3u);  // 4 + 4 spans in full batches, the last 2 flushed at shutdown
  for (const auto& post : posts) {
    EXPECT_EQ(post.path, "/v1/traces");
    EXPECT_EQ(post.content_type, "application/x-protobuf");
  }
  std::string all;
  for (const auto& text : decoded_posts(posts))
    all += text;
  EXPECT_EQ(count(all, "  spans {"), 10u);
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(count(all, "name: \"stage" + std::to_string(i) + "\""), 2u);
  EXPECT_EQ(e->exported_spans(), 10);
  EXPECT_EQ(e->dropped_spans(), 0);
}

// "t<thread>-<trace>" (appended piece by piece: GCC 12 warns wrongly on a chain of +).
std::string thread_trace_name(int thread, int trace) {
  std::string name = "t";
  name += std::to_string(thread);
  name += '-';
  name += std::to_string(trace);
  return name;
}

TEST(OtlpExporter, EachThreadFillsItsOwnBatchAndEverySpanLeavesOnce) {
  if (auto why = testing::otlp_decoding_unavailable(); !why.empty()) GTEST_SKIP() << why;
  testing::TestCollector collector;
  auto options = to(collector.url());
  options.max_batch_spans = 16;
  options.delay = 1h;  // the open batches leave at shutdown
  auto e = exporter(options);
  constexpr int kThreads = 4, kTraces = 50;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&e, t] {
      for (int i = 0; i < kTraces; ++i)
        EXPECT_TRUE(e->enqueue(one_trace(2, thread_trace_name(t, i))));
    });
  }
  for (auto& thread : threads)
    thread.join();  // their lanes outlive them: the exporter forgets a lane only once emptied
  e->shutdown(10s);
  std::string all;
  for (const auto& text : decoded_posts(collector.posts())) {
    all += text;
    // A batch is one thread's: 16 spans of 8 traces, or what was open at shutdown.
    EXPECT_LE(count(text, "  spans {"), 16u);
  }
  EXPECT_EQ(count(all, "  spans {"), 2u * kThreads * kTraces);
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kTraces; ++i)
      EXPECT_EQ(count(all, "name: \"" + thread_trace_name(t, i) + "\""), 2u);
  }
  EXPECT_EQ(e->exported_spans(), 2 * kThreads * kTraces);
  EXPECT_EQ(e->dropped_spans(), 0);
}

TEST(OtlpExporter, RetriesA503ThenSucceeds) {
  testing::TestCollector collector;
  collector.answer_next({{503, "0"}, {429, ""}});
  auto e = exporter(to(collector.url()));
  ASSERT_TRUE(e->enqueue(one_trace(3)));
  e->shutdown(10s);
  const auto posts = collector.posts();
  ASSERT_EQ(posts.size(), 3u);
  EXPECT_EQ(posts[0].body, posts[2].body);
  EXPECT_EQ(e->retries(), 2);
  EXPECT_EQ(e->exported_spans(), 3);
  EXPECT_EQ(e->dropped_spans(), 0);
}

TEST(OtlpExporter, DoesNotRetryARefusalAndHonoursALongRetryAfter) {
  testing::TestCollector collector;
  collector.answer_next({{400, ""}, {503, "3600"}});
  auto options = to(collector.url());
  options.max_batch_spans = 1;
  options.timeout = 2s;
  obs::Registry registry;
  auto e = exporter(options, &registry);
  ASSERT_TRUE(e->enqueue(one_trace(1)));  // refused with 400: not retried
  ASSERT_TRUE(e->enqueue(one_trace(1)));  // 503 for an hour: past the batch's time, dropped
  e->shutdown(10s);
  EXPECT_EQ(collector.posts().size(), 2u);
  EXPECT_EQ(e->retries(), 0);
  EXPECT_EQ(e->dropped_spans(), 2);
  EXPECT_NE(
      registry.expose().find("supportd_trace_spans_dropped_total{reason=\"export_failed\"} 2"),
      std::string::npos);
}

TEST(OtlpExporter, ADeadEndpointBlocksNobodyAndCountsWhatItDrops) {
  auto options = to(dead_endpoint());
  options.max_queue_spans = 100;
  options.max_batch_spans = 50;
  options.timeout = 300ms;
  obs::Registry registry;
  auto e = exporter(options, &registry);
  int accepted = 0;
  for (int i = 0; i < 1000; ++i)
    accepted += e->enqueue(one_trace(1)) ? 1 : 0;
  EXPECT_GE(accepted, 100);   // the queue's room at least...
  EXPECT_LT(accepted, 1000);  // ...but never everything: the rest was refused, not waited for
  e->shutdown(500ms);
  EXPECT_EQ(e->exported_spans(), 0);
  EXPECT_EQ(e->dropped_spans(), 1000);  // every span counted: queue full, failed, or shutdown
  const std::string metrics = registry.expose();
  EXPECT_NE(metrics.find("supportd_trace_spans_dropped_total{reason=\"queue_full\"} " +
                         std::to_string(1000 - accepted)),
            std::string::npos)
      << metrics;
}

TEST(OtlpExporter, AShutdownDuringRetriesGivesTheBatchUpAtItsBound) {
  // A batch already retrying when the shutdown came: its timeout (1 minute) is far beyond the
  // shutdown's bound. Past the bound it is dropped, not retried in a loop until its timeout.
  auto options = to(dead_endpoint());
  options.delay = 1ms;
  options.timeout = 1min;
  options.first_backoff = 50ms;
  options.max_backoff = 50ms;
  auto e = exporter(options);
  ASSERT_TRUE(e->enqueue(one_trace(3)));
  while (e->retries() == 0)  // the batch left and failed once: it is in its retry loop
    std::this_thread::sleep_for(5ms);
  const auto started = std::chrono::steady_clock::now();
  e->shutdown(200ms);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 30s);  // not the batch's minute
  EXPECT_EQ(e->dropped_spans(), 3);
  // About one retry per 50 ms backoff while the shutdown's bound ran, not one per refused
  // connection (thousands).
  EXPECT_LT(e->retries(), 40);
}

TEST(OtlpExporter, ShutdownFlushesWhatIsQueued) {
  testing::TestCollector collector;
  auto options = to(collector.url());
  options.delay = 1h;
  options.max_batch_spans = 1000;
  auto e = exporter(options);
  ASSERT_TRUE(e->enqueue(one_trace(5)));
  EXPECT_TRUE(collector.posts().empty());  // nothing is due yet
  e->shutdown(10s);
  EXPECT_EQ(collector.posts().size(), 1u);
  EXPECT_EQ(e->exported_spans(), 5);
  EXPECT_FALSE(e->enqueue(one_trace(1)));  // stopped
}

TEST(OtlpExporter, APartialBatchGoesAfterTheDelay) {
  testing::TestCollector collector;
  auto options = to(collector.url());
  options.delay = 20ms;
  auto e = exporter(options);
  ASSERT_TRUE(e->enqueue(one_trace(1)));
  for (int i = 0; i < 1000 && collector.posts().empty(); ++i)
    std::this_thread::sleep_for(10ms);
  EXPECT_EQ(collector.posts().size(), 1u);  // sent without a shutdown or a full batch
  e->shutdown(10s);
}

}  // namespace
}  // namespace supportd::obs::trace
