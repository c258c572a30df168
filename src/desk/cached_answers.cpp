// The desk's one answer-cache lookup over L1, L2 and the semantic cache (see cached_answers.h).
#include "desk/cached_answers.h"

#include "filter/output_filter.h"
#include "store/cache/answer_cache.h"

namespace supportd::desk {
namespace {

// The sentence encoder's vectors (src/encoder: 512 floats). Vectors of another size (a GGUF
// embedding model's) are refused by the semantic cache's insert, so it never hits with them.
constexpr int kSentenceVectorDimensions = 512;

double semantic_threshold(const kb::KnowledgeBase& knowledge) {
  auto calibration = knowledge.semantic_cache();
  return calibration ? calibration->threshold : 1.01;  // a cosine never reaches it
}

}  // namespace

CachedAnswers::CachedAnswers(store::Stores& stores, const kb::KnowledgeBase& knowledge,
                             std::size_t semantic_entries)
    : stores_(stores),
      semantic_(kSentenceVectorDimensions, semantic_threshold(knowledge), semantic_entries) {}

std::optional<CachedAnswers::Hit> CachedAnswers::find(
    const std::string& key, const std::string& question, const kb::KnowledgeBase& knowledge,
    const std::shared_ptr<const filter::RuleSet>& rules, Reach reach, std::vector<float>* vector) {
  std::optional<store::CachedAnswer> cached = stores_.answers_l1->get(key);
  if (!cached && reach == Reach::kEvery && stores_.answers_l2) {
    auto l2 = stores_.answers_l2->get(key);
    if (l2 && *l2) {
      cached = **l2;
      stores_.answers_l1->put(key, *cached);
    }
  }
  if (!cached && reach == Reach::kEvery) {
    if (auto embedded = knowledge.embed(question)) {
      if (auto hit = semantic_.lookup(*embedded, knowledge.version()))
        cached = store::CachedAnswer{hit->answer, {}, 0};
      if (vector != nullptr) *vector = std::move(embedded).value();
    }
  }
  if (!cached) return std::nullopt;
  std::optional<std::string> text = filter::filter_whole(rules, std::move(cached->text));
  if (!text) return std::nullopt;
  if (stores_.answer_log) stores_.answer_log->record(key);
  Hit hit{std::move(*text), {}};
  for (const auto& id : cached->citations) {
    if (const kb::Entry* e = knowledge.find(id)) hit.citations.push_back({e->id, e->title, ""});
  }
  return hit;
}

void CachedAnswers::keep(const std::string& key, const std::string& question, const Answer& answer,
                         std::span<const float> vector, const std::string& knowledge_version) {
  store::CachedAnswer cached{answer.text, {}, store::unix_ms()};
  for (const auto& c : answer.citations)
    cached.citations.push_back(c.id);
  stores_.answers_l1->put(key, cached);
  if (stores_.answers_l2) stores_.answers_l2->put(key, cached);
  if (!vector.empty()) semantic_.insert(vector, knowledge_version, question, answer.text);
}

std::vector<obs::CacheFill> CachedAnswers::fill() const {
  const auto& l1 = *stores_.answers_l1;
  return {{"answers_l1", static_cast<std::int64_t>(l1.stats().size),
           static_cast<std::int64_t>(l1.capacity())},
          {"semantic", static_cast<std::int64_t>(semantic_.size()),
           static_cast<std::int64_t>(semantic_.capacity())}};
}

}  // namespace supportd::desk
