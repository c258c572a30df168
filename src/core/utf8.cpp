// UTF-8 checking and repair by the Unicode standard's well-formed byte sequences (table 3-7):
// ill-formed bytes become U+FFFD, and Utf8Stream holds back a character split across pieces
// until its rest arrives.
#include "core/utf8.h"

#include <cstdint>

namespace supportd {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// Length of the well-formed sequence starting at text[i] (1..4), 0 when ill-formed, or -n
// when the text ends after n bytes that are a valid prefix of a sequence.
int sequence_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<std::uint8_t>(text[k]); };
  const std::uint8_t lead = byte(i);
  if (lead < 0x80) return 1;
  int length = 0;
  std::uint8_t low = 0x80, high = 0xBF;  // range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // no overlongs
    if (lead == 0xED) high = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // no overlongs
    if (lead == 0xF4) high = 0x8F;  // nothing above U+10FFFF
  } else {
    return 0;
  }
  for (int k = 1; k < length; ++k) {
    if (i + k >= text.size()) return -k;
    const std::uint8_t b = byte(i + k);
    const std::uint8_t lo = k == 1 ? low : 0x80;
    const std::uint8_t hi = k == 1 ? high : 0xBF;
    if (b < lo || b > hi) return 0;
  }
  return length;
}

// Number of bytes of the maximal ill-formed subpart at text[i] (at least 1).
std::size_t ill_formed_length(std::string_view text, std::size_t i) {
  // Consume the lead byte and every continuation byte that was still acceptable.
  std::size_t n = 1;
  while (i + n < text.size()) {
    const int probe = sequence_length(text.substr(0, i + n + 1), i);
    if (probe == -static_cast<int>(n + 1) || probe == static_cast<int>(n + 1)) {
      ++n;
    } else {
      break;
    }
  }
  return n;
}

}  // namespace

std::size_t first_invalid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const int n = sequence_length(text, i);
    if (n <= 0) return i;
    i += static_cast<std::size_t>(n);
  }
  return text.size();
}

bool is_valid_utf8(std::string_view text) {
  return first_invalid_utf8(text) == text.size();
}

std::string sanitize_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const int n = sequence_length(text, i);
    if (n > 0) {
      out.append(text.substr(i, static_cast<std::size_t>(n)));
      i += static_cast<std::size_t>(n);
    } else if (n < 0) {  // truncated at the end
      out.append(kReplacement);
      break;
    } else {
      out.append(kReplacement);
      i += ill_formed_length(text, i);
    }
  }
  return out;
}

std::string Utf8Stream::push(std::string_view bytes) {
  pending_.append(bytes);
  std::string out;
  std::size_t i = 0;
  while (i < pending_.size()) {
    const int n = sequence_length(pending_, i);
    if (n > 0) {
      out.append(pending_, i, static_cast<std::size_t>(n));
      i += static_cast<std::size_t>(n);
    } else if (n < 0) {
      break;  // wait for the rest of this character
    } else {
      out.append(kReplacement);
      i += ill_formed_length(pending_, i);
    }
  }
  pending_.erase(0, i);
  return out;
}

std::string Utf8Stream::finish() {
  std::string out = pending_.empty() ? std::string() : std::string(kReplacement);
  pending_.clear();
  return out;
}

}  // namespace supportd
