// Snippets: the passage sharing the most terms with the question, as plain text, shortened on a
// character boundary.
#include "kb/search/snippet.h"

#include <gtest/gtest.h>

namespace supportd::kb {
namespace {

TEST(Snippet, PicksThePassageSharingTheMostTermsAsPlainText) {
  auto analyzer = TextAnalyzer::create({});
  ASSERT_TRUE(analyzer.ok());
  Entry entry;
  entry.title = "Damaged items";
  entry.answer =
      "If an item arrives **damaged**, send us a photo\n"
      "within 48 hours. We will send a replacement\n"
      "or refund you in full.\n"
      "\n"
      "```\n"
      "refund refund refund\n"
      "```\n"
      "- Refunds for gift cards go back to the card.\n";
  const Document body{0, DocumentKind::kBody, entry.title + "\n" + entry.answer};
  const std::string snippet =
      make_snippet(entry, &body, analyzer->terms("send a replacement"), *analyzer);
  // Wrapped lines are one paragraph; markup is gone; code blocks never show up.
  EXPECT_EQ(snippet.find("We will send a replacement or refund you in full."), 0u) << snippet;
  const std::string gift =
      make_snippet(entry, &body, analyzer->terms("gift card refund"), *analyzer);
  EXPECT_EQ(gift, "Refunds for gift cards go back to the card.");
  EXPECT_EQ(snippet.find("**"), std::string::npos);

  const Document question{0, DocumentKind::kQuestion, "Where is my parcel?"};
  EXPECT_EQ(make_snippet(entry, &question, {}, *analyzer), "Where is my parcel?");
}

TEST(Snippet, ShortensOnCharacterBoundaries) {
  const std::string chinese = "退款审核通过后，一到三个工作日内原路退回。";  // 3 bytes a character
  for (std::size_t limit = 1; limit < chinese.size(); ++limit) {
    const std::string cut = shorten(chinese, limit);
    ASSERT_TRUE(cut.size() <= limit + 3);  // plus the ellipsis
    ASSERT_EQ((cut.size() - 3) % 3, 0u) << limit;
  }
  EXPECT_EQ(shorten("short", 100), "short");
  // A space in the last fifth keeps words whole; otherwise the cut is exact.
  EXPECT_EQ(shorten("one two three four five", 22), "one two three four\xE2\x80\xA6");
  EXPECT_EQ(shorten("one two three four five", 12), "one two thre\xE2\x80\xA6");
}

}  // namespace
}  // namespace supportd::kb
