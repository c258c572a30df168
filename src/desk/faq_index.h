// The exact-FAQ fast path: every FAQ question of the knowledge base in use, normalized
// (store::normalize_question), to its entry; rebuilt the first time it is asked after the
// knowledge base's version changed. A lookup takes one short lock and allocates only the
// normalized question and the answer.
// Thread-safety: every method may be called from any thread.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "desk/answer.h"
#include "kb/live_knowledge_base.h"

namespace supportd::desk {

class FaqIndex {
 public:
  // REQUIRES: `knowledge` outlives the index.
  explicit FaqIndex(kb::LiveKnowledgeBase& knowledge) : knowledge_(knowledge) {}

  // The entry's answer (source kFaq, confidence 1, the entry's locale, one citation) when
  // `question` is, normalized, one of the FAQ questions of the knowledge base in use; nullopt
  // otherwise. Neither timed nor counted: the caller does both.
  std::optional<Answer> find(const std::string& question);

 private:
  using Index = std::map<std::string, std::string>;  // normalized question -> entry id
  // The index of `knowledge`, built when it is not the one held.
  std::shared_ptr<const Index> index_of(const kb::KnowledgeBase& knowledge);

  kb::LiveKnowledgeBase& knowledge_;
  std::mutex mutex_;
  std::string version_;                 // guarded by mutex_
  std::shared_ptr<const Index> index_;  // guarded by mutex_
};

}  // namespace supportd::desk
