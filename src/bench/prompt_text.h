// Prompt text whose length in tokens the client can predict without the server's tokenizer:
// words drawn from a fixed list of common English words, each a single token (with its
// leading space) in the llama (SentencePiece and BPE), GPT-2, StarCoder, Qwen2, Phi-3 and
// Gemma vocabularies, so N words are about N tokens. Deterministic for a seed.
// Thread-safety: free functions without shared state.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace supportd::bench {

// The word list (without spaces), in a fixed order.
std::span<const std::string_view> prompt_words();

// `count` words separated by single spaces, chosen by a generator seeded with `seed`; the same
// seed and count always give the same text. Empty for count <= 0.
std::string prompt_text(std::uint64_t seed, int count);

}  // namespace supportd::bench
