// Stage faq: a question that is, normalized, one of the knowledge base's FAQ questions gets
// that entry's answer, with no search and no model.
#include "desk/turn/turn.h"

namespace supportd::desk {

Turn::Next Turn::answer_faq() {
  auto faq = context_.faq.find(text_);
  if (!faq) return Next::kContinue;
  answer_.citations = std::move(faq->citations);
  answer_.confidence = 1.0;
  context_.handoff_policy.note_confidence(session_, true);
  return reply(AnswerSource::kFaq, std::move(faq->text));
}

}  // namespace supportd::desk
