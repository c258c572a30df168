// The desk's Prometheus families and their read-back for /v1/stats (see desk_metrics.h); also
// the names of answer sources (answer.h).
#include "desk/desk_metrics.h"

#include <utility>

#include "desk/handoff_policy.h"

namespace supportd::desk {
namespace {

// Sessions whose arm is remembered for their handoffs and CSAT (about 10 MB at most).
constexpr std::size_t kRememberedSessions = 100000;

// One bucket per score: the histogram's buckets are the score distribution.
std::vector<double> csat_bounds() {
  return {1, 2, 3, 4, 5};
}

std::map<std::string, double> counts(const obs::Family<obs::Counter>& family) {
  std::map<std::string, double> out;
  family.for_each([&](const obs::Labels& labels, const obs::Counter& counter) {
    if (!labels.empty()) out[labels[0]] = counter.value();
  });
  return out;
}

}  // namespace

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

DeskMetrics::DeskMetrics(obs::Registry& registry, ArmOf arm_of)
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
                               csat_bounds())),
      refused_(registry.counter("supportd_desk_input_refused_total",
                                "Customer messages refused by content rules.", {"category"})),
      version_answers_(registry.counter(
          "supportd_desk_version_answers_total",
          "Customer turns of each model version's arm (the version the conversation is routed "
          "to), by where the answer came from.",
          {"version", "source"})),
      version_handoffs_(registry.counter(
          "supportd_desk_version_handoffs_total",
          "Conversations handed to a person, by the model version arm they are on.", {"version"})),
      version_csat_(registry.histogram(
          "supportd_desk_version_csat",
          "Customer satisfaction scores (1 to 5), by the model version arm of the conversation.",
          {"version"}, csat_bounds())),
      arm_of_(std::move(arm_of)) {}

void DeskMetrics::answered(AnswerSource source, const std::string& session,
                           const std::string& generated_by) {
  answers_.with({answer_source_name(source)}).increment();
  const std::string arm =
      !generated_by.empty() ? generated_by : (arm_of_ ? arm_of_(session) : std::string());
  if (arm.empty()) return;
  version_answers_.with({arm, answer_source_name(source)}).increment();
  remember(session, arm);
}

void DeskMetrics::remember(const std::string& session, const std::string& arm) {
  if (session.empty()) return;
  std::lock_guard lock(sessions_mutex_);
  const bool added = session_versions_.insert_or_assign(session, arm).second;
  if (!added) return;
  session_order_.push_back(session);
  if (session_order_.size() > kRememberedSessions) {
    session_versions_.erase(session_order_.front());
    session_order_.pop_front();
  }
}

void DeskMetrics::handed_off(const std::string& reason, const std::string& session) {
  handoffs_.with({reason}).increment();
  if (const std::string arm = arm_of_conversation(session); !arm.empty())
    version_handoffs_.with({arm}).increment();
}

void DeskMetrics::csat(int score, const std::string& session) {
  csat_.get().observe(score);
  if (const std::string arm = arm_of_conversation(session); !arm.empty())
    version_csat_.with({arm}).observe(score);
}

std::string DeskMetrics::arm_of_conversation(const std::string& session) const {
  if (session.empty()) return {};
  {
    std::lock_guard lock(sessions_mutex_);
    if (const auto found = session_versions_.find(session); found != session_versions_.end())
      return found->second;
  }
  return arm_of_ ? arm_of_(session) : std::string();
}

DeskFigures DeskMetrics::figures() const {
  DeskFigures f;
  f.answers = counts(answers_);
  for (AnswerSource s : {AnswerSource::kFaq, AnswerSource::kKnowledge, AnswerSource::kCache,
                         AnswerSource::kModel, AnswerSource::kFallback, AnswerSource::kRefused,
                         AnswerSource::kHandoff, AnswerSource::kAgent}) {
    f.answers.try_emplace(answer_source_name(s), 0.0);
  }
  f.handoffs = counts(handoffs_);
  for (HandoffReason r :
       {HandoffReason::kAsked, HandoffReason::kTopic, HandoffReason::kLowConfidence})
    f.handoffs.try_emplace(handoff_reason_name(r), 0.0);
  f.feedback = counts(feedback_);
  for (const char* kind : {"thumb_up", "thumb_down", "csat"})
    f.feedback.try_emplace(kind, 0.0);
  f.refused = counts(refused_);
  // Read without creating the unlabelled child: /metrics shows no scores until one is given.
  f.csat = obs::Histogram(csat_bounds()).snapshot();
  csat_.for_each([&](const obs::Labels&, const obs::Histogram& h) { f.csat = h.snapshot(); });
  stages_.for_each([&](const obs::Labels& labels, const obs::Histogram& h) {
    if (!labels.empty()) f.stages[labels[0]] = h.snapshot();
  });
  version_answers_.for_each([&](const obs::Labels& labels, const obs::Counter& counter) {
    if (labels.size() == 2) f.versions[labels[0]].answers[labels[1]] = counter.value();
  });
  version_handoffs_.for_each([&](const obs::Labels& labels, const obs::Counter& counter) {
    if (!labels.empty()) f.versions[labels[0]].handoffs = counter.value();
  });
  for (auto& [name, version] : f.versions)
    version.csat = obs::Histogram(csat_bounds()).snapshot();
  version_csat_.for_each([&](const obs::Labels& labels, const obs::Histogram& h) {
    if (!labels.empty()) f.versions[labels[0]].csat = h.snapshot();
  });
  return f;
}

}  // namespace supportd::desk
