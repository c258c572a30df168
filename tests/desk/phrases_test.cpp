// The desk's own words: every language's table complete, the right table for a language, and
// the fallback answer composed from them.
#include "desk/phrases.h"

#include <gtest/gtest.h>

#include <string>

namespace supportd::desk {
namespace {

TEST(DeskPhrases, EveryTableSaysEverything) {
  ASSERT_GE(phrase_tables().size(), 2u);
  for (const Phrases* table : phrase_tables()) {
    SCOPED_TRACE(std::string(table->language));
    EXPECT_FALSE(table->language.empty());
    for (std::string_view phrase :
         {table->connecting, table->waiting, table->no_answer, table->articles_intro,
          table->offer_intro, table->person_called, table->person_offered}) {
      EXPECT_FALSE(phrase.empty());
      EXPECT_EQ(phrase.find('\n'), std::string_view::npos) << phrase;  // one line each
    }
    EXPECT_EQ(&phrases_for(table->language), table);  // each table is reached by its code
  }
}

TEST(DeskPhrases, ChineseForChineseEnglishForEverythingElse) {
  EXPECT_EQ(phrases_for("zh").waiting, "您的消息已转给人工客服，请稍候。");
  EXPECT_EQ(phrases_for("en").waiting,
            "A colleague will be with you shortly; they can see your message.");
  for (std::string_view other : {"", "fr", "ZH", "zh-TW"})
    EXPECT_EQ(&phrases_for(other), &phrases_for("en")) << other;
}

TEST(DeskPhrases, AFallbackListsTheArticlesThenOffersOrCallsAPerson) {
  const std::vector<Citation> articles{{"a1", "Returns", ""}, {"a2", "Shipping times", ""}};
  EXPECT_EQ(fallback_message(phrases_for("en"), articles, false),
            "I'm not sure I have the exact answer. These articles may help:\n"
            "1. Returns\n2. Shipping times\n"
            "You can also ask for a person at any time.");
  EXPECT_EQ(fallback_message(phrases_for("en"), {}, true),
            "Sorry, I could not find an answer to that.\n"
            "I've asked a colleague to join the conversation.");
  EXPECT_EQ(fallback_message(phrases_for("zh"), {{"a1", "退货", ""}}, true),
            "抱歉，我不确定有确切的答案。以下文章可能有帮助：\n1. 退货\n我已为您转接人工客服。");
}

TEST(DeskPhrases, AnOfferAnswersThenListsTheOtherArticles) {
  const std::vector<Citation> articles{
      {"a1", "Refunds", ""}, {"a2", "Returns", ""}, {"a3", "Payment", ""}};
  EXPECT_EQ(offer_message(phrases_for("en"), "We refund within 5 days.", articles),
            "We refund within 5 days.\n\nIf that is not what you meant, these may help:\n"
            "1. Returns\n2. Payment");
  EXPECT_EQ(offer_message(phrases_for("zh"), "五天内退款。", {{"a1", "退款", ""}}), "五天内退款。");
}

}  // namespace
}  // namespace supportd::desk
