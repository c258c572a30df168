// JetStream calls through libnats: stream and consumer declarations, stores with message ids,
// reads and deletes by sequence, and pulled deliveries with their acknowledgements.
#include "bus/jetstream.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <thread>

#include "bus/native.h"

namespace supportd::bus {
namespace {

std::int64_t nanoseconds(std::chrono::nanoseconds duration) {
  return duration.count();
}

// libnats' description of the last error on this thread, or "".
std::string last_error_text() {
  const char* text = nats_GetLastError(nullptr);
  return text != nullptr ? std::string(text) : std::string();
}

bool missing_message(natsStatus status, jsErrCode code) {
  return status == NATS_NOT_FOUND || code == JSNoMessageFoundErr ||
         code == static_cast<jsErrCode>(10057);  // JSStreamMsgDeleteFailed: already gone
}

}  // namespace

Status JetStream::ensure_stream(const StreamSpec& spec) {
  jsStreamConfig config;
  jsStreamConfig_Init(&config);
  std::vector<const char*> subjects;
  for (const std::string& subject : spec.subjects)
    subjects.push_back(subject.c_str());
  config.Name = spec.name.c_str();
  config.Subjects = subjects.data();
  config.SubjectsLen = static_cast<int>(subjects.size());
  config.Retention = spec.work_queue ? js_WorkQueuePolicy : js_LimitsPolicy;
  config.Storage = spec.file_storage ? js_FileStorage : js_MemoryStorage;
  config.MaxAge = nanoseconds(spec.max_age);
  config.Duplicates = nanoseconds(spec.duplicate_window);
  if (spec.max_per_subject > 0) {
    config.MaxMsgsPerSubject = spec.max_per_subject;
    config.Discard = js_DiscardNew;
    config.DiscardNewPerSubject = true;
  }
  jsCtx* js = connection_.native().jetstream;
  jsStreamInfo* info = nullptr;
  jsErrCode code = static_cast<jsErrCode>(0);
  natsStatus s = js_AddStream(&info, js, &config, nullptr, &code);
  // Nodes starting together race to add the same stream: the loser may be told its subjects
  // overlap an existing stream (the winner's, being created) rather than that the name exists.
  // Asked again once the winner's stream is there, it gets the usual answers; a stream of
  // another name holding these subjects still fails, after the last attempt.
  for (int attempt = 0; s != NATS_OK && code == JSStreamSubjectOverlapErr && attempt < 5;
       ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    code = static_cast<jsErrCode>(0);
    s = js_AddStream(&info, js, &config, nullptr, &code);
  }
  if (s != NATS_OK && code == JSStreamNameExistErr) {
    code = static_cast<jsErrCode>(0);
    s = js_UpdateStream(&info, js, &config, nullptr, &code);
    if (s == NATS_OK) spdlog::info("bus: stream {} updated to this process's settings", spec.name);
  }
  if (info != nullptr) jsStreamInfo_Destroy(info);
  if (s != NATS_OK) return nats_error(s, fmt::format("declaring stream {}", spec.name), code);
  return {};
}

Status JetStream::ensure_consumer(const ConsumerSpec& spec) {
  jsConsumerConfig config;
  jsConsumerConfig_Init(&config);
  config.Durable = spec.durable.c_str();
  config.FilterSubject = spec.filter_subject.c_str();
  config.AckPolicy = js_AckExplicit;
  config.DeliverPolicy = js_DeliverAll;
  config.AckWait = nanoseconds(spec.ack_wait);
  config.MaxDeliver = spec.max_deliver > 0 ? spec.max_deliver : -1;
  config.MaxAckPending = 100000;
  jsCtx* js = connection_.native().jetstream;
  jsConsumerInfo* info = nullptr;
  jsErrCode code = static_cast<jsErrCode>(0);
  natsStatus s = js_AddConsumer(&info, js, spec.stream.c_str(), &config, nullptr, &code);
  if (s != NATS_OK) {
    // It exists with other settings (another process declared it): take this process's.
    code = static_cast<jsErrCode>(0);
    s = js_UpdateConsumer(&info, js, spec.stream.c_str(), &config, nullptr, &code);
  }
  if (info != nullptr) jsConsumerInfo_Destroy(info);
  if (s != NATS_OK)
    return nats_error(s, fmt::format("declaring consumer {} on {}", spec.durable, spec.stream),
                      code);
  return {};
}

Result<Stored> JetStream::store(std::string_view subject, std::string_view data,
                                std::string_view message_id, std::chrono::milliseconds timeout) {
  jsPubOptions options;
  jsPubOptions_Init(&options);
  const std::string id(message_id);
  if (!id.empty()) options.MsgId = id.c_str();
  if (timeout.count() > 0) options.MaxWait = timeout.count();
  const std::string subject_text(subject);
  jsPubAck* ack = nullptr;
  jsErrCode code = static_cast<jsErrCode>(0);
  const natsStatus s = js_Publish(&ack, connection_.native().jetstream, subject_text.c_str(),
                                  data.data(), static_cast<int>(data.size()), &options, &code);
  if (s != NATS_OK) {
    const std::string detail = last_error_text();
    if (code == JSStreamStoreFailedErr &&
        detail.find("maximum messages per subject") != std::string::npos) {
      return Error::make(ErrorCode::kOverloaded,
                         fmt::format("the cluster's queue for {} is full", subject));
    }
    return nats_error(s, fmt::format("storing a message on {}", subject), code);
  }
  Stored stored{ack->Sequence, ack->Duplicate};
  jsPubAck_Destroy(ack);
  return stored;
}

Result<std::string> JetStream::read(const std::string& stream, std::uint64_t sequence) {
  natsMsg* msg = nullptr;
  jsErrCode code = static_cast<jsErrCode>(0);
  const natsStatus s =
      js_GetMsg(&msg, connection_.native().jetstream, stream.c_str(), sequence, nullptr, &code);
  if (s != NATS_OK) {
    if (missing_message(s, code)) {
      return Error::make(ErrorCode::kNotFound,
                         fmt::format("message {} of {} is gone", sequence, stream));
    }
    return nats_error(s, fmt::format("reading message {} of {}", sequence, stream), code);
  }
  std::string data(natsMsg_GetData(msg), static_cast<std::size_t>(natsMsg_GetDataLength(msg)));
  natsMsg_Destroy(msg);
  return data;
}

Status JetStream::remove(const std::string& stream, std::uint64_t sequence) {
  jsErrCode code = static_cast<jsErrCode>(0);
  const natsStatus s =
      js_DeleteMsg(connection_.native().jetstream, stream.c_str(), sequence, nullptr, &code);
  if (s != NATS_OK && !missing_message(s, code))
    return nats_error(s, fmt::format("deleting message {} of {}", sequence, stream), code);
  return {};
}

Result<ConsumerState> JetStream::consumer_state(const std::string& stream,
                                                const std::string& durable) {
  jsConsumerInfo* info = nullptr;
  jsErrCode code = static_cast<jsErrCode>(0);
  const natsStatus s = js_GetConsumerInfo(&info, connection_.native().jetstream, stream.c_str(),
                                          durable.c_str(), nullptr, &code);
  if (s != NATS_OK)
    return nats_error(s, fmt::format("reading consumer {} of {}", durable, stream), code);
  ConsumerState state{info->NumPending, info->NumAckPending, info->NumRedelivered};
  jsConsumerInfo_Destroy(info);
  return state;
}

// ---- Delivery -------------------------------------------------------------------------------
// A pulled message answers a pull request made with natsConnection_Request (see take()), so
// libnats does not know it as a JetStream message: its acknowledgements are the JetStream
// protocol's own, sent to its reply subject ("+WPI", "+ACK", "-NAK", "+TERM").

struct Delivery::Impl {
  natsMsg* msg = nullptr;
  natsConnection* connection = nullptr;
  std::int64_t wait_ms = 2000;
  std::uint64_t attempt = 1;
  std::uint64_t sequence = 0;
  ~Impl() {
    if (msg != nullptr) natsMsg_Destroy(msg);
  }
  Status send(const char* body, std::string_view what) {
    const natsStatus s = natsConnection_PublishString(connection, natsMsg_GetReply(msg), body);
    if (s != NATS_OK) return nats_error(s, what);
    return {};
  }
};

namespace {

// The delivery count and stream sequence from a JetStream ack subject:
// $JS.ACK.<stream>.<consumer>.<delivered>.<stream seq>.<consumer seq>.<time>.<pending>, or with
// <domain>.<account hash> before <stream> (and a random token at the end).
bool parse_ack_subject(std::string_view reply, std::uint64_t& attempt, std::uint64_t& sequence) {
  constexpr std::string_view kPrefix = "$JS.ACK.";
  if (!reply.starts_with(kPrefix)) return false;
  reply.remove_prefix(kPrefix.size());
  std::vector<std::string_view> tokens;
  while (!reply.empty()) {
    const std::size_t dot = reply.find('.');
    tokens.push_back(reply.substr(0, dot));
    if (dot == std::string_view::npos) break;
    reply.remove_prefix(dot + 1);
  }
  const std::size_t first_number = tokens.size() == 7 ? 2 : 4;  // after stream and consumer
  if (tokens.size() != 7 && tokens.size() < 9) return false;
  auto number = [](std::string_view token, std::uint64_t& out) {
    if (token.empty()) return false;
    out = 0;
    for (char c : token) {
      if (c < '0' || c > '9') return false;
      out = out * 10 + static_cast<std::uint64_t>(c - '0');
    }
    return true;
  };
  return number(tokens[first_number], attempt) && number(tokens[first_number + 1], sequence);
}

}  // namespace

Delivery::Delivery(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Delivery::~Delivery() = default;
Delivery::Delivery(Delivery&&) noexcept = default;
Delivery& Delivery::operator=(Delivery&&) noexcept = default;

std::string_view Delivery::data() const {
  return {natsMsg_GetData(impl_->msg), static_cast<std::size_t>(natsMsg_GetDataLength(impl_->msg))};
}

std::string_view Delivery::subject() const {
  return natsMsg_GetSubject(impl_->msg);
}

std::uint64_t Delivery::attempt() const {
  return impl_->attempt;
}

std::uint64_t Delivery::stream_sequence() const {
  return impl_->sequence;
}

Status Delivery::in_progress() {
  return impl_->send("+WPI", "acknowledging progress");
}

Status Delivery::ack() {
  natsMsg* reply = nullptr;
  const natsStatus s = natsConnection_RequestString(
      &reply, impl_->connection, natsMsg_GetReply(impl_->msg), "+ACK", impl_->wait_ms);
  if (reply != nullptr) natsMsg_Destroy(reply);
  if (s != NATS_OK) return nats_error(s, "acknowledging");
  return {};
}

Status Delivery::nak() {
  return impl_->send("-NAK", "giving a message back");
}

Status Delivery::term() {
  return impl_->send("+TERM", "terminating a message");
}

// ---- PullConsumer ---------------------------------------------------------------------------
// libnats' fetch cannot ask "one message if there is one, else none at once" of nats-server
// 2.9: the server answers at once only to a no_wait request without an expiry, and
// natsSubscription_FetchRequest needs an expiry to wait for any answer (with one, the server
// holds an empty pull until it expires, and checking three classes in turn would cost three
// expiries). So take() sends the pull request itself, as a request/reply on the consumer's
// $JS.API.CONSUMER.MSG.NEXT subject with {"batch":1,"no_wait":true}: the answer is the message
// (pending ones and redeliveries due) or a 404 status, after one round trip.

struct PullConsumer::Impl {
  natsConnection* connection = nullptr;
  std::string next_subject;
  std::int64_t wait_ms = 2000;
};

PullConsumer::PullConsumer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PullConsumer::~PullConsumer() = default;

Result<std::unique_ptr<PullConsumer>> PullConsumer::bind(JetStream& jetstream,
                                                         const ConsumerSpec& spec) {
  if (auto state = jetstream.consumer_state(spec.stream, spec.durable); !state)
    return state.error();
  auto impl = std::make_unique<Impl>();
  impl->connection = jetstream.connection().native().connection;
  impl->next_subject = fmt::format("$JS.API.CONSUMER.MSG.NEXT.{}.{}", spec.stream, spec.durable);
  impl->wait_ms = jetstream.connection().options().request_timeout.count();
  return std::unique_ptr<PullConsumer>(new PullConsumer(std::move(impl)));
}

Result<std::optional<Delivery>> PullConsumer::take() {
  natsMsg* msg = nullptr;
  const natsStatus s =
      natsConnection_RequestString(&msg, impl_->connection, impl_->next_subject.c_str(),
                                   R"({"batch":1,"no_wait":true})", impl_->wait_ms);
  if (s != NATS_OK) return nats_error(s, "pulling a message");
  const char* status = nullptr;
  if (natsMsgHeader_Get(msg, "Status", &status) == NATS_OK && status != nullptr) {
    const std::string code(status);
    const char* description = nullptr;
    natsMsgHeader_Get(msg, "Description", &description);
    const std::string text = description != nullptr ? description : "";
    natsMsg_Destroy(msg);
    if (code == "404" || code == "408") return std::optional<Delivery>();  // nothing now
    return Error::make(ErrorCode::kUnavailable, fmt::format("pulling from {}: status {} {}",
                                                            impl_->next_subject, code, text));
  }
  auto impl = std::make_unique<Delivery::Impl>();
  impl->msg = msg;
  impl->connection = impl_->connection;
  impl->wait_ms = impl_->wait_ms;
  const char* reply = natsMsg_GetReply(msg);
  if (reply == nullptr || !parse_ack_subject(reply, impl->attempt, impl->sequence)) {
    return Error::make(ErrorCode::kCorrupt,
                       fmt::format("a pulled message has no JetStream ack subject ('{}')",
                                   reply != nullptr ? reply : ""));
  }
  return std::optional<Delivery>(Delivery(std::move(impl)));
}

}  // namespace supportd::bus
