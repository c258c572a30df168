// Signed session ids: issued ids verify, every altered character and another secret, tenant or
// user are refused, malformed ids and bad names are clear errors, the secret is made once.
#include "store/session_id.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

namespace supportd::store {
namespace {

SessionSigner signer(const std::string& secret = std::string(32, 's')) {
  Result<SessionSigner> made = SessionSigner::create(secret);
  EXPECT_TRUE(made.ok());
  return std::move(*made);
}

TEST(SessionIdTest, IssuedIdVerifiesAndCarriesTenantAndUser) {
  SessionSigner s = signer();
  Result<SessionId> id = s.issue("acme", "user-42");
  ASSERT_TRUE(id.ok()) << id.error().message;
  EXPECT_EQ(id->tenant(), "acme");
  EXPECT_EQ(id->user(), "user-42");
  EXPECT_EQ(id->key().rfind("acme:user-42:", 0), 0u);
  Result<SessionId> back = s.verify(id->token());
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->key(), id->key());
  EXPECT_EQ(session_key(id->token()), id->key());
}

TEST(SessionIdTest, IdsAreUnique) {
  SessionSigner s = signer();
  std::set<std::string> tokens;
  for (int i = 0; i < 1000; ++i)
    tokens.insert(s.issue("t", "u")->token());
  EXPECT_EQ(tokens.size(), 1000u);
}

TEST(SessionIdTest, EveryAlteredCharacterIsRefused) {
  SessionSigner s = signer();
  const std::string token = s.issue("acme", "bob")->token();
  for (std::size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '.') continue;
    std::string forged = token;
    forged[i] = forged[i] == 'A' ? 'B' : 'A';
    Result<SessionId> result = s.verify(forged);
    ASSERT_FALSE(result.ok()) << "accepted a change at " << i;
    EXPECT_TRUE(result.error().code == ErrorCode::kNotFound ||
                result.error().code == ErrorCode::kInvalidArgument);
  }
}

TEST(SessionIdTest, AnotherTenantOrUserCannotReuseTheSignature) {
  SessionSigner s = signer();
  const std::string token = s.issue("acme", "bob")->token();
  const std::string stolen = "evil" + token.substr(4);
  Result<SessionId> result = s.verify(stolen);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::kNotFound);
}

TEST(SessionIdTest, AnotherSecretRefuses) {
  const std::string token = signer(std::string(32, 'a')).issue("acme", "bob")->token();
  Result<SessionId> result = signer(std::string(32, 'b')).verify(token);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(result.error().message, "unknown session id");
}

TEST(SessionIdTest, MalformedIdsAreInvalidArguments) {
  SessionSigner s = signer();
  const std::string good = s.issue("acme", "bob")->token();
  for (const std::string& bad :
       {std::string(), std::string("."), std::string("..."), std::string("a.b.c"),
        std::string("a.b.c.d.e"), good + ".", "." + good, good.substr(0, good.size() - 1),
        good + "A", std::string(10000, 'x'), std::string("acme.bob.\xff\xfe.sig"),
        std::string("ac me.bob.") + good.substr(good.find('.', 5) + 1),
        std::string("acme.bob.AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="),
        std::string("acme.bob.AAAAAAAAAAAAAAAAAAAAAA.") + std::string(43, '\0')}) {
    Result<SessionId> result = s.verify(bad);
    ASSERT_FALSE(result.ok()) << bad;
    EXPECT_EQ(result.error().code, ErrorCode::kInvalidArgument) << bad;
    EXPECT_EQ(result.error().param, "session");
  }
}

TEST(SessionIdTest, BadNamesAreRefusedWithTheField) {
  SessionSigner s = signer();
  Result<SessionId> tenant = s.issue("", "bob");
  ASSERT_FALSE(tenant.ok());
  EXPECT_EQ(tenant.error().param, "tenant");
  Result<SessionId> user = s.issue("acme", "bob@example.com");
  ASSERT_FALSE(user.ok());
  EXPECT_EQ(user.error().param, "user");
  EXPECT_FALSE(s.issue("acme", std::string(65, 'u')).ok());
  EXPECT_TRUE(s.issue("acme", std::string(64, 'u')).ok());
}

TEST(SessionIdTest, ShortSecretIsRefused) {
  Result<SessionSigner> s = SessionSigner::create("short");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kInvalidArgument);
}

TEST(SessionIdTest, SecretIsGeneratedOnceAndKept) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("supportd-secret-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const auto path = dir / "session-secret";
  Result<std::string> first = SessionSigner::load_or_create_secret(path);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->size(), 64u);
  EXPECT_EQ(std::filesystem::status(path).permissions() & std::filesystem::perms::group_read,
            std::filesystem::perms::none);
  Result<std::string> second = SessionSigner::load_or_create_secret(path);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*first, *second);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace supportd::store
