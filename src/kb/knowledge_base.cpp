// KnowledgeBase (knowledge_base.h): open() loads a generation (manifest, entries, classifiers,
// vectors, head, graph; BM25 rebuilt), search() analyzes the question, lets every component
// propose, fuses, calibrates and writes snippets.
#include "kb/knowledge_base.h"

#include <algorithm>
#include <filesystem>
#include <unordered_map>
#include <unordered_set>

#include "core/text.h"
#include "core/utf8.h"
#include "kb/analyze/language.h"
#include "kb/search/fusion.h"
#include "kb/search/snippet.h"
#include "kb/train/corpus.h"
#include "kb/train/training.h"
#include "obs/trace/current.h"

namespace supportd::kb {

struct KnowledgeBase::State {
  std::string directory;
  Manifest manifest;
  Corpus corpus;
  std::optional<TextAnalyzer> bm25_analyzer;
  std::optional<TextAnalyzer> classifier_analyzer;
  std::unique_ptr<Retriever> retriever;
  std::shared_ptr<const Embedder> embedder;  // set only when the vectors are usable
  std::vector<std::string> warnings;
  std::unordered_map<std::string, int> by_id;
};

namespace {

constexpr std::size_t kExplainDepth = 3;

// False when the question has a word other than function words (Chinese ones included) and
// none of those occurs in the knowledge base (a question of function words alone is left to
// the gate).
bool shares_content_word(const std::vector<std::string>& terms,
                         const std::unordered_set<std::string>& function_terms,
                         const Bm25Index& index) {
  bool content = false;
  for (const std::string& term : terms) {
    if (function_terms.contains(term)) continue;
    if (index.contains(term)) return true;
    content = true;
  }
  return !content;
}

}  // namespace

KnowledgeBase::KnowledgeBase(std::unique_ptr<State> state) : state_(std::move(state)) {}
KnowledgeBase::~KnowledgeBase() = default;

Result<std::shared_ptr<const KnowledgeBase>> KnowledgeBase::open(const std::string& dir,
                                                                 const OpenOptions& options) {
  auto generation = current_generation(dir);
  if (!generation) return generation.error();
  auto state = std::make_unique<State>();
  state->directory = *generation;
  const auto path = [&](const char* name) {
    return (std::filesystem::path(*generation) / name).string();
  };
  auto manifest = read_manifest(path("manifest.json"));
  if (!manifest) return manifest.error();
  state->manifest = std::move(*manifest);
  const Manifest& m = state->manifest;
  // Every data file is checked against the size and hash import recorded before it is parsed.
  const auto verify = [&](const std::string& name) { return verify_file(m, *generation, name); };
  if (Status status = verify("entries.jsonl"); !status) return status.error();
  auto entries = read_entries(path("entries.jsonl"));
  if (!entries) return entries.error();
  if (static_cast<int>(entries->size()) != m.entries) {
    return Error::make(ErrorCode::kCorrupt,
                       path("entries.jsonl") + ": " + std::to_string(entries->size()) +
                           " entries, the manifest says " + std::to_string(m.entries));
  }
  auto corpus = analyze_corpus(std::move(*entries), m.bm25_analyzer, m.classifier_analyzer);
  if (!corpus) return corpus.error();
  state->corpus = std::move(*corpus);
  Corpus& c = state->corpus;
  if (static_cast<int>(c.documents.size()) != m.documents) {
    return Error::make(ErrorCode::kCorrupt,
                       path("entries.jsonl") + ": " + std::to_string(c.documents.size()) +
                           " documents, the manifest says " + std::to_string(m.documents));
  }
  for (std::size_t i = 0; i < c.entries.size(); ++i) {
    if (!state->by_id.emplace(c.entries[i].id, static_cast<int>(i)).second) {
      return Error::make(ErrorCode::kCorrupt, path("entries.jsonl") + ":" + std::to_string(i + 1) +
                                                  ": id '" + c.entries[i].id + "' appears twice");
    }
  }
  state->bm25_analyzer = *TextAnalyzer::create(m.bm25_analyzer);
  state->classifier_analyzer = *TextAnalyzer::create(m.classifier_analyzer);

  std::vector<std::unique_ptr<IntentClassifier>> classifiers;
  for (std::size_t i = 0; i < m.classifiers.size(); ++i) {
    if (Status status = verify(classifier_file(i)); !status) return status.error();
    auto loaded = IntentClassifier::load(path(classifier_file(i).c_str()),
                                         static_cast<int>(c.entries.size()), !m.files.empty());
    if (!loaded) return loaded.error();
    classifiers.push_back(std::move(*loaded));
  }
  std::unique_ptr<SoftmaxHead> head;
  if (!m.encoder.empty()) {
    if (!options.embedder) {
      state->warnings.push_back("the knowledge base has sentence vectors (" + m.encoder +
                                ") but no encoder is loaded: English questions use the lexical "
                                "path only");
    } else if (options.embedder->fingerprint() != m.encoder) {
      state->warnings.push_back("the knowledge base's vectors were made by " + m.encoder +
                                ", the loaded encoder is " + options.embedder->fingerprint() +
                                ": lexical path only (re-import to use this encoder)");
    } else {
      if (Status status = verify("vectors.bin"); !status) return status.error();
      auto vectors = read_vectors(path("vectors.bin"));
      if (!vectors) return vectors.error();
      if (vectors->dimensions != options.embedder->dimensions()) {
        return Error::make(ErrorCode::kCorrupt, path("vectors.bin") + ": " +
                                                    std::to_string(vectors->dimensions) +
                                                    " dimensions, the encoder has " +
                                                    std::to_string(options.embedder->dimensions()));
      }
      if (Status status = attach_vectors(c, std::move(*vectors), path("vectors.bin")); !status) {
        return status.error();
      }
      if (m.head) {
        if (Status status = verify("head.bin"); !status) return status.error();
        auto loaded = SoftmaxHead::load(path("head.bin"));
        if (!loaded) return loaded.error();
        for (int target : (*loaded)->targets()) {
          if (target < 0 || target >= static_cast<int>(c.entries.size())) {
            return Error::make(ErrorCode::kCorrupt, path("head.bin") + ": names entry " +
                                                        std::to_string(target) +
                                                        ", which does not exist");
          }
        }
        if ((*loaded)->dimensions() != c.vectors.dimensions) {
          return Error::make(ErrorCode::kCorrupt, path("head.bin") + ": wrong dimensions");
        }
        head = std::move(*loaded);
      }
      state->embedder = options.embedder;
    }
  } else if (options.embedder) {
    state->warnings.push_back(
        "the knowledge base was imported without the sentence encoder: lexical path only "
        "(re-import to add vectors)");
  }
  ComponentChoices choices;
  choices.bm25 = {m.bm25_k1, m.bm25_b, m.bm25_function_word_weight};
  choices.dense_exact_limit = m.exact_limit;
  if (m.graph && !std::filesystem::exists(path("graph.bin"))) {
    return Error::make(ErrorCode::kCorrupt,
                       path("graph.bin") + ": missing (named by the manifest)");
  }
  if (m.graph && state->embedder) {
    if (Status status = verify("graph.bin"); !status) return status.error();
  }
  const std::vector<bool> all(c.documents.size(), true);
  auto parts = build_parts(c, all, choices, std::move(classifiers), std::move(head),
                           m.graph && state->embedder ? path("graph.bin") : std::string());
  if (!parts) return parts.error();
  state->retriever = std::make_unique<Retriever>(std::move(*parts));
  return std::shared_ptr<const KnowledgeBase>(new KnowledgeBase(std::move(state)));
}

Result<std::vector<float>> KnowledgeBase::embed(std::string_view question) const {
  if (!state_->embedder) {
    return Error::make(ErrorCode::kUnavailable, "this knowledge base has no usable encoder");
  }
  if (!state_->embedder->multilingual() && detect_language(question).code != "en") {
    return Error::make(ErrorCode::kUnavailable, "the sentence encoder is English-only");
  }
  const obs::trace::ScopedSpan span("encode question");
  return state_->embedder->embed(sanitize_utf8(question));
}

Result<SearchResult> KnowledgeBase::search(std::string_view question,
                                           const SearchOptions& options) const {
  const std::string text = sanitize_utf8(question);
  if (trim(text).empty()) return Error::invalid("the question is empty", "question");
  if (options.k <= 0) return Error::invalid("k must be positive", "k");
  const State& s = *state_;
  SearchResult result;
  result.version = s.manifest.version;
  result.language = detect_language(text).code;
  Query query = make_query(*s.bm25_analyzer, *s.classifier_analyzer, text);
  std::vector<float> vector;
  if (s.embedder) {
    if (!options.vector.empty()) {
      if (static_cast<int>(options.vector.size()) != s.embedder->dimensions()) {
        return Error::invalid("the question vector has " + std::to_string(options.vector.size()) +
                                  " dimensions, the knowledge base " +
                                  std::to_string(s.embedder->dimensions()),
                              "vector");
      }
      query.vector = options.vector;
    } else if (result.language == "en" || s.embedder->multilingual()) {
      const obs::trace::ScopedSpan span("encode question");
      if (auto embedded = s.embedder->embed(text); embedded.ok()) {
        vector = std::move(*embedded);
        query.vector = vector;
      }
    }
  }
  result.used_vectors = !query.vector.empty();
  const std::vector<Candidate> candidates = s.retriever->score(query);
  const FusionModel& model = result.used_vectors ? s.manifest.vectors : s.manifest.lexical;
  std::vector<Ranked> ranking = rank(candidates, model.weights);
  std::erase_if(ranking, [](const Ranked& r) { return r.score <= 0; });
  const RetrieverParts& parts = s.retriever->parts();
  for (std::size_t i = 0; i < ranking.size() && static_cast<int>(i) < options.k; ++i) {
    const Entry& entry = s.corpus.entries[static_cast<std::size_t>(ranking[i].entry)];
    const Document* best = nullptr;
    if (ranking[i].best_document >= 0) {
      best = &s.corpus.documents[static_cast<std::size_t>(
          parts.document_source[static_cast<std::size_t>(ranking[i].best_document)])];
    }
    SearchHit hit;
    hit.id = entry.id;
    hit.title = entry.title;
    hit.snippet = make_snippet(entry, best, query.terms, *s.bm25_analyzer);
    hit.answer = entry.answer;
    hit.label = entry.label;
    hit.kind = entry_kind_name(entry.kind);
    hit.locale = entry.locale;
    hit.tags = entry.tags;
    hit.source = entry.source.to_string();
    hit.score = ranking[i].score;
    hit.confidence = confidence(model.calibration, ranking, i);
    result.hits.push_back(std::move(hit));
  }
  // The classifier and the encoder name a nearest entry for any text at all, and the
  // calibration saw only real questions: without a single word in common with the knowledge
  // base, their certainty is no evidence.
  result.shares_words = std::any_of(candidates.begin(), candidates.end(), [](const Candidate& c) {
    return c.features[static_cast<std::size_t>(Component::kBm25)] > 0;
  });
  if (!result.shares_words) {
    for (SearchHit& hit : result.hits)
      hit.confidence = 0;
  }
  // The out-of-scope gate, on the evidence already computed (scope.h): how close the question
  // is to the first entry at all, by the model fitted at import.
  if (!result.shares_words) {
    result.out_of_scope = true;
    result.scope_reason = "no word of the question occurs in the knowledge base";
    result.scope_probability = 0;
  } else if (!shares_content_word(query.terms, s.corpus.question_terms, *parts.bm25)) {
    // "Do you sell bicycles?" shares "do" and "you" with every help centre: only a word that
    // says what the question is about counts.
    result.out_of_scope = true;
    result.scope_reason =
        "no word of the question but function words (\"do\", \"you\", ...) occurs in the "
        "knowledge base";
    result.scope_probability = 0;
  } else {
    const ScopeEvidence evidence = scope_evidence(ranking);
    if (model.scope.enabled) result.scope_probability = scope_probability(model.scope, evidence);
    result.scope_reason = scope_decline_reason(model.scope, evidence);
    result.out_of_scope = !result.scope_reason.empty();
  }
  if (!result.hits.empty()) {
    result.confidence = result.hits.front().confidence;
    result.confident = !result.out_of_scope && result.confidence >= model.calibration.threshold;
    result.offer = !result.out_of_scope && !result.confident && model.calibration.fitted &&
                   result.confidence >= model.calibration.offer_threshold;
  }
  if (options.explain) {
    const Availability available = s.retriever->available();
    for (Component component : kComponents) {
      const bool dense = needs_vector(component);
      if (!available[static_cast<std::size_t>(component)] || (dense && !result.used_vectors)) {
        continue;
      }
      ComponentRanking own{component_name(component), {}};
      for (const Ranked& r : rank_by(candidates, component)) {
        if (own.labels.size() >= kExplainDepth) break;
        own.labels.push_back(s.corpus.entries[static_cast<std::size_t>(r.entry)].label);
      }
      result.components.push_back(std::move(own));
    }
  }
  return result;
}

const std::string& KnowledgeBase::version() const {
  return state_->manifest.version;
}

std::optional<SemanticCacheCalibration> KnowledgeBase::semantic_cache() const {
  if (!state_->embedder) return std::nullopt;
  return state_->manifest.semantic_cache;
}

const std::vector<std::string>& KnowledgeBase::warnings() const {
  return state_->warnings;
}

const Entry* KnowledgeBase::find(std::string_view id) const {
  auto it = state_->by_id.find(std::string(id));
  return it == state_->by_id.end() ? nullptr
                                   : &state_->corpus.entries[static_cast<std::size_t>(it->second)];
}

const std::vector<Entry>& KnowledgeBase::entries() const {
  return state_->corpus.entries;
}

const Manifest& KnowledgeBase::manifest() const {
  return state_->manifest;
}

KnowledgeBaseInfo KnowledgeBase::info() const {
  const State& s = *state_;
  KnowledgeBaseInfo info;
  info.directory = s.directory;
  info.entries = static_cast<int>(s.corpus.entries.size());
  info.documents = static_cast<int>(s.corpus.documents.size());
  info.classifier = !s.manifest.classifiers.empty();
  info.vectors = s.embedder != nullptr;
  info.english_only_vectors = s.embedder != nullptr && !s.embedder->multilingual();
  info.head = s.embedder != nullptr && s.manifest.head;
  info.lexical_threshold = s.manifest.lexical.calibration.threshold;
  info.threshold = info.vectors ? s.manifest.vectors.calibration.threshold : info.lexical_threshold;
  return info;
}

}  // namespace supportd::kb
