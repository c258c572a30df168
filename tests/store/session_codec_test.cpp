// The MessagePack form of a session in Redis: round trips, every truncation and flipped byte
// handled as corrupt (never a crash), metadata kept exactly, older copies without it decoded.
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
                 {7, Role::kAssistant, "", 1700000000200,
                  R"({"source":"kb","citations":[{"id":"faq/x","title":"Colis 📦"}]})"}};
  return view;
}

// A copy as supportd wrote it before messages had metadata (each message four elements):
// [1, "acme.bob.nonce.sig", "acme", "bob", 1700000000000, 2, 2, "Ann", 1700000000500,
//  1700000000500, nil, [[1, 0, "Where is my parcel?", 1700000000100],
//                       [2, 2, "Hello, I'm Ann.", 1700000000200]]]
const std::string kWithoutMetadata(
    "\x9c\x01\xb2"
    "acme.bob.nonce.sig"
    "\xa4"
    "acme"
    "\xa3"
    "bob"
    "\xcf\x00\x00\x01\x8b\xcf\xe5\x68\x00\x02\x02\xa3"
    "Ann"
    "\xcf\x00\x00\x01\x8b\xcf\xe5\x69\xf4\xcf\x00\x00\x01\x8b\xcf\xe5\x69\xf4\xc0"
    "\x92\x94\x01\x00\xb3"
    "Where is my parcel?"
    "\xcf\x00\x00\x01\x8b\xcf\xe5\x68\x64"
    "\x94\x02\x02\xaf"
    "Hello, I'm Ann."
    "\xcf\x00\x00\x01\x8b\xcf\xe5\x68\xc8",
    125);

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

TEST(SessionCodecTest, MetadataRoundTripsExactly) {
  const SessionView view = sample();
  Result<SessionView> back = decode_session(encode_session(view));
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->recent.size(), 2u);
  EXPECT_EQ(back->recent[0].meta, "");
  EXPECT_EQ(back->recent[1].meta, view.recent[1].meta);
}

TEST(SessionCodecTest, ACopyWrittenBeforeMetadataDecodesWithNone) {
  Result<SessionView> old = decode_session(kWithoutMetadata);
  ASSERT_TRUE(old.ok()) << old.error().message;
  EXPECT_EQ(old->conversation.session, "acme.bob.nonce.sig");
  EXPECT_EQ(old->conversation.agent, "Ann");
  EXPECT_EQ(old->conversation.last_seq, 2);
  ASSERT_EQ(old->recent.size(), 2u);
  EXPECT_EQ(old->recent[0].text, "Where is my parcel?");
  EXPECT_EQ(old->recent[1].role, Role::kAgent);
  EXPECT_EQ(old->recent[1].created_ms, 1700000000200);
  EXPECT_EQ(old->recent[0].meta, "");
  EXPECT_EQ(old->recent[1].meta, "");
  // Messages without metadata are still written in that form, which older readers take.
  EXPECT_EQ(encode_session(*old), kWithoutMetadata);
}

TEST(SessionCodecTest, MetadataThatIsNotTextIsCorrupt) {
  // The second message of kWithoutMetadata with a fifth element that is an integer.
  std::string bytes = kWithoutMetadata;
  const std::size_t second = bytes.find("\x94\x02\x02");
  ASSERT_NE(second, std::string::npos);
  bytes[second] = '\x95';
  bytes.push_back('\x07');
  Result<SessionView> result = decode_session(bytes);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::kCorrupt);
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
