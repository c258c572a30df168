// UTF-8 checks and a streaming sanitizer. Model tokens are byte strings that may split a
// character across tokens or contain bytes that are not UTF-8 at all; everything supportd
// emits must be valid UTF-8, so pieces pass through Utf8Stream on their way out.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace supportd {

// True when `text` is entirely well-formed UTF-8 (no overlongs, surrogates or > U+10FFFF).
bool is_valid_utf8(std::string_view text);

// Byte offset of the first ill-formed sequence, or text.size() when the text is valid.
std::size_t first_invalid_utf8(std::string_view text);

// Replaces every ill-formed sequence with U+FFFD (maximal subparts, as Unicode recommends).
std::string sanitize_utf8(std::string_view text);

// Feeds arbitrary byte pieces; returns only whole, valid characters. An incomplete sequence at
// the end of a piece is held until the next piece completes it; ill-formed bytes become U+FFFD.
// Not thread-safe; one per stream.
class Utf8Stream {
 public:
  // Appends `bytes` and returns the text that is now complete.
  std::string push(std::string_view bytes);
  // Ends the stream: a held incomplete sequence becomes U+FFFD.
  std::string finish();
  // Bytes held back, waiting for the rest of a character.
  std::size_t pending() const { return pending_.size(); }

 private:
  std::string pending_;
};

}  // namespace supportd
