// Text as the matchers see it: NFKC with Unicode case folding (ICU's NFKC_Casefold), so that
// full-width, compatibility and case variants ("ＢＯＭＢ", "Bomb", "ﬁ") fold to one form and
// default-ignorable characters (zero-width spaces, soft hyphens) disappear. Keeps a map back
// to the original bytes, so matches found here are reported, masked and cut in the original.
// Not thread-safe; one per text or stream.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace supportd::filter {

class NormalizedText {
 public:
  // Appends valid UTF-8. Unless `final`, the last character waits for the next append (a
  // combining mark that follows may still change it); final also flushes what waited.
  // Offsets below are absolute: they count every byte ever appended (or normalized).
  void append(std::string_view original, bool final);

  // Normalized bytes from base() to end(); always whole UTF-8 characters.
  const std::string& text() const { return text_; }
  std::size_t base() const { return base_; }
  std::size_t end() const { return base_ + text_.size(); }
  // Original bytes normalized so far (the waiting character is not included).
  std::size_t original_end() const { return original_end_; }

  // Where the character at normalized offset `offset` (base() <= offset < end()) starts in
  // the original. Inside a character that expanded ("ß" -> "ss"): where that one starts.
  std::size_t original_begin(std::size_t offset) const;
  // Where the character ending at normalized offset `offset` (base() < offset <= end()) ends
  // in the original.
  std::size_t original_end(std::size_t offset) const;
  // The original offset of a cut at normalized `offset`: original_begin, or original_end()
  // at end().
  std::size_t original_cut(std::size_t offset) const;

  // The nearest offset at or before `offset` (and not before base()) where both texts can be
  // cut: a character boundary that is not inside an expanded character.
  std::size_t cut_point(std::size_t offset) const;

  // Forgets normalized text and map before `offset` (a character boundary <= end()).
  void discard_before(std::size_t offset);

 private:
  // A run of normalized bytes and the original bytes it came from. `linear` runs map byte
  // for byte (unchanged text, ASCII case changes); others are one changed character or
  // segment, and map as a whole. Deleted characters are pieces with normalized_size 0.
  struct Piece {
    std::size_t normalized = 0;
    std::size_t normalized_size = 0;
    std::size_t original = 0;
    std::size_t original_size = 0;
    bool linear = true;
  };

  void normalize(std::string_view original);
  void add_piece(const Piece& piece);
  const Piece& piece_containing(std::size_t offset) const;

  std::string text_;
  std::size_t base_ = 0;
  std::vector<Piece> pieces_;
  std::string waiting_;  // original text after original_end_, not normalized yet
  std::size_t original_end_ = 0;
};

// Normalizes a whole text at once (NFKC_Casefold); the result maps back to `original`.
NormalizedText normalize_text(std::string_view original);

}  // namespace supportd::filter
