// Stage safety: the tenant's content rules refuse the question (answered with the rules'
// notice, and only a placeholder kept in the conversation) or mask it for the stages after.
#include "desk/turn/turn.h"

namespace supportd::desk {

Turn::Next Turn::screen() {
  const auto& rules = context_.rules.for_tenant(tenant_);
  filter::InputVerdict verdict = rules->check_input(text_);
  if (verdict.decision == filter::Decision::kRefuse) {
    const std::string category =
        verdict.refused_by ? verdict.refused_by->rule->category : "refused";
    context_.metrics.refused_input(category);
    answer_.notice = "refused: " + category;
    if (!session_.empty()) {
      auto seq = context_.sessions.append(
          session_, {store::Role::kUser, "(message withheld: " + category + ")"});
      if (seq) answer_.message_seq_id = *seq;
    }
    return reply(AnswerSource::kRefused, rules->notice());
  }
  if (verdict.decision == filter::Decision::kMask) answer_.notice = "masked";
  text_ = std::move(verdict.text);
  return Next::kContinue;
}

}  // namespace supportd::desk
