// The desk's tunables, each with its default and the range it accepts. Given to the Desk once
// and constant after; `serve` fills them from its flags and config file (app/desk_setup.cpp).
// The desk does not clamp: a value outside its range is the caller's bug (REQUIRES below).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "desk/prompt.h"

namespace supportd::desk {

struct DeskOptions {
  // The system prompt and the budgets of a generated answer's prompt (desk/prompt.h).
  PromptOptions prompt{
      "You are the customer-service assistant of an online store. Answer the customer's last "
      "question briefly and politely, only from the articles below, and cite the articles you "
      "used as [1], [2]. If the articles do not answer it, say so and offer a person.",
      3, 1200, 4000, 240};
  // Tokens a generated answer may take at most. REQUIRES: >= 1.
  int max_answer_tokens = 256;
  // Sampling temperature of a generated answer: low keeps it close to the articles.
  // REQUIRES: 0 <= value <= 2.
  double answer_temperature = 0.3;
  // Knowledge-base entries retrieved per question (the prompt gives the model at most
  // prompt.articles of them). REQUIRES: 1 <= value <= 50.
  int retrieved_entries = 5;
  // Articles a fallback answer offers (the closest retrieved ones). REQUIRES: 0 <= value <=
  // retrieved_entries.
  std::size_t fallback_citations = 3;
  // Earlier messages of the conversation read for a generated answer's prompt; the prompt keeps
  // the newest that fit prompt.history_chars. REQUIRES: 0 <= value <= 1000.
  std::size_t history_messages = 20;
  // What the widget's text box takes, in characters (not bytes). REQUIRES: >= 1.
  std::size_t max_question_characters = 4000;
  // Words or phrases that call a person when a question contains them.
  std::vector<std::string> handoff_topics;
  // Unconfident answers in a row before a person is called. REQUIRES: >= 1.
  int low_confidence_turns = 2;
  // Threads that run turns. REQUIRES: >= 1.
  int worker_threads = 2;
  // Turns queued for the workers before more are refused (kBusy). REQUIRES: >= 1.
  std::size_t max_queued_turns = 4096;
  // Messages of one conversation waiting for the answer in progress (more: kTooManyWaiting).
  std::size_t max_waiting_per_conversation = 8;
  // Conversations in the waiting list pushed to agents' sockets, and listed by
  // Desk::waiting(tenant). REQUIRES: 1 <= value <= store::kMaxWaitingListed.
  std::size_t waiting_listed = 200;
  // false: never show generated text (when the model is synthesized, unless `serve
  // --show-synthesized-text` asks for it in a test or benchmark).
  bool generate = true;
  // Questions the semantic answer cache holds, least recently used dropped first.
  // REQUIRES: >= 1.
  std::size_t semantic_cache_entries = 10000;
};

}  // namespace supportd::desk
