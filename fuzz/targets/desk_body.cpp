// Fuzz target: the desk's JSON request bodies (api/desk_requests.h), each input decoded as
// every route's body (a session's start, a message, an answer, feedback, an agent's action),
// and its first line as the query of GET .../messages. Every refusal must say why; what decodes
// must hold what the route promises (a valid UTF-8 text, an agent named).
#include "api/desk_requests.h"

#include "fuzz_check.h"

using namespace supportd;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body = fuzz::text_of(data, size);
  const auto user = api::decode_start_body(body);
  fuzz::require_explained(user);
  for (const auto& ask : {api::decode_message_body(body), api::decode_answer_body(body)}) {
    fuzz::require_explained(ask);
    if (ask) fuzz::require(is_valid_utf8(ask->text), "an asked text is valid UTF-8");
  }
  fuzz::require_explained(api::decode_feedback_body(body));
  for (const std::string_view action : {"take", "reply", "close", "release"}) {
    const auto agent = api::decode_agent_body(body, action, size % 2 ? "agent-on-header" : "");
    fuzz::require_explained(agent);
    if (agent) fuzz::require(!agent->agent.empty(), "an agent's action names the agent");
  }

  http::Request request;
  request.query = std::string(body.substr(0, body.find('\n')));
  const auto limit = api::integer_param(request, "limit", 50, 1, 1000);
  fuzz::require_explained(limit);
  if (limit) fuzz::require(*limit >= 1 && *limit <= 1000, "a limit decodes within its range");
  return 0;
}
