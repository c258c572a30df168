// The desk's own words, one table per language (see phrases.h). To add a language, add a table
// here and list it in phrase_tables().
#include "desk/phrases.h"

#include <fmt/format.h>

namespace supportd::desk {
namespace {

constexpr Phrases kEnglish{
    .language = "en",
    .connecting =
        "Of course. I'm connecting you with a colleague; they will reply here as soon as they "
        "join.",
    .waiting = "A colleague will be with you shortly; they can see your message.",
    .no_answer = "Sorry, I could not find an answer to that.",
    .articles_intro = "I'm not sure I have the exact answer. These articles may help:",
    .offer_intro = "If that is not what you meant, these may help:",
    .person_called = "I've asked a colleague to join the conversation.",
    .person_offered = "You can also ask for a person at any time.",
};

constexpr Phrases kChinese{
    .language = "zh",
    .connecting = "好的，正在为您转接人工客服，请稍候。客服人员加入后会在这里回复您。",
    .waiting = "您的消息已转给人工客服，请稍候。",
    .no_answer = "抱歉，我没有找到确切的答案。",
    .articles_intro = "抱歉，我不确定有确切的答案。以下文章可能有帮助：",
    .offer_intro = "如果这不是您要找的，以下文章可能有帮助：",
    .person_called = "我已为您转接人工客服。",
    .person_offered = "如需帮助，您可以随时说“转人工”。",
};

}  // namespace

const Phrases& phrases_for(std::string_view language) {
  return language == kChinese.language ? kChinese : kEnglish;
}

const std::vector<const Phrases*>& phrase_tables() {
  static const std::vector<const Phrases*> tables{&kEnglish, &kChinese};
  return tables;
}

std::string fallback_message(const Phrases& phrases, const std::vector<Citation>& citations,
                             bool person_called) {
  std::string text(citations.empty() ? phrases.no_answer : phrases.articles_intro);
  for (std::size_t i = 0; i < citations.size(); ++i)
    text += fmt::format("\n{}. {}", i + 1, citations[i].title);
  text += '\n';
  text += person_called ? phrases.person_called : phrases.person_offered;
  return text;
}

std::string offer_message(const Phrases& phrases, const std::string& answer,
                          const std::vector<Citation>& citations) {
  std::string text = answer;
  if (citations.size() < 2) return text;
  text += "\n\n";
  text += phrases.offer_intro;
  for (std::size_t i = 1; i < citations.size(); ++i)
    text += fmt::format("\n{}. {}", i, citations[i].title);
  return text;
}

}  // namespace supportd::desk
