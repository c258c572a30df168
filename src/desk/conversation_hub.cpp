// Live delivery to sockets (see conversation_hub.h): subscriptions kept as weak references,
// pruned when a listener is gone, listeners and the relay called outside the hub's lock.
#include "desk/conversation_hub.h"

namespace supportd::desk {

void ConversationHub::watch_session(const std::string& session,
                                    const std::shared_ptr<Listener>& listener) {
  std::lock_guard lock(mutex_);
  auto& list = sessions_[session];
  std::erase_if(list, [](const auto& w) { return w.expired(); });
  list.push_back(listener);
}

void ConversationHub::watch_tenant_agents(const std::string& tenant,
                                          const std::shared_ptr<Listener>& listener) {
  std::lock_guard lock(mutex_);
  auto& list = agents_[tenant];
  std::erase_if(list, [](const auto& w) { return w.expired(); });
  list.push_back(listener);
}

void ConversationHub::deliver(Listeners& listeners, const std::string& json,
                              std::unique_lock<std::mutex>& lock) {
  std::vector<std::shared_ptr<Listener>> live;
  std::erase_if(listeners, [](const auto& w) { return w.expired(); });
  for (const auto& w : listeners) {
    if (auto l = w.lock()) live.push_back(std::move(l));
  }
  lock.unlock();
  for (const auto& l : live)
    l->deliver(json);
}

void ConversationHub::to_session(const std::string& session, const std::string& json) {
  deliver_session(session, json);
  send_to_relay(Scope::kSession, session, json);
}

void ConversationHub::to_agents(const std::string& tenant, const std::string& json) {
  deliver_agents(tenant, json);
  send_to_relay(Scope::kAgents, tenant, json);
}

void ConversationHub::set_relay(Relay next) {
  std::lock_guard lock(mutex_);
  relay_ = next ? std::make_shared<const Relay>(std::move(next)) : nullptr;
}

void ConversationHub::deliver_relayed(Scope scope, const std::string& key,
                                      const std::string& json) {
  if (scope == Scope::kSession) {
    deliver_session(key, json);
  } else {
    deliver_agents(key, json);
  }
}

void ConversationHub::send_to_relay(Scope scope, const std::string& key, const std::string& json) {
  std::shared_ptr<const Relay> current;
  {
    std::lock_guard lock(mutex_);
    current = relay_;
  }
  if (current) (*current)(scope, key, json);
}

void ConversationHub::deliver_session(const std::string& session, const std::string& json) {
  std::unique_lock lock(mutex_);
  auto it = sessions_.find(session);
  if (it == sessions_.end()) return;
  deliver(it->second, json, lock);
  // Drop empty entries now and then, so closed sessions do not accumulate.
  lock.lock();
  it = sessions_.find(session);
  if (it != sessions_.end() && it->second.empty()) sessions_.erase(it);
}

void ConversationHub::deliver_agents(const std::string& tenant, const std::string& json) {
  std::unique_lock lock(mutex_);
  auto it = agents_.find(tenant);
  if (it == agents_.end()) return;
  deliver(it->second, json, lock);
}

std::size_t ConversationHub::session_listeners() const {
  std::lock_guard lock(mutex_);
  std::size_t n = 0;
  for (const auto& [session, list] : sessions_)
    n += list.size();
  return n;
}

std::size_t ConversationHub::agent_listeners() const {
  std::lock_guard lock(mutex_);
  std::size_t n = 0;
  for (const auto& [tenant, list] : agents_)
    n += list.size();
  return n;
}

}  // namespace supportd::desk
