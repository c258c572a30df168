// Stage store: the question joins the conversation (PII-masked). While a person has the
// conversation, the message is theirs: it goes to the agents and the bot stays quiet; while one
// is being waited for, the customer hears so.
#include <boost/json.hpp>

#include "desk/phrases.h"
#include "desk/turn/turn.h"
#include "filter/pii_masker.h"

namespace supportd::desk {
namespace json = boost::json;

Turn::Next Turn::record_question() {
  if (session_.empty()) return Next::kContinue;
  auto seq = context_.sessions.append(session_, {store::Role::kUser, filter::mask_pii(text_)});
  if (!seq) return fail(append_error(seq.error()));
  answer_.message_seq_id = *seq;
  auto conversation = context_.sessions.conversation(session_);
  if (!conversation) return Next::kContinue;
  answer_.handoff = store::handoff_name(conversation->handoff);
  if (conversation->handoff == store::Handoff::kTaken) {
    context_.hub.to_agents(tenant_, json::serialize(json::object{{"type", "customer_message"},
                                                                 {"session", session_},
                                                                 {"text", text_},
                                                                 {"seq_id", *seq}}));
    return reply(AnswerSource::kAgent, "", false);
  }
  if (conversation->handoff == store::Handoff::kWaiting) {
    context_.handoffs.publish_waiting(tenant_);
    return reply(AnswerSource::kHandoff, std::string(phrases_for(answer_.language).waiting));
  }
  return Next::kContinue;
}

}  // namespace supportd::desk
