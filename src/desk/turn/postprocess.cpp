// Stage postprocess (after generate, on a desk worker): the generated answer is stored with the
// conversation and, when it is whole and unfiltered, cached for the next asker. A generation
// that ended early without any text hands the turn to fallback.
#include "desk/turn/turn.h"

namespace supportd::desk {

Turn::Next Turn::postprocess() {
  if (!finished_) return Next::kSkip;  // nothing was generated
  const bool complete =
      *finished_ == engine::FinishReason::kStop || *finished_ == engine::FinishReason::kLength;
  if (!complete && answer_.text.empty()) {
    answer_.citations.clear();
    return Next::kSkip;
  }
  answer_.source = AnswerSource::kModel;
  store_answer();
  if (complete && answer_.notice.rfind("filtered", 0) != 0 && !key_.empty())
    context_.answers.keep(key_, text_, answer_, vector_, knowledge_->version());
  deliver();
  return Next::kDone;
}

}  // namespace supportd::desk
