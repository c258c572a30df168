// Live delivery of conversation events to connected clients: a customer's sockets get the
// agent's messages and handoff changes of their session; a tenant's agent sockets get the
// waiting list and the customer messages of taken conversations. Messages are JSON strings.
// Behind several gateways, a relay (app/hub_relay.h) carries each event to the other
// gateways' hubs too, so an agent on one gateway reaches a customer connected to another.
// Thread-safety: every method may be called from any thread; listeners and the relay are
// called without the hub's lock held, and must not block.
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
  enum class Scope { kSession, kAgents };
  // Where an event goes besides this process's listeners: `key` is the session id (kSession)
  // or the tenant (kAgents).
  using Relay = std::function<void(Scope scope, const std::string& key, const std::string& json)>;

  // Subscriptions last while the listener lives (the hub keeps weak references).
  void watch_session(const std::string& session, const std::shared_ptr<Listener>& listener);
  void watch_tenant_agents(const std::string& tenant, const std::shared_ptr<Listener>& listener);

  void to_session(const std::string& session, const std::string& json);
  void to_agents(const std::string& tenant, const std::string& json);

  // Every event of to_session and to_agents is also handed to `next` (after the local
  // listeners); an empty function stops relaying.
  void set_relay(Relay next);
  // An event another process relayed: delivered to this process's listeners only.
  void deliver_relayed(Scope scope, const std::string& key, const std::string& json);

  std::size_t session_listeners() const;
  std::size_t agent_listeners() const;

 private:
  using Listeners = std::vector<std::weak_ptr<Listener>>;
  static void deliver(Listeners& listeners, const std::string& json,
                      std::unique_lock<std::mutex>& lock);
  void deliver_session(const std::string& session, const std::string& json);
  void deliver_agents(const std::string& tenant, const std::string& json);
  void send_to_relay(Scope scope, const std::string& key, const std::string& json);

  mutable std::mutex mutex_;
  std::map<std::string, Listeners> sessions_;  // guarded by mutex_
  std::map<std::string, Listeners> agents_;    // guarded by mutex_
  std::shared_ptr<const Relay> relay_;         // guarded by mutex_; null: none
};

}  // namespace supportd::desk
