// Fuzz target: the OpenAI request decoding (api/openai_request.h) of /v1/chat/completions and
// /v1/completions bodies. Each input is decoded as both; what decodes must be within the limits
// the decoder promises, and every refusal must say why.
#include "api/openai_request.h"

#include "fuzz_check.h"

using namespace supportd;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body = fuzz::text_of(data, size);
  for (const bool chat : {true, false}) {
    const auto call = api::parse_completion_call(body, chat);
    fuzz::require_explained(call);
    if (!call) continue;
    if (call->timeout_s) {
      fuzz::require(*call->timeout_s >= api::kMinTimeout && *call->timeout_s <= api::kMaxTimeout,
                    "a timeout decodes within its range");
    }
    for (const auto& message : call->request.messages)
      fuzz::require(is_valid_utf8(message.content), "message content is valid UTF-8");
  }
  return 0;
}
