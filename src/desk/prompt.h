// Prompt assembly for a generated answer: the system prompt and the retrieved articles first
// (so that requests share their beginning and the engine's prefix cache applies), then the
// conversation so far, then the question; everything within a character budget.
// Pure functions: safe from any thread.
#pragma once

#include <string>
#include <vector>

#include "desk/answer.h"
#include "engine/request.h"
#include "kb/knowledge_base.h"
#include "store/session_types.h"

namespace supportd::desk {

struct PromptOptions {
  std::string system_prompt;
  int articles = 3;                  // retrieved entries given to the model; REQUIRES: >= 0
  std::size_t article_chars = 1200;  // bytes of each article's text (cut at a character)
  std::size_t history_chars = 4000;  // newest messages first until this is spent
  std::size_t snippet_chars = 240;   // bytes of a citation's snippet (cut at a character)
};

struct Prompt {
  std::vector<engine::ChatMessage> messages;
  std::vector<Citation> citations;  // the articles given, in the order the model sees them
  int history_messages = 0;         // earlier messages of the conversation given
  std::size_t history_chars = 0;    // their bytes
};

// The messages for the engine: never fails; an article without text is skipped, and history
// that does not fit history_chars is left out, oldest first.
Prompt build_prompt(const PromptOptions& options, const std::vector<kb::SearchHit>& hits,
                    const std::vector<store::Message>& history, const std::string& question);

// The citation a search hit gives: its snippet (else its answer) cut to `snippet_chars` bytes.
Citation citation_of(const kb::SearchHit& hit, std::size_t snippet_chars);

}  // namespace supportd::desk
