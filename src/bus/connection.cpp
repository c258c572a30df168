// The NATS connection: libnats options for a link that reconnects forever, the callbacks that
// track whether it is up, and core publish / subscribe / request.
#include "bus/connection.h"

#include <condition_variable>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "bus/native.h"

namespace supportd::bus {

Error nats_error(natsStatus status, std::string_view what, jsErrCode js_code) {
  ErrorCode code = ErrorCode::kInternal;
  switch (status) {
    case NATS_CONNECTION_CLOSED:
    case NATS_CONNECTION_DISCONNECTED:
    case NATS_NOT_YET_CONNECTED:
    case NATS_NO_SERVER:
    case NATS_CONNECTION_AUTH_FAILED:
    case NATS_NO_RESPONDERS:
    case NATS_INSUFFICIENT_BUFFER: code = ErrorCode::kUnavailable; break;
    case NATS_TIMEOUT: code = ErrorCode::kDeadline; break;
    case NATS_MAX_PAYLOAD: code = ErrorCode::kTooLarge; break;
    case NATS_INVALID_ARG:
    case NATS_INVALID_SUBJECT: code = ErrorCode::kInvalidArgument; break;
    default: break;
  }
  std::string message = fmt::format("{}: {}", what, natsStatus_GetText(status));
  if (js_code != 0) message += fmt::format(" (JetStream error {})", static_cast<int>(js_code));
  const char* detail = nats_GetLastError(nullptr);
  if (detail != nullptr && *detail != '\0' && status != NATS_TIMEOUT &&
      status != NATS_NO_RESPONDERS)
    message += fmt::format(" [{}]", detail);
  return Error::make(code, std::move(message));
}

namespace {

void on_disconnected(natsConnection*, void* closure) {
  auto* native = static_cast<Connection::Native*>(closure);
  if (native->up.exchange(false) && !native->closing.load()) {
    native->down_since_ms = steady_ms();
    spdlog::warn("bus: lost the link to NATS; reconnecting");
  }
}

void on_reconnected(natsConnection*, void* closure) {
  auto* native = static_cast<Connection::Native*>(closure);
  const std::int64_t down = steady_ms() - native->down_since_ms.load();
  native->up = true;
  ++native->reconnects;
  spdlog::info("bus: reconnected to NATS after {} ms", down);
  std::function<void()> handler;
  {
    std::lock_guard lock(native->handler_mutex);
    handler = native->on_reconnected;
  }
  if (handler) handler();
}

void on_closed(natsConnection*, void* closure) {
  auto* native = static_cast<Connection::Native*>(closure);
  std::lock_guard lock(native->handler_mutex);
  native->closed = true;
  native->closed_cv.notify_all();
}

void on_async_error(natsConnection*, natsSubscription*, natsStatus status, void*) {
  // A slow consumer (messages dropped before the handler could take them) or a protocol error.
  spdlog::warn("bus: NATS reported {}", natsStatus_GetText(status));
}

struct OptionsDeleter {
  void operator()(natsOptions* options) const { natsOptions_Destroy(options); }
};

}  // namespace

struct Subscription::Impl {
  natsSubscription* subscription = nullptr;
  std::function<void(const Message&)> handler;
  std::mutex mutex;
  std::condition_variable finished_cv;
  bool finished = false;  // guarded by mutex: the handler will not run again

  static void on_message(natsConnection*, natsSubscription*, natsMsg* msg, void* closure) {
    auto* self = static_cast<Impl*>(closure);
    const char* reply = natsMsg_GetReply(msg);
    const Message message{natsMsg_GetSubject(msg),
                          std::string_view(natsMsg_GetData(msg),
                                           static_cast<std::size_t>(natsMsg_GetDataLength(msg))),
                          reply != nullptr ? std::string_view(reply) : std::string_view()};
    self->handler(message);
    natsMsg_Destroy(msg);
  }
  static void on_complete(void* closure) {
    auto* self = static_cast<Impl*>(closure);
    std::lock_guard lock(self->mutex);
    self->finished = true;
    self->finished_cv.notify_all();
  }
};

Subscription::Subscription(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Subscription::~Subscription() {
  if (!impl_ || impl_->subscription == nullptr) return;
  const bool unsubscribed = natsSubscription_Unsubscribe(impl_->subscription) == NATS_OK;
  if (unsubscribed) {
    std::unique_lock lock(impl_->mutex);
    // Bounded: the completion callback follows the last handler call (or a closed connection).
    impl_->finished_cv.wait_for(lock, std::chrono::seconds(10), [&] { return impl_->finished; });
  }
  natsSubscription_Destroy(impl_->subscription);
}

Connection::Connection(ConnectionOptions options)
    : options_(std::move(options)), native_(std::make_unique<Native>()) {}

Connection::~Connection() {
  if (native_->jetstream != nullptr) jsCtx_Destroy(native_->jetstream);
  if (native_->connection != nullptr) {
    native_->closing = true;
    natsConnection_Close(native_->connection);
    bool closed = false;
    {
      // Bounded: libnats queues the closed callback as Close returns.
      std::unique_lock lock(native_->handler_mutex);
      closed = native_->closed_cv.wait_for(lock, std::chrono::seconds(10),
                                           [&] { return native_->closed; });
    }
    natsConnection_Destroy(native_->connection);
    // A callback still due would find its closure freed: keep the block rather than risk that.
    if (!closed) static_cast<void>(native_.release());
  }
}

Result<std::unique_ptr<Connection>> Connection::open(const ConnectionOptions& options) {
  if (options.url.empty()) return Error::invalid("no NATS URL given", "nats");
  std::unique_ptr<Connection> self(new Connection(options));
  Native* native = self->native_.get();

  natsOptions* raw = nullptr;
  if (natsStatus s = natsOptions_Create(&raw); s != NATS_OK)
    return nats_error(s, "creating NATS options");
  std::unique_ptr<natsOptions, OptionsDeleter> nats_options(raw);
  natsStatus s = natsOptions_SetURL(raw, options.url.c_str());
  if (s != NATS_OK) return Error::invalid(fmt::format("bad NATS URL '{}'", options.url), "nats");
  if (!options.name.empty()) s = natsOptions_SetName(raw, options.name.c_str());
  if (s == NATS_OK) s = natsOptions_SetMaxReconnect(raw, -1);  // forever
  if (s == NATS_OK) s = natsOptions_SetReconnectWait(raw, options.reconnect_wait.count());
  if (s == NATS_OK) s = natsOptions_SetReconnectJitter(raw, 50, 50);
  if (s == NATS_OK) s = natsOptions_SetTimeout(raw, 1000);   // per connect attempt
  if (s == NATS_OK) s = natsOptions_SetSendAsap(raw, true);  // tokens leave at once
  if (s == NATS_OK) s = natsOptions_SetFailRequestsOnDisconnect(raw, true);
  if (s == NATS_OK) s = natsOptions_SetMaxPendingMsgs(raw, 1 << 20);
  if (s == NATS_OK) s = natsOptions_SetDisconnectedCB(raw, on_disconnected, native);
  if (s == NATS_OK) s = natsOptions_SetReconnectedCB(raw, on_reconnected, native);
  if (s == NATS_OK) s = natsOptions_SetClosedCB(raw, on_closed, native);
  if (s == NATS_OK) s = natsOptions_SetErrorHandler(raw, on_async_error, native);
  if (s != NATS_OK) return nats_error(s, "setting NATS options");

  // The first connection: retried here until connect_timeout (libnats would retry forever).
  const auto give_up = std::chrono::steady_clock::now() + options.connect_timeout;
  for (;;) {
    s = natsConnection_Connect(&native->connection, raw);
    if (s == NATS_OK) break;
    if (std::chrono::steady_clock::now() >= give_up) {
      Error error = nats_error(s, fmt::format("cannot reach NATS at {}", options.url));
      error.code = ErrorCode::kUnavailable;
      return error;
    }
    std::this_thread::sleep_for(options.reconnect_wait);
  }
  native->up = true;

  jsOptions js_options;
  jsOptions_Init(&js_options);
  js_options.Wait = options.request_timeout.count();
  if (s = natsConnection_JetStream(&native->jetstream, native->connection, &js_options);
      s != NATS_OK)
    return nats_error(s, "opening JetStream");
  return self;
}

bool Connection::connected() const {
  return native_->up.load();
}

std::chrono::milliseconds Connection::down_for() const {
  if (native_->up.load()) return std::chrono::milliseconds(0);
  return std::chrono::milliseconds(steady_ms() - native_->down_since_ms.load());
}

std::int64_t Connection::reconnects() const {
  return native_->reconnects.load();
}

void Connection::set_reconnected_handler(std::function<void()> handler) {
  std::lock_guard lock(native_->handler_mutex);
  native_->on_reconnected = std::move(handler);
}

std::int64_t Connection::max_payload() const {
  return natsConnection_GetMaxPayload(native_->connection);
}

Status Connection::publish(std::string_view subject, std::string_view data) {
  const std::string subject_text(subject);
  const natsStatus s = natsConnection_Publish(native_->connection, subject_text.c_str(),
                                              data.data(), static_cast<int>(data.size()));
  if (s != NATS_OK) return nats_error(s, fmt::format("publishing to {}", subject));
  return {};
}

Result<std::unique_ptr<Subscription>> Connection::subscribe(
    std::string_view subject, std::function<void(const Message&)> handler) {
  auto impl = std::make_unique<Subscription::Impl>();
  impl->handler = std::move(handler);
  const std::string subject_text(subject);
  natsStatus s =
      natsConnection_Subscribe(&impl->subscription, native_->connection, subject_text.c_str(),
                               Subscription::Impl::on_message, impl.get());
  if (s == NATS_OK) {
    s = natsSubscription_SetOnCompleteCB(impl->subscription, Subscription::Impl::on_complete,
                                         impl.get());
  }
  if (s == NATS_OK) s = natsSubscription_SetPendingLimits(impl->subscription, -1, -1);
  if (s != NATS_OK) {
    if (impl->subscription != nullptr) natsSubscription_Destroy(impl->subscription);
    return nats_error(s, fmt::format("subscribing to {}", subject));
  }
  return std::make_unique<Subscription>(std::move(impl));
}

Result<std::string> Connection::request(std::string_view subject, std::string_view data,
                                        std::chrono::milliseconds timeout) {
  const std::string subject_text(subject);
  natsMsg* reply = nullptr;
  const natsStatus s =
      natsConnection_Request(&reply, native_->connection, subject_text.c_str(), data.data(),
                             static_cast<int>(data.size()), timeout.count());
  if (s != NATS_OK) return nats_error(s, fmt::format("request on {}", subject));
  std::string answer(natsMsg_GetData(reply),
                     static_cast<std::size_t>(natsMsg_GetDataLength(reply)));
  natsMsg_Destroy(reply);
  return answer;
}

Status Connection::flush(std::chrono::milliseconds timeout) {
  const natsStatus s = natsConnection_FlushTimeout(native_->connection, timeout.count());
  if (s != NATS_OK) return nats_error(s, "flushing to NATS");
  return {};
}

}  // namespace supportd::bus
