// Prompt assembly for a generated answer (see prompt.h): the articles clipped to their budget,
// then the newest history that fits, then the question.
#include "desk/prompt.h"

#include <fmt/format.h>

#include "core/utf8.h"

namespace supportd::desk {
namespace {

// At most `limit` bytes of `text`, cut at a character boundary, with an ellipsis when cut.
std::string clip(const std::string& text, std::size_t limit) {
  if (text.size() <= limit) return text;
  std::size_t cut = limit;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
    --cut;
  return text.substr(0, cut) + "…";
}

}  // namespace

Citation citation_of(const kb::SearchHit& hit, std::size_t snippet_chars) {
  return {hit.id, hit.title, clip(hit.snippet.empty() ? hit.answer : hit.snippet, snippet_chars)};
}

Prompt build_prompt(const PromptOptions& options, const std::vector<kb::SearchHit>& hits,
                    const std::vector<store::Message>& history, const std::string& question) {
  Prompt prompt;
  std::string system = options.system_prompt;
  system += "\n\nArticles:";
  int n = 0;
  for (const auto& hit : hits) {
    if (n >= options.articles) break;
    const std::string body = hit.answer.empty() ? hit.snippet : hit.answer;
    if (body.empty()) continue;
    ++n;
    system += fmt::format("\n[{}] {}\n{}", n, hit.title, clip(body, options.article_chars));
    prompt.citations.push_back(citation_of(hit, options.snippet_chars));
  }
  if (n == 0) system += "\n(none found)";
  prompt.messages.push_back({"system", std::move(system)});

  // The newest history that fits, oldest first; agents speak as the assistant.
  std::vector<engine::ChatMessage> turns;
  std::size_t spent = 0;
  for (auto it = history.rbegin(); it != history.rend(); ++it) {
    if (it->role == store::Role::kSystem) continue;
    if (spent + it->text.size() > options.history_chars) break;
    spent += it->text.size();
    turns.push_back({it->role == store::Role::kUser ? "user" : "assistant", it->text});
  }
  prompt.history_messages = static_cast<int>(turns.size());
  prompt.history_chars = spent;
  prompt.messages.insert(prompt.messages.end(), turns.rbegin(), turns.rend());
  prompt.messages.push_back({"user", question});
  return prompt;
}

}  // namespace supportd::desk
