// What travels between gateways and engine nodes, and its encoding: JSON objects with an
// explicit version ("v": 1) and every field named, so a message can be read with `nats sub`
// and a node of another version is refused by name instead of misread. Decoding checks every
// field's type and reports what is wrong (kCorrupt); unknown fields are ignored, so a later
// version may add fields without breaking this one.
// Thread-safety: pure functions.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "engine/engine.h"

namespace supportd::bus {

inline constexpr int kWireVersion = 1;

// A request as a gateway stores it on supportd.requests.<class>.
struct WorkOrder {
  std::string request_id;  // "<gateway id>-<n>": unique in the cluster, and the message id
  std::string gateway_id;  // the gateway that waits for the tokens
  engine::GenerationRequest request;  // its deadline travels as wall-clock time
};

// One event on a request's token subject, from the engine that holds it to its gateway.
struct StreamEvent {
  enum class Kind {
    kStarted,  // an engine took delivery `attempt` and started (engine_id says which)
    kText,     // `text` is the customer's token number `sequence`
    kAlive,    // the engine still holds the request (once per heartbeat)
    kDone,     // the end: `completion`; `sequence` follows the last text's
  };
  Kind kind = Kind::kText;
  std::string request_id;
  std::uint64_t attempt = 1;      // the JetStream delivery that produced the event
  std::uint64_t sequence = 0;     // kText, kDone: 1, 2, ... per request, across attempts
  std::string text;               // kText
  std::string engine_id;          // kStarted
  engine::Completion completion;  // kDone
};

// An engine that took a redelivered request asks its gateway where the stream stands.
struct ProgressQuery {
  std::string request_id;
  std::uint64_t attempt = 0;
  std::string engine_id;
};

struct ProgressReply {
  enum class State {
    kStreaming,  // go on after `delivered` tokens whose text is `text`
    kFinished,   // the customer has the whole answer: acknowledge, do nothing
    kUnknown,    // nobody waits for it any more (cancelled, failed, gateway restarted)
  };
  State state = State::kUnknown;
  std::uint64_t delivered = 0;  // tokens the customer has
  std::string text;             // their text, concatenated
};

// Gateway -> engines: stop the request. `below_attempt` 0 stops every attempt; otherwise only
// attempts below it (superseded ones). `give_back` asks the holder to hand the request back to
// the queue at once (nak) rather than drop it: the gateway lost part of the stream and wants a
// new attempt to resume from what the customer has.
struct CancelOrder {
  std::string request_id;
  std::uint64_t below_attempt = 0;
  bool give_back = false;
};

// An engine node's heartbeat on supportd.engines.<id>.
struct EngineLoad {
  std::string engine_id;
  engine::ModelCard model;
  bool ready = false;          // serving (false while warming up or draining)
  int slots = 0;               // requests it takes at once
  int held = 0;                // requests it holds now
  double completion_rate = 0;  // requests finished per second, recent average (0: unknown)
  double service_seconds = 0;  // mean time from start to end of a request (0: unknown)
  int heartbeat_ms = 500;      // the next heartbeat comes within this (plus delays)
};

std::string encode(const WorkOrder& order);
std::string encode(const StreamEvent& event);
std::string encode(const ProgressQuery& query);
std::string encode(const ProgressReply& reply);
std::string encode(const CancelOrder& order);
std::string encode(const EngineLoad& load);

Result<WorkOrder> decode_work_order(std::string_view data);
Result<StreamEvent> decode_stream_event(std::string_view data);
Result<ProgressQuery> decode_progress_query(std::string_view data);
Result<ProgressReply> decode_progress_reply(std::string_view data);
Result<CancelOrder> decode_cancel_order(std::string_view data);
Result<EngineLoad> decode_engine_load(std::string_view data);

}  // namespace supportd::bus
