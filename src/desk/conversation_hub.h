// Live delivery of conversation events to connected clients: a customer's sockets get the
// agent's messages and handoff changes of their session; a tenant's agent sockets get the
// waiting list and the customer messages of taken conversations. Messages are JSON strings.
// Thread-safety: every method may be called from any thread; listeners are called without
// the hub's lock held, and must not block.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace supportd::desk {

class Listener {
 public:
  virtual ~Listener() = default;
  virtual void deliver(const std::string& json) = 0;
};

class ConversationHub {
 public:
  // Subscriptions last while the listener lives (the hub keeps weak references).
  void watch_session(const std::string& session, const std::shared_ptr<Listener>& listener);
  void watch_tenant_agents(const std::string& tenant, const std::shared_ptr<Listener>& listener);

  void to_session(const std::string& session, const std::string& json);
  void to_agents(const std::string& tenant, const std::string& json);

  std::size_t session_listeners() const;
  std::size_t agent_listeners() const;

 private:
  using Listeners = std::vector<std::weak_ptr<Listener>>;
  static void deliver(Listeners& listeners, const std::string& json,
                      std::unique_lock<std::mutex>& lock);

  mutable std::mutex mutex_;
  std::map<std::string, Listeners> sessions_;  // guarded by mutex_
  std::map<std::string, Listeners> agents_;    // guarded by mutex_
};

}  // namespace supportd::desk
