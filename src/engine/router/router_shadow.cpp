// The router's shadow traffic (see router_engine.h and shadow_queue.h): which version a split
// shadows onto, and the copy of a request offered to the shadow queue.
#include <fmt/format.h>

#include "engine/router/router_engine.h"
#include "engine/router/router_table.h"

namespace supportd::engine::router {

void RouterEngine::configure_shadows(ShadowLimits limits, ShadowQueue::Prepare prepare) {
  shadows_.configure(limits, std::move(prepare));
}

Result<std::shared_ptr<RouterEngine::Slot>> RouterEngine::shadow_slot(const Table& table,
                                                                      const Split& split) const {
  if (!split.shadow) return std::shared_ptr<Slot>();
  const std::string& name = split.shadow->version;
  const auto found = table.versions.find(name);
  if (found == table.versions.end())
    return Error::invalid(fmt::format("no model version '{}' to shadow onto", name),
                          "shadow.version");
  const Slot& slot = *found->second;
  if (split.shadow->percent > 0 && slot.state.load() != VersionState::kReady) {
    return Error::invalid(fmt::format("version '{}' is {}{}{}: it cannot take shadow traffic", name,
                                      version_state_name(slot.state.load()),
                                      slot.reason.empty() ? "" : ": ", slot.reason),
                          "shadow.version");
  }
  return found->second;
}

std::optional<ShadowCopy> RouterEngine::copy_for_shadow(const GenerationRequest& request,
                                                        const std::shared_ptr<Slot>& shadow) const {
  // Draining since the split was chosen: no copy.
  if (shadow->state.load() != VersionState::kReady) return std::nullopt;
  ShadowCopy copy;
  copy.request = request;
  copy.request.id += "-shadow";
  copy.request.priority = Priority::kLow;  // the lowest class: real requests go first
  copy.request.background = true;          // and it computes only in their gaps
  copy.request.deadline.reset();           // no promise to keep: never refused for one
  copy.request.injected = {};              // production's drill faults are production's
  copy.request.model.clear();
  copy.engine = std::shared_ptr<Engine>(shadow, shadow->engine.get());  // keeps the slot alive
  copy.figures = shadow->shadow_figures;
  copy.pair = std::make_shared<AnswerPair>(shadow->shadow_figures);
  return copy;
}

}  // namespace supportd::engine::router
