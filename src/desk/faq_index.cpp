// The exact-FAQ index (see faq_index.h).
#include "desk/faq_index.h"

#include "store/answer_cache.h"

namespace supportd::desk {

std::shared_ptr<const FaqIndex::Index> FaqIndex::index_of(const kb::KnowledgeBase& knowledge) {
  std::lock_guard lock(mutex_);
  if (index_ && version_ == knowledge.version()) return index_;
  auto index = std::make_shared<Index>();
  for (const auto& entry : knowledge.entries()) {
    if (entry.kind != kb::EntryKind::kFaq || entry.answer.empty()) continue;
    for (const auto& q : entry.questions)
      index->emplace(store::normalize_question(q.text), entry.id);
  }
  index_ = std::move(index);
  version_ = knowledge.version();
  return index_;
}

std::optional<Answer> FaqIndex::find(const std::string& question) {
  const auto knowledge = knowledge_.current();
  const auto index = index_of(*knowledge);
  auto it = index->find(store::normalize_question(question));
  if (it == index->end()) return std::nullopt;
  const kb::Entry* entry = knowledge->find(it->second);
  if (entry == nullptr) return std::nullopt;
  Answer answer;
  answer.text = entry->answer;
  answer.source = AnswerSource::kFaq;
  answer.confidence = 1.0;
  answer.language = entry->locale;
  answer.citations.push_back({entry->id, entry->title,
                              entry->questions.empty() ? entry->title : entry->questions[0].text});
  return answer;
}

}  // namespace supportd::desk
