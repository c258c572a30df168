// What a customer turn may use of the desk: the services its stages call, and nothing else.
// The Desk owns every one of them and builds one TurnContext at construction; each Turn holds
// a reference to it.
// Constant after construction; the services it points to are each thread-safe.
#pragma once

#include "core/worker_pool.h"
#include "desk/cached_answers.h"
#include "desk/conversation_hub.h"
#include "desk/desk_metrics.h"
#include "desk/desk_options.h"
#include "desk/faq_index.h"
#include "desk/handoff_policy.h"
#include "desk/handoffs.h"
#include "desk/tenant_rules.h"
#include "engine/engine.h"
#include "kb/live_knowledge_base.h"
#include "store/sessions.h"

namespace supportd::obs::faults {
class FaultInjector;
}

namespace supportd::desk {

struct TurnContext {
  const DeskOptions& options;
  const TenantRules& rules;            // safety, and the output filter of generation
  kb::LiveKnowledgeBase& knowledge;    // the knowledge base a turn starts with, kept to its end
  store::Sessions& sessions;           // the conversation: the question, the answer, the history
  FaqIndex& faq;                       // faq
  CachedAnswers& answers;              // cache, and postprocess keeps what was generated
  HandoffPolicy& handoff_policy;       // when to call a person
  Handoffs& handoffs;                  // calling one
  ConversationHub& hub;                // a taken conversation's messages go to the agents
  engine::Engine& engine;              // generate
  DeskMetrics& metrics;                // stage times, answers by source, refused input
  WorkerPool& workers;                 // where a generated answer comes back to be finished
  obs::faults::FaultInjector* faults;  // a drill's faults on retrieval, encoder, store (or null)
};

}  // namespace supportd::desk
