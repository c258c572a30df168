// How far a shadow's answer agrees with production's (engine/router/shadow_queue.h): exactly,
// and token by token. The tokens are words (runs of characters between whitespace), not a
// model's tokens: a shadow may be a model with another tokenizer, and words compare the same
// way whatever produced them.
// Thread-safety: pure functions.
#pragma once

#include <string_view>

namespace supportd::engine::router {

struct Agreement {
  bool exact = false;  // the two texts are byte for byte the same
  // The F1 of the two answers' words counted as multisets (each word as many times as it
  // occurs): 2 * common / (words in production + words in shadow), from 0 (no word in common)
  // to 1 (the same words, in any order); 1 when both have no words.
  double overlap = 0;
};

Agreement compare_answers(std::string_view production, std::string_view shadow);

}  // namespace supportd::engine::router
