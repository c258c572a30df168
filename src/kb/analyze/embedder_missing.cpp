// The build without src/encoder: there is no sentence encoder, and the knowledge base keeps to
// its lexical path.
#include "kb/analyze/embedder.h"

namespace supportd::kb {

Result<std::unique_ptr<Embedder>> open_sentence_encoder(const std::string&) {
  return Error::make(ErrorCode::kUnavailable,
                     "this build has no sentence encoder (src/encoder was not built)");
}

bool sentence_encoder_built() {
  return false;
}

}  // namespace supportd::kb
