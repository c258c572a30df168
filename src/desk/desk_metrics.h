// The desk's Prometheus metrics: time per pipeline stage, answers by source, handoffs,
// feedback, refused input, and the session store's health.
// Thread-safety: all methods may be called from any thread.
#pragma once

#include <string>

#include "desk/answer.h"
#include "obs/metrics.h"

namespace supportd::desk {

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
