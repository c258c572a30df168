// A request's trace from start to the keep decision: parts, scoped spans across threads, the
// tail rule (failed or slow requests kept whatever the sampler said), the ring, the counters.
#include "obs/trace/tracer.h"

#include <gtest/gtest.h>

#include <thread>

#include "core/http_url.h"
#include "obs/trace/current.h"
#include "obs/trace/slow_log.h"

namespace supportd::obs::trace {
namespace {

constexpr const char* kCaller = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

TracerOptions options(double ratio, double slow_ms) {
  TracerOptions o;
  o.sample_ratio = ratio;
  o.slow_ms = slow_ms;
  o.ring_traces = 4;
  return o;
}

double counted(const obs::Registry& registry, const std::string& kept) {
  const std::string text = registry.expose();
  const std::string key = "supportd_traces_total{kept=\"" + kept + "\"} ";
  const auto at = text.find(key);
  return at == std::string::npos ? -1 : std::stod(text.substr(at + key.size()));
}

// Ends a request whose root span lasted `ms` and may have failed.
void end_request(RequestTrace& trace, std::int64_t ms, bool failed = false) {
  SpanRecord root = trace.begin_root("POST /v1/answer", SpanKind::kServer);
  root.end_ns = root.start_ns + ms * 1000000;
  root.set("http.response.status_code", failed ? 500 : 200);
  if (failed) root.fail("500", "internal error");
  trace.add(std::move(root));
  trace.end_part();
}

TEST(Tracer, ContinuesAValidCallerAndStartsOtherwise) {
  Tracer tracer(options(0, 0), nullptr);
  auto continued = tracer.start(kCaller, "rojo=1,Bad");
  EXPECT_EQ(continued->trace_id().hex(), "0af7651916cd43dd8448eb211c80319c");
  EXPECT_EQ(continued->remote_parent().hex(), "b7ad6b7169203331");
  EXPECT_TRUE(continued->sampled());       // the caller's decision, whatever the ratio (0)
  EXPECT_EQ(continued->tracestate(), "");  // invalid: dropped
  EXPECT_NE(continued->root_id(), continued->remote_parent());
  EXPECT_EQ(continued->traceparent(),
            "00-0af7651916cd43dd8448eb211c80319c-" + continued->root_id().hex() + "-01");
  auto with_state = tracer.start(kCaller, "rojo=1");
  EXPECT_EQ(with_state->tracestate(), "rojo=1");
  auto fresh = tracer.start("00-garbage", "rojo=1");
  EXPECT_NE(fresh->trace_id().hex(), "0af7651916cd43dd8448eb211c80319c");
  EXPECT_FALSE(fresh->has_remote_parent());
  EXPECT_FALSE(fresh->sampled());
  EXPECT_EQ(fresh->tracestate(), "");
  EXPECT_TRUE(fresh->traceparent().ends_with("-00"));
  for (auto* t : {&continued, &with_state, &fresh})
    (*t)->end_part();
}

TEST(Tracer, KeepsFailedAndSlowRequestsWhateverTheSampler) {
  obs::Registry registry;
  Tracer tracer(options(0, 100), &registry);
  auto fast = tracer.start("", "");
  auto slow = tracer.start("", "");
  auto failed = tracer.start("", "");
  end_request(*fast, 5);
  end_request(*slow, 250);
  end_request(*failed, 5, true);
  const auto kept = tracer.ring().recent(10);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0]->trace_id, failed->trace_id());  // newest first
  EXPECT_EQ(kept[0]->reason, KeepReason::kError);
  EXPECT_EQ(kept[0]->status_code, 500);
  EXPECT_EQ(kept[0]->error_type, "500");
  EXPECT_EQ(kept[1]->trace_id, slow->trace_id());
  EXPECT_EQ(kept[1]->reason, KeepReason::kSlow);
  EXPECT_NEAR(kept[1]->duration_ms, 250, 1e-6);
  EXPECT_EQ(tracer.ring().find(fast->trace_id()), nullptr);
  EXPECT_EQ(counted(registry, "dropped"), 1);
  EXPECT_EQ(counted(registry, "slow"), 1);
  EXPECT_EQ(counted(registry, "error"), 1);
  EXPECT_EQ(counted(registry, "sampled"), 0);
}

TEST(Tracer, KeepsARefusalAsFailedWithItsErrorTypeButNoErrorStatus) {
  Tracer tracer(options(0, 0), nullptr);
  auto refused = tracer.start("", "");
  // What api/request_tracing.cpp does for a 4xx: error.type without the error status.
  SpanRecord root = refused->begin_root("POST /v1/chat/completions", SpanKind::kServer);
  root.end_ns = root.start_ns + 1000;
  root.set("http.response.status_code", 429);
  root.set("error.type", "429");
  refused->add(std::move(root));
  refused->mark_failed();
  refused->end_part();
  const auto kept = tracer.ring().find(refused->trace_id());
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(kept->reason, KeepReason::kError);
  EXPECT_EQ(kept->status_code, 429);
  EXPECT_EQ(kept->error_type, "429");
  ASSERT_EQ(kept->spans.size(), 1u);
  EXPECT_EQ(kept->spans[0].status, StatusCode::kUnset);
}

TEST(Tracer, FollowsAnotherTracesSpanInATraceOfItsOwnSampledAsItWas) {
  Tracer tracer(options(0, 0), nullptr);
  auto handshake = tracer.start(kCaller, "");
  SpanContext from{handshake->trace_id(), handshake->root_id(), kSampledFlag, {}};
  auto message = tracer.start_following(from);
  EXPECT_NE(message->trace_id(), handshake->trace_id());
  EXPECT_FALSE(message->has_remote_parent());
  EXPECT_TRUE(message->sampled());  // the ratio is 0: only the handshake's flag samples it
  from.flags = 0;
  auto unsampled = tracer.start_following(from);
  EXPECT_FALSE(unsampled->sampled());
  for (auto* t : {&handshake, &message, &unsampled})
    (*t)->end_part();
}

TEST(Tracer, ComparesTheLatencyTheOwnerSetsWithTheSlowThreshold) {
  Tracer tracer(options(0, 100), nullptr);
  auto stream = tracer.start("", "");
  stream->set_latency_ms(20);  // first byte early, a long stream after it: not slow
  end_request(*stream, 5000);
  EXPECT_EQ(tracer.ring().size(), 0u);
}

TEST(Tracer, FinishesWhenTheLastPartEnds) {
  Tracer tracer(options(0, 0), nullptr);
  auto trace = tracer.start("", "");
  trace->open_part();  // work that outlives the exchange
  trace->mark_failed();
  end_request(*trace, 1);
  EXPECT_EQ(tracer.ring().size(), 0u);  // one part still open
  SpanRecord late = trace->begin_span("generation");
  late.end_ns = late.start_ns + 1;
  trace->add(std::move(late));
  trace->end_part();
  const auto kept = tracer.ring().find(trace->trace_id());
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(kept->reason, KeepReason::kError);  // marked failed, no span says so
  EXPECT_EQ(kept->spans.size(), 2u);
}

TEST(Tracer, RunsEndHooksBeforeDecidingAndCanFinishOnItsOwnThread) {
  Tracer tracer(options(0, 0), nullptr);
  auto trace = tracer.start("", "");
  std::thread::id hook_thread;
  trace->at_end([&hook_thread](RequestTrace& t) {
    hook_thread = std::this_thread::get_id();
    SpanRecord stage = t.begin_span("stamped");
    stage.end_ns = stage.start_ns;
    stage.fail("deadline_exceeded", "too late");
    t.add(std::move(stage));
  });
  SpanRecord root = trace->begin_root("GET /x", SpanKind::kServer);
  root.end_ns = root.start_ns;
  trace->add(std::move(root));
  trace->end_part_elsewhere();
  tracer.shutdown(std::chrono::seconds(5));  // the exporter's thread has finished it by then
  const auto kept = tracer.ring().find(trace->trace_id());
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(kept->error_type, "deadline_exceeded");
  EXPECT_NE(hook_thread, std::this_thread::get_id());
}

// Spans of the caller's own for end_early: one, counted when written.
OtlpExporter::OwnSpans own_root(int& written) {
  return {.count = 1, .write = [&written](ProtobufWriter& out, const ExportedTrace&) {
            out.bytes(5, "root");
            ++written;
          }};
}

TEST(Tracer, EndsEarlyWhatNobodyWillReadAndCountsIt) {
  obs::Registry registry;
  Tracer unsampled(options(0, 100), &registry);
  const auto counted = [&registry](const char* kept) {
    const std::string line = std::string("supportd_traces_total{kept=\"") + kept + "\"} ";
    const std::string text = registry.expose();
    const std::size_t at = text.find(line);
    return at == std::string::npos ? -1 : std::stoi(text.substr(at + line.size()));
  };
  int written = 0;
  const auto own = own_root(written);
  auto fast = unsampled.start("", "");
  EXPECT_TRUE(unsampled.end_early(*fast, 5, own));  // dropped: its span is never built
  EXPECT_EQ(counted("dropped"), 1);
  EXPECT_FALSE(fast->end_part_unfinished());  // its part was ended: nobody finishes it again
  auto slow = unsampled.start("", "");
  EXPECT_FALSE(unsampled.end_early(*slow, 250, own));  // slow: kept whole
  auto failed = unsampled.start("", "");
  failed->mark_failed();
  EXPECT_FALSE(unsampled.end_early(*failed, 5, own));  // failed: kept whole
  auto failing_span = unsampled.start("", "");
  SpanRecord stage = failing_span->begin_span("retrieval");
  stage.fail("timeout", "too slow");
  failing_span->add(std::move(stage));  // an error span fails the request too
  EXPECT_FALSE(unsampled.end_early(*failing_span, 5, own));
  auto outlived = unsampled.start("", "");
  outlived->open_part();  // a generation still running may fail it yet
  EXPECT_FALSE(unsampled.end_early(*outlived, 5, own));
  auto hooked = unsampled.start("", "");
  hooked->at_end([](RequestTrace&) {});  // a hook may add an error span at the end
  EXPECT_FALSE(hooked->ends_with_this_part());
  EXPECT_FALSE(unsampled.end_early(*hooked, 5, own));
  EXPECT_EQ(counted("dropped"), 1);  // the refusals above counted nothing
  EXPECT_EQ(written, 0);             // and nothing was encoded
  // What was not ended early still ends as before, and is counted once.
  end_request(*slow, 250);
  EXPECT_EQ(counted("slow"), 1);
  EXPECT_NE(unsampled.ring().find(slow->trace_id()), nullptr);

  Tracer nowhere(options(1, 0), nullptr);  // sampled, no exporter, nothing for the ring
  auto sampled = nowhere.start("", "");
  EXPECT_TRUE(nowhere.end_early(*sampled, 5, own));
  EXPECT_EQ(written, 0);

  // Sampled with an exporter whose queue has room for one span: a trace of two (its span and
  // the caller's) is refused at the door, its spans counted as the exporter counts a full
  // queue, nothing encoded; one that fits (the caller's span alone) is exported.
  auto options_full = options(1, 0);
  ExporterOptions exporter;
  exporter.url = parse_http_url("http://127.0.0.1:9/v1/traces", "test").value();
  exporter.max_queue_spans = 1;
  options_full.exporter = exporter;
  obs::Registry full_registry;
  Tracer full(options_full, &full_registry);
  auto refused = full.start("", "");
  refused->add(refused->begin_span("faq"));
  EXPECT_TRUE(full.end_early(*refused, 5, own));
  EXPECT_EQ(full.exporter().dropped_spans(), 2);
  EXPECT_EQ(written, 0);
  EXPECT_NE(
      full_registry.expose().find("supportd_trace_spans_dropped_total{reason=\"queue_full\"} 2"),
      std::string::npos);
  auto fits = full.start("", "");
  EXPECT_TRUE(full.end_early(*fits, 5, own));
  EXPECT_EQ(written, 1);
  EXPECT_EQ(full.exporter().dropped_spans(), 2);
  full.shutdown(std::chrono::milliseconds(0));  // nothing listens at the endpoint
}

TEST(Tracer, EndsEarlyATraceTheExporterAloneReads) {
  auto sampled = options(1, 100);
  ExporterOptions exporter;
  exporter.url = parse_http_url("http://127.0.0.1:9/v1/traces", "test").value();
  sampled.exporter = exporter;
  obs::Registry registry;
  Tracer tracer(sampled, &registry);
  const auto stop = [&tracer] { tracer.shutdown(std::chrono::milliseconds(0)); };
  int written = 0;
  const auto own = own_root(written);
  auto plain = tracer.start("", "");
  plain->add(plain->begin_span("faq"));
  EXPECT_TRUE(tracer.end_early(*plain, 5, own));
  EXPECT_EQ(written, 1);
  EXPECT_FALSE(plain->end_part_unfinished());  // its part was ended
  EXPECT_EQ(counted(registry, "sampled"), 1);
  // Slow, failed, or with a part still open: kept or not over yet, so made as records.
  auto slow = tracer.start("", "");
  EXPECT_FALSE(tracer.end_early(*slow, 250, own));
  auto failed = tracer.start("", "");
  failed->mark_failed();
  EXPECT_FALSE(tracer.end_early(*failed, 5, own));
  auto outlived = tracer.start("", "");
  outlived->open_part();
  EXPECT_FALSE(tracer.end_early(*outlived, 5, own));
  EXPECT_EQ(written, 1);
  EXPECT_FALSE(outlived->ends_with_this_part());          // nothing happened: both parts still open
  for (auto* t : {&slow, &failed, &outlived, &outlived})  // outlived: two parts
    (*t)->end_part();
  stop();  // nothing listens at the endpoint: the queued spans are dropped at once
}

TEST(Tracer, TheRingKeepsTheNewestWithinItsBound) {
  Tracer tracer(options(0, 1), nullptr);  // ring of 4
  std::vector<TraceId> ids;
  for (int i = 0; i < 6; ++i) {
    auto trace = tracer.start("", "");
    ids.push_back(trace->trace_id());
    end_request(*trace, 10);
  }
  const auto kept = tracer.ring().recent(100);
  ASSERT_EQ(kept.size(), 4u);
  EXPECT_EQ(kept.front()->trace_id, ids[5]);
  EXPECT_EQ(kept.back()->trace_id, ids[2]);
  EXPECT_EQ(tracer.ring().find(ids[1]), nullptr);
}

TEST(TraceRing, EvictsTheOldestOverItsByteBound) {
  TraceRing ring(100, 20000);
  for (int i = 0; i < 10; ++i) {
    auto trace = std::make_shared<KeptTrace>();
    trace->trace_id = random_trace_id();
    for (int s = 0; s < 10; ++s) {
      SpanRecord span;
      span.set("payload", std::string(400, 'x'));
      trace->spans.push_back(std::move(span));
    }
    ring.add(trace);
  }
  EXPECT_LT(ring.size(), 10u);
  EXPECT_GE(ring.size(), 1u);
}

TEST(ScopedSpan, NestsOnAThreadAndFollowsAHandoff) {
  Tracer tracer(options(0, 0), nullptr);
  auto trace = tracer.start("", "");
  SpanId outer_id, inner_id, remote_id;
  {
    const Scope scope(trace.get(), {});
    ScopedSpan outer("outer");
    outer_id = outer.record().span_id;
    {
      ScopedSpan inner("inner", SpanKind::kClient);
      inner.set("db.system.name", "sqlite");
      inner_id = inner.record().span_id;
      EXPECT_EQ(current().span, inner_id);
    }
    EXPECT_EQ(current().span, outer_id);
    const Handoff handoff = capture();
    std::thread([&handoff, &remote_id] {
      const Scope there(handoff);
      ScopedSpan remote("on another thread");
      remote_id = remote.record().span_id;
    }).join();
  }
  EXPECT_EQ(current().trace, nullptr);
  ScopedSpan nothing("outside any request");  // no current request: nothing recorded
  EXPECT_FALSE(nothing.active());
  trace->mark_failed();
  end_request(*trace, 1);
  const auto kept = tracer.ring().find(trace->trace_id());
  ASSERT_NE(kept, nullptr);
  ASSERT_EQ(kept->spans.size(), 4u);
  auto span = [&](const SpanId& id) -> const SpanRecord& {
    for (const auto& s : kept->spans)
      if (s.span_id == id) return s;
    throw std::runtime_error("no such span");
  };
  EXPECT_EQ(span(outer_id).parent_id, trace->root_id());
  EXPECT_EQ(span(inner_id).parent_id, outer_id);
  EXPECT_EQ(span(inner_id).kind, SpanKind::kClient);
  EXPECT_EQ(span(inner_id).find("db.system.name")->text(), "sqlite");
  EXPECT_EQ(span(remote_id).parent_id, outer_id);
  EXPECT_LE(span(outer_id).start_ns, span(inner_id).start_ns);
  EXPECT_GE(span(outer_id).end_ns, span(inner_id).end_ns);
}

TEST(RequestTrace, DropsSpansBeyondItsBound) {
  Tracer tracer(options(0, 0), nullptr);
  auto trace = tracer.start("", "");
  for (std::size_t i = 0; i < RequestTrace::kMaxSpans + 10; ++i)
    trace->add(trace->begin_span("s"));
  trace->mark_failed();
  trace->end_part();
  const auto kept = tracer.ring().find(trace->trace_id());
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(kept->spans.size(), RequestTrace::kMaxSpans);
  EXPECT_EQ(kept->dropped_spans, 10u);
}

TEST(SlowLog, SaysWhereTheTimeWentStageByStage) {
  KeptTrace trace;
  trace.trace_id = *TraceId::from_hex("0af7651916cd43dd8448eb211c80319c");
  trace.root_id = *SpanId::from_hex("00000000000000aa");
  trace.name = "POST /v1/sessions/{session}/messages";
  trace.latency_ms = 3204;
  trace.duration_ms = 3204;
  trace.status_code = 200;
  auto span = [&](const char* id, const char* parent, const char* name, double from_ms,
                  double to_ms) {
    SpanRecord s;
    s.span_id = *SpanId::from_hex(id);
    s.parent_id = *SpanId::from_hex(parent);
    s.name = name;
    s.start_ns = static_cast<std::int64_t>(from_ms * 1e6);
    s.end_ns = static_cast<std::int64_t>(to_ms * 1e6);
    trace.spans.push_back(std::move(s));
  };
  // Out of order on purpose: the line goes by start time.
  span("00000000000000c2", "00000000000000b1", "generate", 4, 3200);
  span("00000000000000d1", "00000000000000c2", "queue", 4, 2904);
  span("00000000000000c1", "00000000000000b1", "retrieval", 1.5, 4);
  span("00000000000000b1", "00000000000000aa", "turn", 1, 3203);
  span("00000000000000aa", "0000000000000000", "POST /v1/sessions/{session}/messages", 0, 3204);
  trace.spans.back().span_id = trace.root_id;
  EXPECT_EQ(stage_breakdown(trace),
            "turn 3202 ms [retrieval 2.5 ms, generate 3196 ms [queue 2900 ms]]");
  EXPECT_EQ(slow_request_line(trace, 1000),
            "slow request POST /v1/sessions/{session}/messages: 3204 ms (over 1000 ms), status "
            "200, trace 0af7651916cd43dd8448eb211c80319c, stages: turn 3202 ms [retrieval 2.5 ms, "
            "generate 3196 ms [queue 2900 ms]]");
  EXPECT_EQ(stage_breakdown(trace, 10), "turn 3202 ...");
}

}  // namespace
}  // namespace supportd::obs::trace
