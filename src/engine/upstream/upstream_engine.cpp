// Forwarding generation to an OpenAI-compatible server over HTTP with streaming: the request
// body, the SSE reply turned into sink calls, cancellation (see upstream_engine.h).
#include "engine/upstream/upstream_engine.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <unordered_map>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>

#include "core/http_url.h"
#include "engine/upstream/sse_parser.h"
#include "engine/upstream/stream_event.h"

namespace supportd::engine::upstream {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
namespace json = boost::json;
using tcp = net::ip::tcp;
using net::as_tuple;
using net::use_awaitable;

namespace {

constexpr std::size_t kErrorTextLimit = 4096;  // of a non-200 answer's body, kept for the error

struct Endpoint {
  std::string host;
  std::string port = "80";
  std::string prefix;  // path prefix without trailing slash
};

Result<Endpoint> parse_url(const std::string& url) {
  auto parsed = parse_http_url(url, "upstream");
  if (!parsed) return parsed.error();
  Endpoint e{parsed->host, parsed->port, parsed->path};
  while (!e.prefix.empty() && e.prefix.back() == '/')
    e.prefix.pop_back();
  if (e.prefix.size() >= 3 && e.prefix.ends_with("/v1")) e.prefix.resize(e.prefix.size() - 3);
  return e;
}

struct Call {
  Engine::RequestId id = 0;
  GenerationRequest request;
  std::shared_ptr<GenerationSink> sink;
  Clock::time_point submitted;
  beast::tcp_stream* stream = nullptr;  // on the I/O thread, while connected
  bool cancelled = false;               // on the I/O thread
};

json::object request_body(const GenerationRequest& r, const std::string& model) {
  json::object body{{"model", model},
                    {"stream", true},
                    {"stream_options", json::object{{"include_usage", true}}}};
  if (r.chat) {
    json::array messages;
    for (const auto& m : r.messages)
      messages.push_back(json::object{{"role", m.role}, {"content", m.content}});
    body["messages"] = std::move(messages);
  } else {
    body["prompt"] = r.prompt;
  }
  const SamplingParams defaults;
  const auto& s = r.sampling;
  if (r.max_tokens > 0) body["max_tokens"] = r.max_tokens;
  body["temperature"] = s.temperature;
  body["top_p"] = s.top_p;
  if (s.top_k != defaults.top_k) body["top_k"] = s.top_k;
  if (s.min_p != defaults.min_p) body["min_p"] = s.min_p;
  if (s.frequency_penalty != 0) body["frequency_penalty"] = s.frequency_penalty;
  if (s.presence_penalty != 0) body["presence_penalty"] = s.presence_penalty;
  if (s.repeat_penalty != 1) body["repeat_penalty"] = s.repeat_penalty;
  if (s.seed) body["seed"] = *s.seed;
  if (!r.stop.empty()) {
    json::array stops;
    for (const auto& stop : r.stop)
      stops.emplace_back(stop);
    body["stop"] = std::move(stops);
  }
  if (r.ignore_eos) body["ignore_eos"] = true;
  return body;
}

}  // namespace

struct UpstreamEngine::Impl {
  UpstreamOptions options;
  Endpoint endpoint;
  ModelCard card;
  net::io_context io{1};
  net::executor_work_guard<net::io_context::executor_type> work{io.get_executor()};
  std::thread thread;
  std::atomic<bool> stopping{false};
  std::atomic<std::uint64_t> next_id{1};
  std::atomic<int> in_flight{0};
  std::atomic<std::int64_t> tokens{0};
  std::mutex mutex;
  std::unordered_map<RequestId, std::shared_ptr<Call>> calls;  // guarded by mutex

  net::awaitable<Result<std::string>> fetch(std::string path);
  net::awaitable<void> run(std::shared_ptr<Call> call);
  net::awaitable<Completion> exchange(Call& call);
  void finish(const std::shared_ptr<Call>& call, const Completion& completion);
};

net::awaitable<Result<std::string>> UpstreamEngine::Impl::fetch(std::string path) {
  tcp::resolver resolver(io);
  auto [rec, endpoints] =
      co_await resolver.async_resolve(endpoint.host, endpoint.port, as_tuple(use_awaitable));
  if (rec)
    co_return Error::make(ErrorCode::kUnavailable,
                          "cannot resolve " + endpoint.host + ": " + rec.message());
  beast::tcp_stream stream(io);
  stream.expires_after(std::chrono::seconds(5));
  auto [cec, connected] = co_await stream.async_connect(endpoints, as_tuple(use_awaitable));
  if (cec)
    co_return Error::make(ErrorCode::kUnavailable,
                          "cannot connect to the upstream: " + cec.message());
  bhttp::request<bhttp::empty_body> request{bhttp::verb::get, endpoint.prefix + path, 11};
  request.set(bhttp::field::host, endpoint.host);
  if (!options.api_key.empty())
    request.set(bhttp::field::authorization, "Bearer " + options.api_key);
  auto [wec, written] = co_await bhttp::async_write(stream, request, as_tuple(use_awaitable));
  beast::flat_buffer buffer;
  bhttp::response<bhttp::string_body> response;
  auto [ec, read] = co_await bhttp::async_read(stream, buffer, response, as_tuple(use_awaitable));
  if (wec || ec) co_return Error::make(ErrorCode::kUnavailable, "upstream did not answer " + path);
  if (response.result_int() != 200) {
    co_return Error::make(ErrorCode::kUnavailable,
                          fmt::format("upstream answered {} to {}", response.result_int(), path));
  }
  co_return std::move(response.body());
}

Result<std::unique_ptr<UpstreamEngine>> UpstreamEngine::create(const UpstreamOptions& options) {
  auto endpoint = parse_url(options.url);
  if (!endpoint) return endpoint.error();
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->endpoint = *endpoint;
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] { raw->io.run(); });

  // Learn the upstream's models, retrying for a few seconds while it starts.
  Result<std::string> models = Error::make(ErrorCode::kUnavailable, "not tried");
  for (int attempt = 0; attempt < 20; ++attempt) {
    auto future = net::co_spawn(raw->io, raw->fetch("/v1/models"), net::use_future);
    models = future.get();
    if (models) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  std::unique_ptr<UpstreamEngine> engine(new UpstreamEngine(std::move(impl)));
  if (!models) {
    return Error::make(ErrorCode::kUnavailable,
                       "upstream " + options.url + " is unreachable: " + models.error().message);
  }
  boost::system::error_code ec;
  const json::value listing = json::parse(*models, ec);
  std::string first;
  bool meaningless = false;
  int context = 0;
  if (!ec && listing.is_object()) {
    if (const auto* data = listing.as_object().if_contains("data"); data && data->is_array()) {
      for (const auto& m : data->as_array()) {
        const auto* o = m.if_object();
        const auto* id = o ? o->if_contains("id") : nullptr;
        if (id == nullptr || !id->is_string()) continue;
        if (first.empty() || id->as_string() == options.model) {
          first = std::string(id->as_string());
          const auto* flag = o->if_contains("meaningless_text");
          meaningless = flag && flag->is_bool() && flag->as_bool();
          const auto* ctx = o->if_contains("context_length");
          context = ctx && ctx->is_int64() ? static_cast<int>(ctx->as_int64()) : 0;
        }
      }
    }
  }
  ModelCard& card = engine->impl_->card;
  card.id = options.model.empty() ? first : options.model;
  if (card.id.empty())
    return Error::make(ErrorCode::kUnavailable, "upstream " + options.url + " lists no models");
  card.description = "served by upstream " + options.url;
  card.meaningless_text = meaningless;
  card.context_length = context;
  card.owned_by = "upstream";
  spdlog::info("engine: forwarding to upstream {} (model {})", options.url, card.id);
  return engine;
}

UpstreamEngine::UpstreamEngine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

UpstreamEngine::~UpstreamEngine() {
  shutdown();
}

const ModelCard& UpstreamEngine::model() const {
  return impl_->card;
}

bool UpstreamEngine::ready() const {
  return !impl_->stopping.load();
}

Result<Engine::RequestId> UpstreamEngine::submit(GenerationRequest request,
                                                 std::shared_ptr<GenerationSink> sink) {
  if (impl_->stopping) return Error::make(ErrorCode::kUnavailable, "the server is shutting down");
  auto call = std::make_shared<Call>();
  call->id = impl_->next_id++;
  call->request = std::move(request);
  call->sink = std::move(sink);
  call->submitted = Clock::now();
  {
    std::lock_guard lock(impl_->mutex);
    impl_->calls.emplace(call->id, call);
  }
  ++impl_->in_flight;
  net::co_spawn(impl_->io, impl_->run(call), net::detached);
  return call->id;
}

void UpstreamEngine::cancel(RequestId id) {
  std::shared_ptr<Call> call;
  {
    std::lock_guard lock(impl_->mutex);
    auto it = impl_->calls.find(id);
    if (it == impl_->calls.end()) return;
    call = it->second;
  }
  net::post(impl_->io, [call] {
    call->cancelled = true;
    if (call->stream != nullptr) call->stream->socket().close();
  });
}

EngineStats UpstreamEngine::stats() const {
  EngineStats s;
  s.running = impl_->in_flight.load();
  s.tokens_generated = impl_->tokens.load();
  return s;
}

void UpstreamEngine::shutdown() {
  if (impl_->stopping.exchange(true)) return;
  std::vector<RequestId> ids;
  {
    std::lock_guard lock(impl_->mutex);
    for (const auto& [id, call] : impl_->calls)
      ids.push_back(id);
  }
  for (RequestId id : ids)
    cancel(id);
  // Let cancelled calls report, then stop the thread.
  for (int i = 0; i < 200 && impl_->in_flight.load() > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  impl_->work.reset();
  impl_->io.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

void UpstreamEngine::Impl::finish(const std::shared_ptr<Call>& call, const Completion& completion) {
  {
    std::lock_guard lock(mutex);
    calls.erase(call->id);
  }
  call->sink->on_done(completion);
  --in_flight;
}

net::awaitable<void> UpstreamEngine::Impl::run(std::shared_ptr<Call> call) {
  Completion completion;
  try {
    completion = co_await exchange(*call);
  } catch (const std::exception& e) {
    completion.reason = FinishReason::kError;
    completion.error =
        Error::make(ErrorCode::kInternal, std::string("upstream exchange failed: ") + e.what());
  }
  if (call->cancelled) completion.reason = FinishReason::kCancelled;
  completion.timings.total_ms =
      std::chrono::duration<double, std::milli>(Clock::now() - call->submitted).count();
  finish(call, completion);
}

net::awaitable<Completion> UpstreamEngine::Impl::exchange(Call& call) {
  Completion done;
  auto fail = [&](std::string message) {
    done.reason = FinishReason::kError;
    done.error = Error::make(ErrorCode::kUnavailable, std::move(message));
    return done;
  };
  tcp::resolver resolver(io);
  auto [rec, endpoints] =
      co_await resolver.async_resolve(endpoint.host, endpoint.port, as_tuple(use_awaitable));
  if (rec) co_return fail("cannot resolve the upstream: " + rec.message());
  beast::tcp_stream stream(io);
  call.stream = &stream;
  struct Detach {
    Call& c;
    ~Detach() { c.stream = nullptr; }
  } detach{call};
  if (call.cancelled) co_return done;
  stream.expires_after(std::chrono::seconds(options.timeout_s));
  auto [cec, connected] = co_await stream.async_connect(endpoints, as_tuple(use_awaitable));
  if (cec) co_return fail("cannot connect to the upstream: " + cec.message());

  const std::string path =
      endpoint.prefix + (call.request.chat ? "/v1/chat/completions" : "/v1/completions");
  bhttp::request<bhttp::string_body> request{bhttp::verb::post, path, 11};
  request.set(bhttp::field::host, endpoint.host);
  request.set(bhttp::field::content_type, "application/json");
  request.set(bhttp::field::accept, "text/event-stream");
  if (!options.api_key.empty())
    request.set(bhttp::field::authorization, "Bearer " + options.api_key);
  request.body() = json::serialize(request_body(call.request, card.id));
  request.prepare_payload();
  auto [wec, written] = co_await bhttp::async_write(stream, request, as_tuple(use_awaitable));
  if (wec) co_return fail("cannot send to the upstream: " + wec.message());

  beast::flat_buffer buffer;
  bhttp::response_parser<bhttp::buffer_body> parser;
  parser.body_limit(boost::none);
  auto [hec, header_bytes] =
      co_await bhttp::async_read_header(stream, buffer, parser, as_tuple(use_awaitable));
  if (hec) co_return fail("the upstream did not answer: " + hec.message());
  const int status = parser.get().result_int();

  SseParser events;
  std::string error_text;
  bool finished = false;
  char chunk[8192];
  while (!parser.is_done() && !finished) {
    parser.get().body().data = chunk;
    parser.get().body().size = sizeof(chunk);
    auto [ec, n] = co_await bhttp::async_read(stream, buffer, parser, as_tuple(use_awaitable));
    if (ec && ec != bhttp::error::need_buffer) {
      if (call.cancelled) co_return done;
      co_return fail("the upstream stream broke: " + ec.message());
    }
    const std::size_t got = sizeof(chunk) - parser.get().body().size;
    if (status != 200) {
      // Only the beginning is quoted: an error page of any size costs no more than this.
      if (error_text.size() < kErrorTextLimit)
        error_text.append(chunk, std::min(got, kErrorTextLimit - error_text.size()));
      continue;
    }
    const std::vector<std::string> completed = events.feed(std::string_view(chunk, got));
    if (events.overflowed()) {
      co_return fail(fmt::format("the upstream sent an event over {} bytes; the stream is given up",
                                 events.max_event_bytes()));
    }
    for (const std::string& data : completed) {
      const std::optional<StreamEvent> event = decode_stream_event(data);
      if (!event) continue;
      if (event->done) {
        finished = true;
        break;
      }
      if (event->error) co_return fail("upstream error: " + *event->error);
      if (event->prompt_tokens) done.usage.prompt_tokens = *event->prompt_tokens;
      if (event->completion_tokens) done.usage.completion_tokens = *event->completion_tokens;
      if (!event->text.empty()) {
        if (done.timings.first_token_ms < 0) {
          done.timings.first_token_ms =
              std::chrono::duration<double, std::milli>(Clock::now() - call.submitted).count();
        }
        ++tokens;
        call.sink->on_text(event->text);
      }
      if (event->reason) done.reason = *event->reason;
    }
  }
  if (status != 200) {
    co_return fail(fmt::format("upstream answered {}: {}", status, error_text.substr(0, 500)));
  }
  co_return done;
}

}  // namespace supportd::engine::upstream
