// Engine output turned into OpenAI answers: a server-sent-event stream of chunks, or one JSON
// body when the generation ends. Called on the engine's thread; they only format and hand the
// bytes to an http::ReplyStream.
#pragma once

#include <memory>
#include <string>

#include "engine/request.h"
#include "http/reply_stream.h"

namespace supportd::api {

struct CompletionFormat {
  bool chat = true;  // chat.completion(.chunk) or text_completion
  std::string id;    // "chatcmpl-..." / "cmpl-..."
  std::string model;
  std::int64_t created = 0;    // Unix seconds
  bool include_usage = false;  // a final usage-only chunk (stream_options.include_usage)
};

// Streams chunks as "data: {...}\n\n" and ends with "data: [DONE]".
std::shared_ptr<engine::GenerationSink> make_streaming_sink(
    std::shared_ptr<http::ReplyStream> reply, CompletionFormat format);

// Collects the text and answers once with the complete JSON response.
std::shared_ptr<engine::GenerationSink> make_collecting_sink(
    std::shared_ptr<http::ReplyStream> reply, CompletionFormat format);

}  // namespace supportd::api
