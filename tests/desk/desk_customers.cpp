// Customers writing to a running `supportd serve` (desk_customers.h).
#include "desk_customers.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>

#include "http_client.h"

namespace supportd::testing {

namespace json = boost::json;

std::string customer_text(int customer, int number, std::size_t length) {
  std::string text =
      "customer " + std::to_string(customer) + " message " + std::to_string(number) + ":";
  const char letter = static_cast<char>('a' + (customer * 7 + number) % 26);
  while (text.size() < length)
    text += text.size() % 10 == 0 ? ' ' : letter;
  return text;
}

CustomerLoad::CustomerLoad(std::uint16_t port, int customers, std::size_t text_length)
    : port_(port), text_length_(text_length) {
  for (int number = 0; number < customers; ++number) {
    const auto r =
        http_request(port, "POST", "/v1/sessions",
                     json::serialize(json::object{{"user", "crash" + std::to_string(number)}}));
    EXPECT_EQ(r.status, 201) << r.body;
    if (r.status != 201) continue;
    Customer customer;
    customer.number = number;
    customer.session = std::string(json::parse(r.body).at("session").as_string());
    customers_.push_back(std::move(customer));
  }
}

CustomerLoad::~CustomerLoad() {
  stop();
}

void CustomerLoad::start(int max_messages, bool stop_when_unanswered) {
  for (Customer& customer : customers_)
    threads_.emplace_back([this, &customer, max_messages, stop_when_unanswered] {
      run(customer, max_messages, stop_when_unanswered);
    });
}

void CustomerLoad::stop() {
  stopping_ = true;
  finish();
  stopping_ = false;
}

void CustomerLoad::finish() {
  for (std::thread& thread : threads_)
    thread.join();
  threads_.clear();
}

bool CustomerLoad::wait_for_acknowledged(int count, int seconds) {
  const int goal = acknowledged_ + count;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (acknowledged_ < goal) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

std::map<int, int> CustomerLoad::refusals() const {
  std::lock_guard lock(refusals_mutex_);
  return refusals_;
}

void CustomerLoad::run(Customer& customer, int max_messages, bool stop_when_unanswered) {
  const std::string path = "/v1/sessions/" + customer.session + "/messages";
  while (!stopping_ && sent_by(customer) < max_messages) {
    std::string text;
    {
      std::lock_guard lock(customers_mutex_);
      text = customer_text(customer.number, customer.sent, text_length_);
      ++customer.sent;
    }
    const auto r = http_request(port_, "POST", path, json::serialize(json::object{{"text", text}}));
    if (r.status == 200) {
      const json::object body = json::parse(r.body).as_object();
      const json::object& answer = body.at("answer").as_object();
      std::lock_guard lock(customers_mutex_);
      customer.acknowledged.push_back({body.at("message_seq_id").as_int64(), "user", text});
      if (answer.at("seq_id").as_int64() > 0)
        customer.acknowledged.push_back({answer.at("seq_id").as_int64(), "assistant",
                                         std::string(answer.at("text").as_string())});
      ++acknowledged_;
      continue;
    }
    if (r.status == 0) {
      ++unanswered_;
      if (stop_when_unanswered) return;
    } else {
      std::error_code ec;
      const json::value body = json::parse(r.body, ec);
      if (ec || !body.is_object() || !body.as_object().contains("error")) ++unclear_refusals_;
      std::lock_guard lock(refusals_mutex_);
      ++refusals_[r.status];
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

int CustomerLoad::sent_by(const Customer& customer) const {
  std::lock_guard lock(customers_mutex_);
  return customer.sent;
}

std::vector<Acknowledged> CustomerLoad::acknowledged_by(const Customer& customer) const {
  std::lock_guard lock(customers_mutex_);
  return customer.acknowledged;
}

HistoryCount CustomerLoad::count_history(std::uint16_t port) const {
  HistoryCount count;
  for (const Customer& customer : customers_) {
    const std::string who = "customer " + std::to_string(customer.number) + ": ";
    // Acknowledged before the history is read: each must be in it.
    const std::vector<Acknowledged> acknowledged = acknowledged_by(customer);
    count.acknowledged += static_cast<int>(acknowledged.size());
    // The whole history, a page of the API's largest at a time from the newest back (a fast
    // customer acknowledges more than one page in a long load), oldest first.
    std::vector<json::value> pages;
    std::string failed;
    for (std::int64_t before = 0;;) {
      const auto r = http_request(port, "GET",
                                  "/v1/sessions/" + customer.session + "/messages?limit=1000" +
                                      (before > 0 ? "&before=" + std::to_string(before) : ""));
      if (r.status != 200) {
        failed = "history answered " + std::to_string(r.status) + " " + r.body;
        break;
      }
      json::value page = json::parse(r.body);
      const json::array& messages = page.at("messages").as_array();
      if (messages.empty()) break;
      before = messages.front().as_object().at("seq_id").as_int64();
      const bool last = messages.size() < 1000;
      pages.push_back(std::move(page));
      if (last || before <= 1) break;
    }
    if (!failed.empty()) {
      count.problems.push_back(who + failed);
      continue;
    }
    // Sent after the history was read: every message in it was sent by then.
    const int sent = sent_by(customer);
    std::vector<json::value> oldest_first;
    for (auto page = pages.rbegin(); page != pages.rend(); ++page)
      for (const json::value& value : page->at("messages").as_array())
        oldest_first.push_back(value);
    std::map<std::int64_t, Acknowledged> stored;
    std::int64_t previous_seq = 0;
    int previous_number = -1;
    for (const json::value& value : oldest_first) {
      const json::object& message = value.as_object();
      Acknowledged entry{message.at("seq_id").as_int64(),
                         std::string(message.at("role").as_string()),
                         std::string(message.at("text").as_string())};
      if (entry.seq_id <= previous_seq)
        count.problems.push_back(who + "seq_id " + std::to_string(entry.seq_id) + " after " +
                                 std::to_string(previous_seq));
      previous_seq = entry.seq_id;
      if (entry.role == "user") {
        // Whole, one this customer sent, and after the one before it.
        int number = -1;
        for (int candidate = previous_number + 1; candidate < sent; ++candidate)
          if (customer_text(customer.number, candidate, text_length_) == entry.text)
            number = candidate;
        if (number < 0)
          count.problems.push_back(who + "a message it did not send, or not in order, at seq_id " +
                                   std::to_string(entry.seq_id) + ": " + entry.text.substr(0, 60));
        previous_number = number;
      }
      stored[entry.seq_id] = std::move(entry);
    }
    for (const Acknowledged& kept : acknowledged) {
      const auto found = stored.find(kept.seq_id);
      if (found != stored.end() && found->second.role == kept.role &&
          found->second.text == kept.text) {
        ++count.found;
        stored.erase(found);
      } else {
        count.problems.push_back(who + "acknowledged " + kept.role + " seq_id " +
                                 std::to_string(kept.seq_id) + " is missing or changed");
      }
    }
    for (const auto& [seq_id, entry] : stored)
      if (entry.role == "user") ++count.extra_user;
  }
  return count;
}

}  // namespace supportd::testing
