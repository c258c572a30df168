// Stage validate: the session id is the tenant's (no store touched for a forged one) and the
// text is one the desk takes (UTF-8, not blank, no NUL, not too long); the question's language.
#include "desk/intake.h"
#include "desk/turn/turn.h"
#include "kb/language.h"

namespace supportd::desk {

Turn::Next Turn::validate() {
  if (!session_.empty()) {
    if (auto id = verify_session(context_.sessions, tenant_, session_); !id)
      return fail(session_error(id.error()));
  }
  if (auto refusal = check_message(text_, context_.options.max_question_characters))
    return fail(*refusal);
  answer_.language = kb::detect_language(text_).code;
  return Next::kContinue;
}

}  // namespace supportd::desk
