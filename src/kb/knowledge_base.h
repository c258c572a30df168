// The knowledge base as the rest of supportd sees it: open a directory written by
// `supportd kb import`, search it, read its version. Search fuses BM25, the fastText intent
// classifier and (for English questions, when the KB has vectors and an encoder is given) the
// sentence encoder's nearest neighbours and softmax head, with weights and a confidence
// threshold calibrated at import on held-out questions.
// Immutable after open(). Thread-safe: every method may be called from many threads at once.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "kb/analyze/embedder.h"
#include "kb/entry.h"
#include "kb/files/kb_files.h"
#include "kb/train/semantic_cache_threshold.h"

namespace supportd::kb {

struct SearchHit {
  std::string id;  // stable entry id: cite it
  std::string title;
  std::string snippet;  // plain text that matched (a question, or the answer's best passage)
  std::string answer;   // FAQ answer or article body (Markdown); empty for a bare intent
  std::string label;    // the intent or entry label
  std::string kind;     // "article", "faq" or "intent"
  std::string locale;
  std::vector<std::string> tags;
  std::string source;     // "file:line" it was imported from
  double score = 0;       // fused score: the ranking order, comparable within one search only
  double confidence = 0;  // calibrated probability that this hit is the right one
};

// One component's own ranking, for `kb eval` and debugging.
struct ComponentRanking {
  std::string component;            // "bm25", "bm25-vote", "fasttext", "encoder-knn", ...
  std::vector<std::string> labels;  // labels of its best entries, best first (at most 3)
};

struct SearchResult {
  std::vector<SearchHit> hits;  // best first, at most k
  double confidence = 0;        // hits[0].confidence, or 0 without hits
  bool confident = false;       // confidence >= the threshold calibrated at import, and
                                // shares_words: a question in no word of the knowledge base's
                                // (gibberish, another subject) has confidence 0, however sure
                                // the classifier and encoder are of their nearest entry
  // Not confident, but at or above the offer threshold (fusion.h): the right entry is among the
  // first three as often as the target precision asks; answer with the first, offer the next.
  bool offer = false;
  bool shares_words = false;  // a word of the question occurs in the knowledge base
  // Declined by the out-of-scope gate (search/scope.h), or sharing no word with the knowledge
  // base: neither confident nor offered, whatever the confidence. `scope_reason` says why.
  bool out_of_scope = false;
  std::string scope_reason;
  // The out-of-scope gate's probability that the question is in scope (1 without a gate, 0
  // sharing no word).
  double scope_probability = 1;
  std::string language;       // detected language of the question ("en", "zh", "und", ...)
  bool used_vectors = false;  // the encoder took part (English question, vectors available)
  std::string version;        // the knowledge base's version
  std::vector<ComponentRanking> components;  // only with SearchOptions::explain
};

struct SearchOptions {
  int k = 5;
  // The question's vector when the caller already has it (from embed()); computed otherwise.
  std::span<const float> vector;
  bool explain = false;  // fill SearchResult::components
};

struct OpenOptions {
  // The sentence encoder (open_sentence_encoder); shared across reloads. Null, or a model other
  // than the one the vectors were made with: lexical search only, with a warning.
  std::shared_ptr<const Embedder> embedder;
};

// Sizes and the choices made at import, for `kb eval`, /health-style pages and logs.
struct KnowledgeBaseInfo {
  std::string directory;  // the generation loaded
  int entries = 0;
  int documents = 0;
  bool classifier = false;
  bool vectors = false;               // vectors present and usable with the given encoder
  bool english_only_vectors = false;  // the model is English-only: other questions are lexical
  bool head = false;
  double threshold = 0;  // for the path in use with vectors, else the lexical one
  double lexical_threshold = 0;
};

class KnowledgeBase {
 public:
  ~KnowledgeBase();

  // Loads the live generation of `dir`. Fails with file and line on anything malformed; a
  // missing or mismatched encoder is not an error (see warnings()).
  static Result<std::shared_ptr<const KnowledgeBase>> open(const std::string& dir,
                                                           const OpenOptions& options = {});

  // The best `options.k` entries for `question`. kInvalidArgument for an empty question.
  Result<SearchResult> search(std::string_view question, const SearchOptions& options = {}) const;

  // The question's vector (for the semantic cache and for search's `vector`); kUnavailable when
  // this knowledge base has no usable encoder or the question is not English.
  Result<std::vector<float>> embed(std::string_view question) const;

  // Changes with every import: use it in cache keys.
  const std::string& version() const;
  // The semantic cache's calibrated cosine threshold, when vectors were made at import.
  std::optional<SemanticCacheCalibration> semantic_cache() const;
  // Why a part is not in use (encoder missing, vectors made by another model, ...).
  const std::vector<std::string>& warnings() const;
  // The entry with this id, or null.
  const Entry* find(std::string_view id) const;
  const std::vector<Entry>& entries() const;
  KnowledgeBaseInfo info() const;
  // What import recorded: sources, choices, dev results, notes.
  const Manifest& manifest() const;

 private:
  struct State;
  explicit KnowledgeBase(std::unique_ptr<State> state);

  std::unique_ptr<State> state_;
};

}  // namespace supportd::kb
