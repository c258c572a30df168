// Customers writing to a running `supportd serve` over HTTP, for the crash and outage tests:
// each keeps one conversation and sends numbered messages one after another on its own thread,
// remembering every seq_id the server acknowledged (answered 200), so that the history read
// back later (after a kill -9 and a restart, or after an outage) can be counted against what
// was acknowledged.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace supportd::testing {

// One message the server acknowledged: its seq_id, role ("user" or "assistant") and text.
struct Acknowledged {
  std::int64_t seq_id = 0;
  std::string role;
  std::string text;
};

// What a history read back shows against what was acknowledged.
struct HistoryCount {
  int acknowledged = 0;  // messages answered 200 (the customer's and the answer)
  int found = 0;         // of those, present with the same seq_id, role and text
  int extra_user = 0;    // customer messages present but never acknowledged (in flight)
  std::vector<std::string> problems;  // what is wrong, one line each (empty: all is well)
};

// The text of message `number` of customer `customer`: `length` characters, a header naming
// both, then a filler that depends on them (so a torn or mixed-up write cannot pass).
std::string customer_text(int customer, int number, std::size_t length);

class CustomerLoad {
 public:
  // Opens `customers` conversations on the server at `port` (POST /v1/sessions); each message
  // has `text_length` characters. Fails the test when a conversation cannot be opened.
  CustomerLoad(std::uint16_t port, int customers, std::size_t text_length = 200);
  ~CustomerLoad();  // stops and joins the customers
  CustomerLoad(const CustomerLoad&) = delete;
  CustomerLoad& operator=(const CustomerLoad&) = delete;

  // Starts every customer sending, at most `max_messages` each. A customer stops for good when
  // a request gets no answer at all (the server is gone) if `stop_when_unanswered`; otherwise
  // it counts the failure and goes on. A refusal (an HTTP error) is counted, its body checked
  // to be a JSON error, and the customer goes on after a short pause.
  void start(int max_messages, bool stop_when_unanswered);
  void stop();    // asks every customer to stop and waits for them
  void finish();  // waits for every customer to have sent its `max_messages`
  // Waits (at most `seconds`) until `count` more messages have been acknowledged than when
  // called; false when they were not.
  bool wait_for_acknowledged(int count, int seconds);
  // Points the customers at another port (a restarted server); safe while they run.
  void set_port(std::uint16_t port) { port_ = port; }

  int acknowledged() const { return acknowledged_; }
  int unanswered() const { return unanswered_; }
  // Refusals by HTTP status, and those whose body was not a JSON error (should be none).
  std::map<int, int> refusals() const;
  int unclear_refusals() const { return unclear_refusals_; }

  // Reads every conversation back from the server at `port` (GET .../messages) and counts it
  // against what was acknowledged: every acknowledged message there, in seq_id order, with its
  // seq_id, role and text; every customer message there one this customer sent, whole. Safe
  // while the customers write: what was acknowledged before the read must be in it.
  HistoryCount count_history(std::uint16_t port) const;

 private:
  struct Customer {
    int number = 0;
    std::string session;
    int sent = 0;  // messages attempted (the last may be in flight when the server died)
    std::vector<Acknowledged> acknowledged;
  };
  // `customer`'s sent and acknowledged, read under customers_mutex_.
  int sent_by(const Customer& customer) const;
  std::vector<Acknowledged> acknowledged_by(const Customer& customer) const;
  void run(Customer& customer, int max_messages, bool stop_when_unanswered);

  std::atomic<std::uint16_t> port_;
  std::size_t text_length_;
  mutable std::mutex customers_mutex_;  // guards each Customer's sent and acknowledged
  std::vector<Customer> customers_;
  std::vector<std::thread> threads_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> acknowledged_{0};
  std::atomic<int> unanswered_{0};
  std::atomic<int> unclear_refusals_{0};
  mutable std::mutex refusals_mutex_;
  std::map<int, int> refusals_;
};

}  // namespace supportd::testing
