// Stage handoff: a customer who asks for a person, or names a configured topic, is put in the
// waiting list (HandoffPolicy decides; Handoffs moves the conversation and tells the agents).
#include "desk/phrases.h"
#include "desk/turn/turn.h"

namespace supportd::desk {

Turn::Next Turn::check_handoff() {
  if (session_.empty()) return Next::kContinue;
  const auto reason = context_.handoff_policy.on_question(text_);
  if (!reason) return Next::kContinue;
  auto changed = context_.handoffs.request_human(tenant_, session_, *reason);
  if (!changed) return Next::kContinue;  // keep answering; the handoff can be asked for again
  answer_.handoff = store::handoff_name(changed->handoff);
  return reply(AnswerSource::kHandoff, std::string(phrases_for(answer_.language).connecting));
}

}  // namespace supportd::desk
