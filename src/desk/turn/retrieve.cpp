// Stage retrieval: the knowledge base's closest entries and a calibrated confidence; a
// confident first hit that has an answer is the answer, without the model.
#include "desk/turn/turn.h"

namespace supportd::desk {

Turn::Next Turn::retrieve() {
  kb::SearchOptions options;
  options.k = context_.options.retrieved_entries;
  if (!vector_.empty()) options.vector = vector_;
  auto result = knowledge_->search(text_, options);
  if (!result) return Next::kContinue;  // nothing to go on: fall back or generate without articles
  search_ = std::move(result).value();
  if (!search_.language.empty()) answer_.language = search_.language;
  answer_.confidence = search_.confidence;
  if (search_.confident && !search_.hits.empty() && !search_.hits[0].answer.empty()) {
    answer_.citations = {citation_of(search_.hits[0], context_.options.prompt.snippet_chars)};
    context_.handoff_policy.note_confidence(session_, true);
    return reply(AnswerSource::kKnowledge, search_.hits[0].answer);
  }
  return Next::kContinue;
}

}  // namespace supportd::desk
