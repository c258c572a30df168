// The answers the desk gave before, looked up in one place: the in-process cache (L1), the
// shared one in Redis (L2, when there is one), then the semantic cache (a question close enough
// in meaning, when the knowledge base embeds questions). Only generated answers are kept, under
// store::answer_key(question, knowledge-base version), so a new import never serves an old one.
// Thread-safety: every method may be called from any thread.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "desk/answer.h"
#include "filter/rule_set.h"
#include "kb/knowledge_base.h"
#include "obs/leak_watchdog.h"
#include "store/cache/semantic_cache.h"
#include "store/open_stores.h"

namespace supportd::desk {

class CachedAnswers {
 public:
  // How far a lookup goes.
  enum class Reach {
    kInProcess,  // L1 only: never waits on a network or a model (the HTTP thread's fast path)
    kEvery,      // L1, then L2 (a hit fills L1), then the semantic cache
  };

  struct Hit {
    std::string text;
    std::vector<Citation> citations;  // the cited entries as they are in the knowledge base now
  };

  // The semantic cache's threshold is the one `knowledge` was calibrated with at import (none:
  // it never hits). REQUIRES: `stores` outlives this; stores.answers_l1 is set.
  CachedAnswers(store::Stores& stores, const kb::KnowledgeBase& knowledge,
                std::size_t semantic_entries);

  // The answer kept under `key` (store::answer_key(question, knowledge.version())), or nullopt.
  // Answers are shared by every tenant of the knowledge base, but each tenant's content rules
  // apply to what its customers read: a kept answer passes `rules` (the asking tenant's) as a
  // generated one would, masked where they mask; one they refuse is a miss (the turn generates).
  // With kEvery, `vector` receives the question's embedding when it was computed (L1 and L2
  // missed and `knowledge` embeds the question), so that retrieval need not compute it again.
  // A hit is counted in the answer access log. L2 being down is a miss, never an error.
  std::optional<Hit> find(const std::string& key, const std::string& question,
                          const kb::KnowledgeBase& knowledge,
                          const std::shared_ptr<const filter::RuleSet>& rules, Reach reach,
                          std::vector<float>* vector = nullptr);

  // Keeps a generated answer under `key` in L1 and L2, and under `vector` (when not empty) in the
  // semantic cache, scoped to `knowledge_version`. Failures (L2 down) are ignored: a cache.
  void keep(const std::string& key, const std::string& question, const Answer& answer,
            std::span<const float> vector, const std::string& knowledge_version);

  // Forgets the semantic cache's answers (after a reload; L1 and L2 keys carry the version).
  void forget_semantic() { semantic_.clear(); }

  // The in-process caches' fill against their caps, in entries ("answers_l1", "semantic"), for
  // the leak watchdog.
  std::vector<obs::CacheFill> fill() const;

 private:
  store::Stores& stores_;
  store::SemanticCache semantic_;
};

}  // namespace supportd::desk
