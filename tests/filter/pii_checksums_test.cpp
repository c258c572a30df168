// The checksums that decide whether a number is PII: Luhn, card issuer prefixes and lengths, the
// Chinese resident id's check digit.
#include "filter/pii_checksums.h"

#include <gtest/gtest.h>

namespace supportd::filter {
namespace {

TEST(PiiChecksumsTest, Luhn) {
  EXPECT_TRUE(luhn_valid("4111111111111111"));
  EXPECT_TRUE(luhn_valid("378282246310005"));
  EXPECT_TRUE(luhn_valid("6217000000000000004"));
  EXPECT_FALSE(luhn_valid("4111111111111112"));
  EXPECT_FALSE(luhn_valid(""));
  EXPECT_FALSE(luhn_valid("4111 1111"));
}

TEST(PiiChecksumsTest, CardIssuerPrefixAndLength) {
  EXPECT_TRUE(card_issuer_known("4111111111111111"));     // Visa
  EXPECT_TRUE(card_issuer_known("5500005555555559"));     // Mastercard
  EXPECT_TRUE(card_issuer_known("2221000000000009"));     // Mastercard 2-series
  EXPECT_TRUE(card_issuer_known("378282246310005"));      // Amex
  EXPECT_TRUE(card_issuer_known("6217000000000000004"));  // UnionPay, 19 digits
  EXPECT_TRUE(card_issuer_known("3530111333300000"));     // JCB
  EXPECT_FALSE(card_issuer_known("2024031512345672"));    // a date-prefixed order number
  EXPECT_FALSE(card_issuer_known("1234567890123452"));
  EXPECT_FALSE(card_issuer_known("37828224631000"));  // Amex is 15 digits
  EXPECT_FALSE(card_issuer_known("411111111111"));    // too short
}

TEST(PiiChecksumsTest, ChineseResidentId) {
  EXPECT_TRUE(chinese_id_valid("11010519491231002X"));
  EXPECT_TRUE(chinese_id_valid("11010519491231002x"));
  EXPECT_FALSE(chinese_id_valid("440524188001010014"));  // right check, born 1880
  EXPECT_TRUE(chinese_id_valid("110101199003071233"));
  EXPECT_TRUE(chinese_id_valid("510107200002294417"));   // 29 Feb 2000 existed
  EXPECT_FALSE(chinese_id_valid("110101199003071234"));  // wrong check digit
  EXPECT_FALSE(chinese_id_valid("110101199013071237"));  // month 13, right check digit
  EXPECT_FALSE(chinese_id_valid("510107200102294414"));  // 29 Feb 2001, right check
  EXPECT_FALSE(chinese_id_valid("990101199003071237"));  // no province 99
  EXPECT_FALSE(chinese_id_valid("110101209903071235"));  // born in the future
  EXPECT_FALSE(chinese_id_valid("11010119900307123"));   // 17 characters
}

}  // namespace
}  // namespace supportd::filter
