// The word list and the prompt builder (prompt_text.h): every word one token in the common
// vocabularies, drawn with a seeded generator.
#include "bench/prompt_text.h"

#include <array>
#include <random>

namespace supportd::bench {
namespace {

// Checked against llama.cpp's vocabularies (ggml-vocab-{llama-spm,llama-bpe,gpt-2,starcoder,
// qwen2,qwen35,phi-3,gemma-4}.gguf): " word" is one token in each. tests/bench checks the
// tokenizers of the synthesized test models.
constexpr std::array<std::string_view, 266> kWords = {
    "the",      "of",      "and",        "to",          "in",      "is",      "you",
    "that",     "it",      "he",         "was",         "for",     "on",      "are",
    "as",       "with",    "his",        "they",        "at",      "be",      "this",
    "have",     "from",    "or",         "one",         "had",     "by",      "word",
    "but",      "not",     "what",       "all",         "were",    "we",      "when",
    "your",     "can",     "said",       "there",       "use",     "an",      "each",
    "which",    "she",     "do",         "how",         "their",   "if",      "will",
    "up",       "other",   "about",      "out",         "many",    "then",    "them",
    "these",    "so",      "some",       "her",         "would",   "make",    "like",
    "him",      "into",    "time",       "has",         "look",    "two",     "more",
    "write",    "go",      "see",        "number",      "no",      "way",     "could",
    "people",   "my",      "than",       "first",       "water",   "been",    "call",
    "who",      "oil",     "its",        "now",         "find",    "long",    "down",
    "day",      "did",     "get",        "come",        "made",    "may",     "part",
    "order",    "account", "payment",    "card",        "help",    "please",  "thank",
    "delivery", "package", "store",      "price",       "bill",    "money",   "bank",
    "transfer", "service", "customer",   "question",    "answer",  "phone",   "email",
    "address",  "name",    "date",       "week",        "month",   "year",    "today",
    "hour",     "minute",  "problem",    "issue",       "error",   "change",  "cancel",
    "return",   "send",    "receive",    "check",       "open",    "close",   "new",
    "old",      "good",    "bad",        "best",        "last",    "next",    "second",
    "small",    "large",   "big",        "little",      "high",    "low",     "fast",
    "slow",     "free",    "full",       "want",        "need",    "know",    "think",
    "take",     "give",    "tell",       "ask",         "work",    "try",     "feel",
    "keep",     "let",     "put",        "mean",        "seem",    "leave",   "show",
    "hear",     "play",    "run",        "move",        "live",    "believe", "bring",
    "happen",   "begin",   "every",      "much",        "very",    "just",    "also",
    "well",     "only",    "back",       "even",        "still",   "here",    "where",
    "why",      "after",   "before",     "over",        "under",   "again",   "off",
    "never",    "always",  "often",      "because",     "while",   "since",   "until",
    "though",   "both",    "few",        "most",        "such",    "same",    "own",
    "another",  "any",     "home",       "house",       "room",    "car",     "city",
    "country",  "world",   "family",     "friend",      "child",   "school",  "job",
    "business", "company", "government", "group",       "team",    "hand",    "life",
    "place",    "case",    "point",      "fact",        "system",  "program", "right",
    "left",     "man",     "woman",      "information", "policy",  "product", "item",
    "password", "login",   "update",     "status",      "balance", "credit",  "fee",
    "charge",   "cost",    "total",      "amount",      "limit",   "plan",    "offer"};

}  // namespace

std::span<const std::string_view> prompt_words() {
  return kWords;
}

std::string prompt_text(std::uint64_t seed, int count) {
  std::string text;
  if (count <= 0) return text;
  text.reserve(static_cast<std::size_t>(count) * 7);
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<std::size_t> pick(0, kWords.size() - 1);
  for (int i = 0; i < count; ++i) {
    if (i > 0) text.push_back(' ');
    text.append(kWords[pick(random)]);
  }
  return text;
}

}  // namespace supportd::bench
