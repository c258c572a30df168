// The desk's metadata of a stored message: what it writes reads back the same, stays within
// the store's bound, and whatever a stored value holds reads without an error.
#include "desk/message_meta.h"

#include <gtest/gtest.h>

#include "store/session_types.h"

namespace supportd::desk {
namespace {

TEST(MessageMetaTest, AnAnswersSourceAndCitationsReadBackTheSame) {
  const MessageMeta meta{"kb",
                         {{"faq/where-is-my-order", "Où est ma commande ? 📦", "\"tracking\""},
                          {"guide/returns", "Returns", ""}},
                         ""};
  const MessageMeta back = decode_message_meta(encode_message_meta(meta));
  EXPECT_EQ(back.source, "kb");
  ASSERT_EQ(back.citations.size(), 2u);
  EXPECT_EQ(back.citations[0].id, "faq/where-is-my-order");
  EXPECT_EQ(back.citations[0].title, "Où est ma commande ? 📦");
  EXPECT_EQ(back.citations[0].snippet, "\"tracking\"");
  EXPECT_EQ(back.citations[1].id, "guide/returns");
  EXPECT_TRUE(back.agent.empty());
  EXPECT_EQ(decode_message_meta(encode_message_meta({"", {}, "Ann"})).agent, "Ann");
}

TEST(MessageMetaTest, WhatIsWrittenIsValidUtf8TheStoreTakes) {
  const std::string encoded =
      encode_message_meta({"kb", {{"faq/\xff", "bad \xc3 title", std::string("nul \0 x", 7)}}, ""});
  EXPECT_TRUE(store::check_new_message({store::Role::kAssistant, "text", encoded}).ok()) << encoded;
  EXPECT_EQ(decode_message_meta(encoded).citations.size(), 1u);
}

TEST(MessageMetaTest, NothingToKeepIsNothingStored) {
  EXPECT_EQ(encode_message_meta({}), "");
}

TEST(MessageMetaTest, CitationsThatDoNotFitAreLeftOutLastFirst) {
  MessageMeta meta{"model", {}, ""};
  for (int i = 0; i < 20; ++i)
    meta.citations.push_back({"entry/" + std::to_string(i), std::string(2000, 'x'), ""});
  const std::string encoded = encode_message_meta(meta);
  EXPECT_LE(encoded.size(), store::kMaxMetaBytes);
  const MessageMeta back = decode_message_meta(encoded);
  EXPECT_EQ(back.source, "model");
  ASSERT_FALSE(back.citations.empty());
  EXPECT_LT(back.citations.size(), 20u);
  EXPECT_EQ(back.citations[0].id, "entry/0");
}

TEST(MessageMetaTest, AnythingUnreadableReadsAsAbsent) {
  for (const char* stored : {"", "not json", "[1,2]", "\"kb\"", "{\"source\":", "null"}) {
    const MessageMeta meta = decode_message_meta(stored);
    EXPECT_TRUE(meta.source.empty() && meta.citations.empty() && meta.agent.empty()) << stored;
  }
  const MessageMeta wrong = decode_message_meta(
      R"({"source":7,"agent":["Ann"],"citations":[3,{"title":5},{"id":"faq/x"}],"extra":1})");
  EXPECT_TRUE(wrong.source.empty());
  EXPECT_TRUE(wrong.agent.empty());
  ASSERT_EQ(wrong.citations.size(), 1u);
  EXPECT_EQ(wrong.citations[0].id, "faq/x");
}

}  // namespace
}  // namespace supportd::desk
