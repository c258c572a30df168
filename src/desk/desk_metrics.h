// The desk's Prometheus metrics: time per pipeline stage, answers by source, handoffs,
// feedback, refused input, and the session store's health; and per model version (a router's
// A/B figures): every turn counted, by its answer's source, for the version arm its
// conversation is on (the version that generated it, or the one a router would give the
// conversation now, asked without generating), and the handoffs and CSAT scores of each
// conversation for its arm. figures() reads the same counters back for /v1/stats, so the two
// never disagree.
// Thread-safety: all methods may be called from any thread.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>

#include "desk/answer.h"
#include "obs/metrics.h"

namespace supportd::desk {

// The desk's counters as /metrics has them now, by label value.
struct DeskFigures {
  std::map<std::string, double> answers;   // by source; every AnswerSource listed, 0 if unseen
  std::map<std::string, double> handoffs;  // by reason; every HandoffReason listed
  std::map<std::string, double> feedback;  // by kind: thumb_up, thumb_down, csat
  std::map<std::string, double> refused;   // by content-rule category (only those seen)
  obs::Histogram::Snapshot csat;           // bounds 1..5: the scores given
  std::map<std::string, obs::Histogram::Snapshot> stages;  // seconds, by stage seen
  // By model version arm (only versions seen): its turns by source (they add up to the
  // arm's turns), its conversations' handoffs and CSAT scores.
  struct Version {
    std::map<std::string, double> answers;
    double handoffs = 0;
    obs::Histogram::Snapshot csat;
  };
  std::map<std::string, Version> versions;
};

class DeskMetrics {
 public:
  // The model version arm `session` (empty: a one-shot question) is on now: a router's
  // Engine::version_for. Empty when there are no versions. Called on any thread.
  using ArmOf = std::function<std::string(const std::string& session)>;

  // `arm_of` empty: no per-version figures but those of turns a version generated.
  explicit DeskMetrics(obs::Registry& registry, ArmOf arm_of = {});

  void stage(const std::string& name, double seconds) { stages_.with({name}).observe(seconds); }
  // A turn answered, counted for its arm too: `generated_by` (the version that generated its
  // answer, or was asked to) when not "", else arm_of(session). `session` (when not "") is
  // then remembered to be on that arm, for its handoffs and CSAT.
  void answered(AnswerSource source, const std::string& session = {},
                const std::string& generated_by = {});
  // A handoff, or a CSAT score, of `session`: counted for its arm too: the arm of its last
  // turn (the last 100,000 conversations answered are remembered), else arm_of(session).
  void handed_off(const std::string& reason, const std::string& session = {});
  void feedback(const std::string& kind) { feedback_.with({kind}).increment(); }
  void csat(int score, const std::string& session = {});
  void refused_input(const std::string& category) { refused_.with({category}).increment(); }
  obs::Registry& registry() { return registry_; }

  // A consistent-enough read of every counter (each read atomically, not all at one instant).
  DeskFigures figures() const;

 private:
  obs::Registry& registry_;
  obs::Family<obs::Histogram>& stages_;
  obs::Family<obs::Counter>& answers_;
  obs::Family<obs::Counter>& handoffs_;
  obs::Family<obs::Counter>& feedback_;
  obs::Family<obs::Histogram>& csat_;
  obs::Family<obs::Counter>& refused_;
  obs::Family<obs::Counter>& version_answers_;   // {version, source}: the arm's turns
  obs::Family<obs::Counter>& version_handoffs_;  // {version}: the arm's conversations'
  obs::Family<obs::Histogram>& version_csat_;    // {version}: likewise

  // The arm of `session`'s last turn, else arm_of(session); "" when there is none.
  std::string arm_of_conversation(const std::string& session) const;
  // Remembers that `session` is on `arm` (the oldest forgotten past the bound).
  void remember(const std::string& session, const std::string& arm);
  const ArmOf arm_of_;  // may be empty
  mutable std::mutex sessions_mutex_;
  std::unordered_map<std::string, std::string> session_versions_;  // guarded by sessions_mutex_
  std::deque<std::string> session_order_;  // oldest first, for the bound; guarded likewise
};

}  // namespace supportd::desk
