// Desk answers on the wire: as one JSON document, as server-sent events, and as WebSocket
// messages; and a conversation's history, whose answers carry the same source and citations —
// the shapes docs/api.md describes.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "desk/answer.h"
#include "http/reply_stream.h"

namespace supportd::desk {
struct History;
}

namespace supportd::api {

// {"seq_id", "text", "source", "citations", "confidence", "handoff", "timings", ...}.
std::string answer_json(const desk::Answer& answer);
std::string citations_json(const std::vector<desk::Citation>& citations);
// {"messages": [{"seq_id", "role", "text", "created_ms", "source"?, "citations"?, "agent"?}],
//  "handoff", "agent"}: a message's metadata fields only when it has them.
std::string history_json(const desk::History& history);

// Answers with one JSON body when the turn is done (`wrap`: {"message_seq_id", "answer"}).
std::shared_ptr<desk::AnswerSink> make_answer_json_sink(std::shared_ptr<http::ReplyStream> reply,
                                                        bool wrap);
// Streams the turn as server-sent events (citations, token, notice, done, [DONE]).
std::shared_ptr<desk::AnswerSink> make_answer_event_sink(std::shared_ptr<http::ReplyStream> reply);
// Sends each event as one JSON text message through `send`.
std::shared_ptr<desk::AnswerSink> make_answer_message_sink(std::function<void(std::string)> send);

}  // namespace supportd::api
