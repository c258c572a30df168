// Word boundaries for word rules, on normalized (NFKC-casefolded) UTF-8 text. A word
// character is a letter, digit or combining mark of a script written with spaces between
// words; Han, kana, Thai, Lao, Khmer, Myanmar, Tibetan and Yi are written without spaces, so
// they never need a boundary: "ass" does not match inside "class", but "炸弹" matches inside
// "买炸弹吗" and "bomb" inside "买bomb吗". Thread-safe (pure functions).
#pragma once

#include <cstddef>
#include <string_view>

namespace supportd::filter {

// True when the character starting at byte `offset` of `text` is a word character
// (false at the end of the text).
bool word_character_at(std::string_view text, std::size_t offset);

// True when the character ending at byte `offset` of `text` is a word character
// (false at the start of the text).
bool word_character_before(std::string_view text, std::size_t offset);

}  // namespace supportd::filter
