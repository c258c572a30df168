// Word boundaries on normalized text by script (see word_boundary.h).
#include "filter/word_boundary.h"

#include <cstdint>

#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/utf8.h>

namespace supportd::filter {
namespace {

bool is_word_character(UChar32 c) {
  if (c < 0x80) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  const int8_t type = u_charType(c);
  const bool word_like = u_isalnum(c) || type == U_NON_SPACING_MARK ||
                         type == U_COMBINING_SPACING_MARK || type == U_ENCLOSING_MARK;
  if (!word_like) return false;
  UErrorCode status = U_ZERO_ERROR;
  switch (uscript_getScript(c, &status)) {
    case USCRIPT_HAN:
    case USCRIPT_HIRAGANA:
    case USCRIPT_KATAKANA:
    case USCRIPT_KATAKANA_OR_HIRAGANA:
    case USCRIPT_BOPOMOFO:
    case USCRIPT_THAI:
    case USCRIPT_LAO:
    case USCRIPT_KHMER:
    case USCRIPT_MYANMAR:
    case USCRIPT_TIBETAN:
    case USCRIPT_YI: return false;
    default: return true;
  }
}

}  // namespace

bool word_character_at(std::string_view text, std::size_t offset) {
  if (offset >= text.size()) return false;
  const auto* bytes = reinterpret_cast<const uint8_t*>(text.data());
  auto i = static_cast<int32_t>(offset);
  UChar32 c = 0;
  U8_NEXT(bytes, i, static_cast<int32_t>(text.size()), c);
  return c >= 0 && is_word_character(c);
}

bool word_character_before(std::string_view text, std::size_t offset) {
  if (offset == 0 || offset > text.size()) return false;
  const auto* bytes = reinterpret_cast<const uint8_t*>(text.data());
  auto i = static_cast<int32_t>(offset);
  UChar32 c = 0;
  U8_PREV(bytes, 0, i, c);
  return c >= 0 && is_word_character(c);
}

}  // namespace supportd::filter
