// The encoder's tokenizer: a SentencePiece unigram model over the weight file's 8,000 scored
// pieces, reproducing the JavaScript of @energetic-ai/embeddings@0.2.0 exactly, quirks included:
// NFKC; U+0020 becomes "▁" and one "▁" leads; a trie over code points; a Viterbi pass that takes
// a later candidate on ties and whenever the best so far is exactly 0; a code point no piece
// starts with becomes id 0 (score 0) and runs of id 0 merge into one. Thread-safety: immutable
// after create(); any thread may encode at once.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/status.h"

namespace supportd::encoder {

class WeightFile;

class Tokenizer {
 public:
  // Builds the trie from `weights`' pieces. kCorrupt (naming the file) when a piece is not UTF-8.
  static Result<std::unique_ptr<Tokenizer>> create(const WeightFile& weights);

  // Token ids of `text`, not truncated. REQUIRES: text is valid UTF-8 (checked by the caller).
  std::vector<int> encode(std::string_view text) const;

  // Unicode code points of NFKC(text) with the JavaScript's "▁" handling applied.
  // REQUIRES: text is valid UTF-8.
  static std::vector<char32_t> symbols(std::string_view text);

 private:
  struct Node {
    int piece = -1;    // id when a piece ends here, else -1
    double score = 0;  // that piece's score
    int length = 0;    // code points from the root
  };
  Tokenizer() = default;
  int child(int node, char32_t symbol) const;  // -1 when absent

  std::vector<Node> nodes_;                          // nodes_[0] is the root
  std::unordered_map<std::uint64_t, int> children_;  // (node << 21 | symbol) -> node
  std::vector<int> utf16_lengths_;                   // per id: the piece's JavaScript .length
};

}  // namespace supportd::encoder
