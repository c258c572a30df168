// Stage retrieval: the knowledge base's closest entries and a calibrated confidence; a
// confident first hit that has an answer is the answer, without the model; a first hit in the
// middle way (kb::SearchResult::offer) is the answer too, with the next entries offered.
#include "desk/phrases.h"
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
  if (search_.offer && !search_.hits.empty() && !search_.hits[0].answer.empty()) {
    for (std::size_t i = 0; i < search_.hits.size() && i < 3; ++i) {
      answer_.citations.push_back(
          citation_of(search_.hits[i], context_.options.prompt.snippet_chars));
    }
    context_.handoff_policy.note_confidence(session_, true);
    return reply(
        AnswerSource::kKnowledge,
        offer_message(phrases_for(answer_.language), search_.hits[0].answer, answer_.citations));
  }
  return Next::kContinue;
}

}  // namespace supportd::desk
