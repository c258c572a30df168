#include "store/session_codec.h"

#include <gtest/gtest.h>

namespace supportd::store {
namespace {

SessionView sample() {
  SessionView view;
  view.conversation.session = "acme.bob.nonce.sig";
  view.conversation.tenant = "acme";
  view.conversation.user = "bob";
  view.conversation.created_ms = 1700000000000;
  view.conversation.last_seq = 7;
  view.conversation.handoff = Handoff::kTaken;
  view.conversation.agent = "alice";
  view.conversation.handoff_ms = 1700000000500;
  view.conversation.csat = 4;
  view.state_version = 1700000000500;
  view.recent = {{6, Role::kUser, "où est mon colis ? 📦", 1700000000100},
                 {7, Role::kAssistant, "", 1700000000200}};
  return view;
}

TEST(SessionCodecTest, RoundTrips) {
  const SessionView view = sample();
  Result<SessionView> back = decode_session(encode_session(view));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->conversation, view.conversation);
  EXPECT_EQ(back->state_version, view.state_version);
  EXPECT_EQ(back->recent, view.recent);
}

TEST(SessionCodecTest, EmptySessionRoundTrips) {
  SessionView view;
  view.conversation.session = "a.b.c.d";
  Result<SessionView> back = decode_session(encode_session(view));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->conversation, view.conversation);
  EXPECT_TRUE(back->recent.empty());
}

TEST(SessionCodecTest, EveryTruncationIsCorruptNotACrash) {
  const std::string bytes = encode_session(sample());
  for (std::size_t size = 0; size < bytes.size(); ++size) {
    Result<SessionView> result = decode_session(std::string_view(bytes).substr(0, size));
    ASSERT_FALSE(result.ok()) << size;
    EXPECT_EQ(result.error().code, ErrorCode::kCorrupt);
  }
}

TEST(SessionCodecTest, EveryFlippedByteIsHandled) {
  const std::string bytes = encode_session(sample());
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    for (unsigned char flip : {0x01, 0x80, 0xff}) {
      std::string damaged = bytes;
      damaged[i] = static_cast<char>(static_cast<unsigned char>(damaged[i]) ^ flip);
      Result<SessionView> result = decode_session(damaged);  // must not crash or throw
      if (!result.ok()) {
        EXPECT_EQ(result.error().code, ErrorCode::kCorrupt);
      }
    }
  }
}

TEST(SessionCodecTest, ForeignValuesAreCorrupt) {
  for (const std::string& bytes :
       {std::string("hello"), std::string("\x93\x01\x02\x03", 4), std::string("\xc0", 1),
        // an array header claiming four billion elements
        std::string("\xdd\xff\xff\xff\xff", 5)}) {
    Result<SessionView> result = decode_session(bytes);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().code, ErrorCode::kCorrupt);
  }
}

TEST(SessionCodecTest, MessagesMustBeTheTailEndingAtLastSeq) {
  SessionView view = sample();
  view.conversation.last_seq = 9;  // messages are 6 and 7
  Result<SessionView> result = decode_session(encode_session(view));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::kCorrupt);
}

}  // namespace
}  // namespace supportd::store
