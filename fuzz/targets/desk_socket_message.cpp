// Fuzz target: the messages a customer's desk WebSocket sends (api/desk_requests.h,
// decode_socket_message); Beast does the framing (driven by the http_request target). A message
// decodes to a ping, a text to ask, or a refusal that says why.
#include "api/desk_requests.h"

#include "fuzz_check.h"

using namespace supportd;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const api::SocketMessage message = api::decode_socket_message(fuzz::text_of(data, size));
  using Kind = api::SocketMessage::Kind;
  if (message.kind == Kind::kRefused) fuzz::require(!message.text.empty(), "a refusal says why");
  if (message.kind == Kind::kAsk) fuzz::require(is_valid_utf8(message.text), "a text is UTF-8");
  return 0;
}
