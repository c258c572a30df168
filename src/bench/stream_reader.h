// Reads one streamed completion as the server sent it: SSE data payloads (OpenAI chunks, an
// error event, "[DONE]") with the time each arrived, into token times and usage; and the few
// other answers the load tester interprets (refusals, Retry-After, the model list).
// Thread-safety: StreamReader is one stream's state; the free functions are pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace supportd::bench {

class StreamReader {
 public:
  // One event's data, received `offset_s` seconds after the request was sent. A chunk with
  // non-empty content (chat: choices[0].delta.content; completions: choices[0].text) is a
  // token event; "usage" anywhere is kept (the last one wins); {"error": ...} fails the stream;
  // the first "model" is kept.
  void on_event(std::string_view data, float offset_s);

  bool done() const { return done_; }      // "[DONE]" arrived
  bool failed() const { return failed_; }  // an error event or an unparseable chunk arrived
  // "stream_error:<code>" or "bad_chunk"; empty unless failed().
  const std::string& failure() const { return failure_; }
  const std::vector<float>& token_times() const { return tokens_; }
  std::vector<float> take_token_times() { return std::move(tokens_); }
  int prompt_tokens() const { return prompt_tokens_; }  // -1 until usage arrives
  int completion_tokens() const { return completion_tokens_; }
  int cached_tokens() const { return cached_tokens_; }
  // supportd's "timings.queued_ms" of the last chunk: how long the request waited for a slot;
  // -1 when the server sent none (another server).
  double queued_ms() const { return queued_ms_; }
  // The "model" the first chunk that had one named (a model router's version); "" when none.
  const std::string& model() const { return model_; }

 private:
  std::vector<float> tokens_;
  bool done_ = false;
  bool failed_ = false;
  std::string failure_;
  int prompt_tokens_ = -1;
  int completion_tokens_ = -1;
  int cached_tokens_ = -1;
  double queued_ms_ = -1;
  std::string model_;
};

// The kind of a non-200 answer: "<status>" and, when the body is an OpenAI error with a code
// (or a type), ":<code>", e.g. "429:queue_full", "503:deadline_exceeded", "500".
std::string response_kind(int status, std::string_view body);

// Retry-After in seconds (delta-seconds form); -1 when absent or not a number.
double parse_retry_after(std::string_view value);

// The first "id" of an OpenAI model list ({"data": [{"id": ...}, ...]}). kCorrupt otherwise.
Result<std::string> first_model_id(std::string_view body);

}  // namespace supportd::bench
