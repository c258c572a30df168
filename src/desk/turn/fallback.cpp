// Stage fallback (whatever no stage before answered): the closest articles and the offer of a
// person, in the customer's language; low confidence several turns in a row calls one. A
// question the knowledge base declined as out of scope gets no articles: the closest ones are
// about something else ("Do you sell bicycles?" is not helped by the payment article).
#include "desk/phrases.h"
#include "desk/turn/turn.h"

namespace supportd::desk {

Turn::Next Turn::fall_back() {
  for (const auto& hit : search_.hits) {
    if (search_.out_of_scope) break;
    if (answer_.citations.size() >= context_.options.fallback_citations) break;
    answer_.citations.push_back(citation_of(hit, context_.options.prompt.snippet_chars));
  }
  bool person_called = false;
  if (context_.handoff_policy.note_confidence(session_, false)) {
    auto changed =
        context_.handoffs.request_human(tenant_, session_, HandoffReason::kLowConfidence);
    if (changed) {
      person_called = true;
      answer_.handoff = store::handoff_name(changed->handoff);
    }
  }
  return reply(AnswerSource::kFallback,
               fallback_message(phrases_for(answer_.language), answer_.citations, person_called));
}

}  // namespace supportd::desk
