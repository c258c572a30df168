// Stage cache: an answer the desk generated before for this question (or, by the semantic
// cache, for one close enough in meaning), with this knowledge base. Keeps the cache key and
// the question's embedding for retrieval and postprocess.
#include "desk/turn/turn.h"
#include "store/cache/answer_cache.h"

namespace supportd::desk {

Turn::Next Turn::answer_from_cache() {
  if (!context_.options.generate) return Next::kContinue;  // only generated answers are cached
  key_ = store::answer_key(text_, knowledge_->version());
  auto hit = context_.answers.find(key_, text_, *knowledge_, context_.rules.for_tenant(tenant_),
                                   CachedAnswers::Reach::kEvery, &vector_);
  if (!hit) return Next::kContinue;
  answer_.citations = std::move(hit->citations);
  return reply(AnswerSource::kCache, std::move(hit->text));
}

}  // namespace supportd::desk
