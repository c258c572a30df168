// Analyzing the corpus (corpus.h): every document's BM25 terms, classifier text and language;
// vectors attached after checking they belong to these documents; a question's query.
#include "kb/train/corpus.h"

#include "kb/analyze/language.h"
#include "kb/classify/intent_classifier.h"

namespace supportd::kb {

Result<Corpus> analyze_corpus(std::vector<Entry> entries, const AnalyzerOptions& bm25,
                              const AnalyzerOptions& classifier) {
  auto bm25_analyzer = TextAnalyzer::create(bm25);
  if (!bm25_analyzer) return bm25_analyzer.error();
  auto classifier_analyzer = TextAnalyzer::create(classifier);
  if (!classifier_analyzer) return classifier_analyzer.error();
  Corpus corpus;
  corpus.entries = std::move(entries);
  corpus.documents = derive_documents(corpus.entries);
  const std::size_t count = corpus.documents.size();
  corpus.bm25_terms.reserve(count);
  corpus.classifier_texts.reserve(count);
  corpus.english.reserve(count);
  for (const Document& document : corpus.documents) {
    corpus.bm25_terms.push_back(bm25_analyzer->terms(document.text));
    corpus.classifier_texts.push_back(join_terms(classifier_analyzer->terms(document.text)));
    corpus.english.push_back(detect_language(document.text).code == "en");
  }
  corpus.vector_row.assign(count, -1);
  for (const std::string& word : function_words()) {
    for (std::string& term : bm25_analyzer->terms(word))
      corpus.function_terms.insert(std::move(term));
  }
  corpus.question_terms = corpus.function_terms;
  for (const std::string& word : chinese_function_words()) {
    for (std::string& term : bm25_analyzer->terms(word))
      corpus.question_terms.insert(std::move(term));
  }
  return corpus;
}

Status attach_vectors(Corpus& corpus, StoredVectors vectors, const std::string& where) {
  if (vectors.documents != static_cast<int>(corpus.documents.size())) {
    return Error::make(ErrorCode::kCorrupt, where + ": vectors were made for " +
                                                std::to_string(vectors.documents) +
                                                " documents, the entries have " +
                                                std::to_string(corpus.documents.size()));
  }
  corpus.vector_row.assign(corpus.documents.size(), -1);
  for (std::size_t row = 0; row < vectors.document_of_row.size(); ++row) {
    const auto document = static_cast<std::size_t>(vectors.document_of_row[row]);
    if (corpus.vector_row[document] >= 0) {
      return Error::make(ErrorCode::kCorrupt, where + ": two vectors for one document");
    }
    corpus.vector_row[document] = static_cast<int>(row);
  }
  corpus.vectors = std::move(vectors);
  return {};
}

Query make_query(const TextAnalyzer& bm25, const TextAnalyzer& classifier, std::string_view text) {
  Query query;
  query.terms = bm25.terms(text);
  query.classifier_text = join_terms(classifier.terms(text));
  return query;
}

}  // namespace supportd::kb
