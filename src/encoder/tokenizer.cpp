// The encoder's SentencePiece tokenizer: a trie over the pieces' code points and a Viterbi
// pass over the text's symbols, with the JavaScript original's tie-breaking (tokenizer.h).
#include "encoder/tokenizer.h"

#include <unicode/normalizer2.h>
#include <unicode/unistr.h>

#include <algorithm>

#include "core/utf8.h"
#include "encoder/weight_file.h"

namespace supportd::encoder {
namespace {

constexpr char32_t kSeparator = 0x2581;  // "▁"
constexpr int kUnknown = 0;

std::uint64_t edge_key(int node, char32_t symbol) {
  return (static_cast<std::uint64_t>(node) << 21) | symbol;
}

// Code points of valid UTF-8 (validated by the caller or by is_valid_utf8).
std::vector<char32_t> code_points(std::string_view text) {
  std::vector<char32_t> out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const int length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    char32_t cp = length == 1   ? lead
                  : length == 2 ? lead & 0x1F
                  : length == 3 ? lead & 0x0F
                                : lead & 0x07;
    for (int k = 1; k < length; ++k)
      cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    out.push_back(cp);
    i += length;
  }
  return out;
}

}  // namespace

Result<std::unique_ptr<Tokenizer>> Tokenizer::create(const WeightFile& weights) {
  std::unique_ptr<Tokenizer> tokenizer(new Tokenizer());
  tokenizer->nodes_.push_back({});
  tokenizer->utf16_lengths_.resize(weights.piece_count());
  for (std::size_t id = 0; id < weights.piece_count(); ++id) {
    const std::string_view piece = weights.piece(id);
    if (!is_valid_utf8(piece))
      return Error::make(ErrorCode::kCorrupt, "encoder weight file " + weights.path() +
                                                  " is corrupt: piece " + std::to_string(id) +
                                                  " is not UTF-8");
    const std::vector<char32_t> symbols = code_points(piece);
    int length16 = 0;
    for (char32_t cp : symbols)
      length16 += cp > 0xFFFF ? 2 : 1;
    tokenizer->utf16_lengths_[id] = length16;
    if (id < weights.reserved_pieces()) continue;  // reserved ids never come from the trie
    int node = 0;
    for (char32_t symbol : symbols) {
      int next = tokenizer->child(node, symbol);
      if (next < 0) {
        next = static_cast<int>(tokenizer->nodes_.size());
        tokenizer->nodes_.push_back({-1, 0, tokenizer->nodes_[node].length + 1});
        tokenizer->children_.emplace(edge_key(node, symbol), next);
      }
      node = next;
    }
    if (node == 0) continue;  // an empty piece inserts nothing
    // A piece listed twice: the later id and score win, as in the JavaScript trie.
    tokenizer->nodes_[node].piece = static_cast<int>(id);
    tokenizer->nodes_[node].score = weights.score(id);
  }
  return tokenizer;
}

int Tokenizer::child(int node, char32_t symbol) const {
  const auto found = children_.find(edge_key(node, symbol));
  return found == children_.end() ? -1 : found->second;
}

std::vector<char32_t> Tokenizer::symbols(std::string_view text) {
  // String.prototype.normalize("NFKC") is ICU's NFKC in V8 too.
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfkc = icu::Normalizer2::getNFKCInstance(status);
  icu::UnicodeString normalized;
  if (U_SUCCESS(status))
    normalized = nfkc->normalize(icu::UnicodeString::fromUTF8(icu::StringPiece(
                                     text.data(), static_cast<int32_t>(text.size()))),
                                 status);
  std::string utf8;
  if (U_SUCCESS(status)) {
    normalized.toUTF8String(utf8);
  } else {
    utf8 = std::string(text);  // ICU's data is missing: tokenize unnormalized rather than fail
  }
  std::vector<char32_t> symbols = code_points(utf8);
  if (symbols.empty()) return symbols;
  std::replace(symbols.begin(), symbols.end(), U' ', kSeparator);
  symbols.insert(symbols.begin(), kSeparator);
  return symbols;
}

std::vector<int> Tokenizer::encode(std::string_view text) const {
  const std::vector<char32_t> input = symbols(text);
  const std::size_t n = input.size();
  // best[end]: score of the best segmentation of input[0, end); words[end]: its last piece.
  std::vector<double> best(n + 1, 0.0);
  std::vector<int> words(n + 1, kUnknown);
  const auto offer = [&](std::size_t end, double score, int id) {
    if (best[end] == 0 || score >= best[end]) {  // the JavaScript's rule, verbatim
      best[end] = score;
      words[end] = id;
    }
  };
  // Candidates are offered start by start; for each end that is the JavaScript's order (ends
  // ascending, starts ascending), and best[start] is final before any candidate leaves it.
  for (std::size_t start = 0; start < n; ++start) {
    bool matched = false;
    int node = child(0, input[start]);
    for (std::size_t i = start; node >= 0;) {
      if (nodes_[node].piece >= 0) {
        offer(start + nodes_[node].length, nodes_[node].score + best[start], nodes_[node].piece);
        matched = true;
      }
      if (++i == n) break;
      node = child(node, input[i]);
    }
    if (!matched) offer(start + 1, 0.0 + best[start], kUnknown);
  }
  // Walk back by each piece's JavaScript string length (UTF-16 units), as the original does.
  std::vector<int> reversed;
  for (std::ptrdiff_t at = static_cast<std::ptrdiff_t>(n); at > 0;) {
    reversed.push_back(words[at]);
    at -= utf16_lengths_[words[at]];
  }
  std::vector<int> ids;
  ids.reserve(reversed.size());
  bool previous_unknown = false;
  for (int id : reversed) {
    if (!(previous_unknown && id == kUnknown)) ids.push_back(id);
    previous_unknown = id == kUnknown;
  }
  std::reverse(ids.begin(), ids.end());
  return ids;
}

}  // namespace supportd::encoder
