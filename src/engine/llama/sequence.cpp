// How the scheduling policies see a sequence (see sequence.h).
#include "engine/llama/sequence.h"

#include <algorithm>

namespace supportd::engine::llama {

sched::Ticket Sequence::ticket() const {
  return {id, request.priority, request.tenant, submitted, cells};
}

sched::RequestView Sequence::view() const {
  return {.id = id,
          .priority = request.priority,
          .submitted = submitted,
          .admitted = admitted,
          .deadline = request.deadline,
          .has_first_token = has_first_token,
          .streaming = sink != nullptr,
          .preemptions = preemptions,
          .cells = cells,
          .prompt_left = n_past < prompt_size ? prompt_size - n_past : 0,
          .answer_left = max_new - generated,
          .prompt_computed = prompt_size - std::min(reused, prompt_size),
          .answer_max = max_new};
}

}  // namespace supportd::engine::llama
