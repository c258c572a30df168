// The desk's Prometheus metrics: time per pipeline stage, answers by source, handoffs,
// feedback, refused input, and the session store's health. figures() reads the same counters
// back for /v1/stats, so the two never disagree.
// Thread-safety: all methods may be called from any thread.
#pragma once

#include <map>
#include <string>

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
};

class DeskMetrics {
 public:
  explicit DeskMetrics(obs::Registry& registry);

  void stage(const std::string& name, double seconds) { stages_.with({name}).observe(seconds); }
  void answered(AnswerSource source) { answers_.with({answer_source_name(source)}).increment(); }
  void handed_off(const std::string& reason) { handoffs_.with({reason}).increment(); }
  void feedback(const std::string& kind) { feedback_.with({kind}).increment(); }
  void csat(int score) { csat_.get().observe(score); }
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
};

}  // namespace supportd::desk
