// Fuzz target: the session-id signature check (store/session_id.h) every desk request runs on
// the id a client sends. Random ids must be refused (format: invalid_argument; signature:
// not_found), never accepted; ids issued for names taken from the input must verify as issued.
#include "store/session_id.h"

#include "fuzz_check.h"

using namespace supportd;

namespace {

const store::SessionSigner& signer() {
  static const store::SessionSigner instance =
      store::SessionSigner::create(std::string(32, 's')).value();
  return instance;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::text_of(data, size);
  const auto verified = signer().verify(text);
  fuzz::require_explained(verified);
  // An id from the input verifies only if the input is an id issued with this secret, which
  // the fuzzer cannot forge: the input would need a valid HMAC-SHA256.
  fuzz::require(!verified, "a fuzzed id never verifies");
  fuzz::require(verified.error().code == ErrorCode::kInvalidArgument ||
                    verified.error().code == ErrorCode::kNotFound,
                "a refused id is malformed or unknown");

  const std::size_t split = text.find('/');
  const std::string_view tenant = text.substr(0, split);
  const std::string_view user = split == std::string_view::npos ? "" : text.substr(split + 1);
  const auto issued = signer().issue(tenant, user);
  fuzz::require_explained(issued);
  if (!issued) return 0;
  const auto back = signer().verify(issued->token());
  fuzz::require(back.ok(), "an issued id verifies");
  fuzz::require(back->tenant() == tenant && back->user() == user, "an id names its issuer");
  fuzz::require(back->key() == store::session_key(issued->token()), "the key is the id's");
  return 0;
}
