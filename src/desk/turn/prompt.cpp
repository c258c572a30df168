// Stage prompt (only when the desk generates and the engine is ready): the conversation's
// recent messages and the retrieved articles into a prompt (desk/prompt.h). A question the
// knowledge base declined as out of scope is not given to the model: its closest articles are
// about something else, and a model asked anyway answers what the business never wrote (the
// capital of France, bicycles it does not sell); fallback declines it.
#include "desk/turn/turn.h"

namespace supportd::desk {

Turn::Next Turn::prepare_prompt() {
  if (!context_.options.generate || !context_.engine.ready()) return Next::kSkip;
  if (search_.out_of_scope) return Next::kSkip;
  if (!session_.empty()) {
    auto history = context_.sessions.history(session_, context_.options.history_messages,
                                             answer_.message_seq_id);
    if (history) history_ = std::move(history).value();
  }
  prompt_ = build_prompt(context_.options.prompt, search_.hits, history_, text_);
  return Next::kContinue;
}

}  // namespace supportd::desk
