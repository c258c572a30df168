#include "desk/desk_metrics.h"

namespace supportd::desk {

const char* answer_source_name(AnswerSource source) {
  switch (source) {
    case AnswerSource::kFaq: return "faq";
    case AnswerSource::kKnowledge: return "kb";
    case AnswerSource::kCache: return "cache";
    case AnswerSource::kModel: return "model";
    case AnswerSource::kFallback: return "fallback";
    case AnswerSource::kRefused: return "refused";
    case AnswerSource::kHandoff: return "handoff";
    case AnswerSource::kAgent: return "agent";
  }
  return "fallback";
}

DeskMetrics::DeskMetrics(obs::Registry& registry)
    : registry_(registry),
      stages_(registry.histogram("supportd_desk_stage_seconds",
                                 "Time spent in each stage of a customer turn.", {"stage"},
                                 obs::exponential_buckets(0.00002, 2.5, 16))),
      answers_(registry.counter("supportd_desk_answers_total",
                                "Customer turns answered, by where the answer came from.",
                                {"source"})),
      handoffs_(registry.counter("supportd_desk_handoffs_total",
                                 "Conversations handed to a person, by reason.", {"reason"})),
      feedback_(registry.counter("supportd_desk_feedback_total",
                                 "Feedback on answers (thumbs) and conversations.", {"kind"})),
      csat_(registry.histogram("supportd_desk_csat", "Customer satisfaction scores (1 to 5).", {},
                               {1, 2, 3, 4, 5})),
      refused_(registry.counter("supportd_desk_input_refused_total",
                                "Customer messages refused by content rules.", {"category"})) {}

}  // namespace supportd::desk
