// NFKC case folding through ICU, with the map from normalized back to original bytes (see
// text_normalizer.h).
#include "filter/text_normalizer.h"

#include <algorithm>
#include <cassert>

#include <unicode/bytestream.h>
#include <unicode/edits.h>
#include <unicode/normalizer2.h>
#include <unicode/utf8.h>

namespace supportd::filter {
namespace {

// Text that waits for a following character is normalized anyway past this size, so that an
// endless run of combining marks cannot grow it without bound.
constexpr std::size_t kMaxWaiting = 1024;

const icu::Normalizer2& nfkc_casefold() {
  static const icu::Normalizer2* const instance = [] {
    UErrorCode status = U_ZERO_ERROR;
    const icu::Normalizer2* normalizer = icu::Normalizer2::getNFKCCasefoldInstance(status);
    if (U_FAILURE(status) || normalizer == nullptr) std::abort();  // ICU data missing
    return normalizer;
  }();
  return *instance;
}

bool is_ascii(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

// How much of `text` can be normalized before the next piece arrives: up to the last
// character that starts a normalization segment (nothing before it can combine with it), or
// all of it when its last character can combine with nothing that follows.
std::size_t last_segment_start(std::string_view text) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(text.data());
  int32_t i = static_cast<int32_t>(text.size());
  if (i > 0) {
    int32_t last = i;
    UChar32 c = 0;
    U8_PREV(bytes, 0, last, c);
    if (c >= 0 && nfkc_casefold().hasBoundaryAfter(c)) return text.size();
  }
  while (i > 0) {
    UChar32 c = 0;
    U8_PREV(bytes, 0, i, c);
    if (c >= 0 && nfkc_casefold().hasBoundaryBefore(c)) return static_cast<std::size_t>(i);
  }
  return 0;
}

}  // namespace

void NormalizedText::append(std::string_view original, bool final) {
  waiting_.append(original);
  std::size_t ready = waiting_.size();
  if (!final && waiting_.size() <= kMaxWaiting) ready = last_segment_start(waiting_);
  if (ready == 0) return;
  normalize(std::string_view(waiting_).substr(0, ready));
  waiting_.erase(0, ready);
}

void NormalizedText::normalize(std::string_view original) {
  const std::size_t original_start = original_end_;
  original_end_ += original.size();
  if (is_ascii(original)) {
    // NFKC_Casefold of ASCII is ASCII lower case, byte for byte.
    const std::size_t at = end();
    text_.reserve(text_.size() + original.size());
    for (char c : original)
      text_.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c);
    add_piece({at, original.size(), original_start, original.size(), true});
    return;
  }

  std::string folded;
  icu::StringByteSink<std::string> sink(&folded);
  icu::Edits edits;
  UErrorCode status = U_ZERO_ERROR;
  nfkc_casefold().normalizeUTF8(0, icu::StringPiece(original.data(), original.size()), sink, &edits,
                                status);
  if (U_FAILURE(status)) {
    // Only possible for ill-formed input or allocation failure: keep the text as it is.
    folded.assign(original);
    edits.reset();
  }
  const std::size_t at = end();
  text_.append(folded);
  if (edits.numberOfChanges() == 0) {
    add_piece({at, folded.size(), original_start, original.size(), true});
    return;
  }
  icu::Edits::Iterator it = edits.getFineIterator();
  while (it.next(status)) {
    const auto old_size = static_cast<std::size_t>(it.oldLength());
    const auto new_size = static_cast<std::size_t>(it.newLength());
    const bool linear = !it.hasChange() || (old_size == 1 && new_size == 1);
    add_piece({at + static_cast<std::size_t>(it.destinationIndex()), new_size,
               original_start + static_cast<std::size_t>(it.sourceIndex()), old_size, linear});
  }
}

void NormalizedText::add_piece(const Piece& piece) {
  if (piece.normalized_size == 0 && piece.original_size == 0) return;
  if (!pieces_.empty()) {
    Piece& last = pieces_.back();
    if (last.linear && piece.linear && last.normalized + last.normalized_size == piece.normalized &&
        last.original + last.original_size == piece.original) {
      last.normalized_size += piece.normalized_size;
      last.original_size += piece.original_size;
      return;
    }
  }
  pieces_.push_back(piece);
}

const NormalizedText::Piece& NormalizedText::piece_containing(std::size_t offset) const {
  assert(offset >= base_ && offset < end());
  // The last piece starting at or before `offset`; deleted characters (empty pieces) sort
  // before the character that follows them, so this is the non-empty piece holding `offset`.
  auto it =
      std::upper_bound(pieces_.begin(), pieces_.end(), offset,
                       [](std::size_t value, const Piece& p) { return value < p.normalized; });
  assert(it != pieces_.begin());
  --it;
  return *it;
}

std::size_t NormalizedText::original_begin(std::size_t offset) const {
  const Piece& piece = piece_containing(offset);
  return piece.linear ? piece.original + (offset - piece.normalized) : piece.original;
}

std::size_t NormalizedText::original_end(std::size_t offset) const {
  const Piece& piece = piece_containing(offset - 1);
  return piece.linear ? piece.original + (offset - piece.normalized)
                      : piece.original + piece.original_size;
}

std::size_t NormalizedText::original_cut(std::size_t offset) const {
  return offset >= end() ? original_end_ : original_begin(offset);
}

std::size_t NormalizedText::cut_point(std::size_t offset) const {
  offset = std::clamp(offset, base_, end());
  while (offset > base_ && (static_cast<unsigned char>(text_[offset - base_]) & 0xC0) == 0x80)
    --offset;
  if (offset == end() || offset == base_) return offset;
  const Piece& piece = piece_containing(offset);
  return piece.linear ? offset : std::max(piece.normalized, base_);
}

void NormalizedText::discard_before(std::size_t offset) {
  offset = std::min(offset, end());
  if (offset <= base_) return;
  text_.erase(0, offset - base_);
  base_ = offset;
  // Keep every piece that still covers a normalized byte at or after `offset`, and the
  // deleted characters right at it.
  const auto keep = std::find_if(pieces_.begin(), pieces_.end(), [&](const Piece& p) {
    return p.normalized + p.normalized_size > offset ||
           (p.normalized_size == 0 && p.normalized >= offset);
  });
  pieces_.erase(pieces_.begin(), keep);
}

NormalizedText normalize_text(std::string_view original) {
  NormalizedText text;
  text.append(original, true);
  return text;
}

}  // namespace supportd::filter
