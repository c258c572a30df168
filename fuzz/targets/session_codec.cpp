// Fuzz target: the MessagePack session codec (store/session_codec.h), as the tiered store reads
// sessions back from Redis, where any value may be found. Any bytes decode or give kCorrupt;
// what decodes re-encodes to a form that decodes to the same encoding again.
#include "store/session_codec.h"

#include "fuzz_check.h"

using namespace supportd;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto view = store::decode_session(fuzz::text_of(data, size));
  fuzz::require_explained(view);
  if (!view) {
    fuzz::require(view.error().code == ErrorCode::kCorrupt, "a bad value is kCorrupt");
    return 0;
  }
  const std::string encoded = store::encode_session(*view);
  const auto again = store::decode_session(encoded);
  fuzz::require(again.ok(), "an encoded session decodes");
  fuzz::require(store::encode_session(*again) == encoded, "decode(encode(view)) is view");
  return 0;
}
