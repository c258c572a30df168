// The knowledge base's documents prepared for the components: BM25 terms, classifier input,
// language, and (when an encoder made them) vectors. Built at import and again at load.
// Internal to kb/. Plain data after construction.
#pragma once

#include <unordered_set>
#include <vector>

#include "core/status.h"
#include "kb/analyze/text_analyzer.h"
#include "kb/entry.h"
#include "kb/search/retriever.h"

namespace supportd::kb {

struct Corpus {
  std::vector<Entry> entries;
  std::vector<Document> documents;
  std::vector<std::vector<std::string>> bm25_terms;  // by document
  std::vector<std::string> classifier_texts;         // by document
  std::vector<bool> english;                         // by document: the encoder may embed it
  StoredVectors vectors;                             // rows for some English documents
  std::vector<int> vector_row;                       // by document: row in vectors, or -1
  std::unordered_set<std::string> function_terms;    // function words as BM25 terms
  // function_terms and Chinese function words: the terms that do not say what a question is
  // about, for the out-of-scope rule (kb/knowledge_base.cpp).
  std::unordered_set<std::string> question_terms;
};

// Derives documents, terms and languages. Vectors are added separately (attach_vectors).
Result<Corpus> analyze_corpus(std::vector<Entry> entries, const AnalyzerOptions& bm25,
                              const AnalyzerOptions& classifier);

// Checks that `vectors` belong to this corpus and attaches them.
Status attach_vectors(Corpus& corpus, StoredVectors vectors, const std::string& where);

// The classifier's and BM25's view of a question.
Query make_query(const TextAnalyzer& bm25, const TextAnalyzer& classifier, std::string_view text);

}  // namespace supportd::kb
