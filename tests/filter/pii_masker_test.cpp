// PII masking: phones, e-mails, Luhn-valid cards and valid Chinese ids are masked; order numbers,
// prices and dates stay; offsets refer to the original; any input gives valid UTF-8.
#include "filter/pii_masker.h"

#include <random>
#include <string>

#include <gtest/gtest.h>

#include "core/utf8.h"

namespace supportd::filter {
namespace {

TEST(PiiMaskerTest, MasksPhoneNumbers) {
  EXPECT_EQ(mask_pii("call 13812345678 now"), "call [phone] now");
  EXPECT_EQ(mask_pii("手机13812345678谢谢"), "手机[phone]谢谢");
  EXPECT_EQ(mask_pii("138 1234 5678 or 138-1234-5678"), "[phone] or [phone]");
  EXPECT_EQ(mask_pii("+86 138 1234 5678, +8613812345678, 0086 13812345678"),
            "[phone], [phone], [phone]");
  EXPECT_EQ(mask_pii("(+86) 13812345678"), "[phone]");
  EXPECT_EQ(mask_pii("phone(13812345678)"), "phone[phone]");
  EXPECT_EQ(mask_pii("office 010-12345678 / 0755-1234 5678"), "office [phone] / [phone]");
  EXPECT_EQ(mask_pii("US (555) 123-4567, 555.123.4567, +1 555 123 4567, 1-555-123-4567"),
            "US [phone], [phone], [phone], [phone]");
  EXPECT_EQ(mask_pii("UK +44 20 7946 0958 or 020 7946 0958 or 07700 900123"),
            "UK [phone] or [phone] or [phone]");
  EXPECT_EQ(mask_pii("DE +49 30 1234567"), "DE [phone]");
  EXPECT_EQ(mask_pii("UK +44 (0)20 7946 0958."), "UK [phone].");
  EXPECT_EQ(mask_pii("全角１３８１２３４５６７８号"), "全角[phone]号");
}

TEST(PiiMaskerTest, MasksEmailAddresses) {
  EXPECT_EQ(mask_pii("mail Jane.Doe+shop@Example.co.uk, ok?"), "mail [email], ok?");
  EXPECT_EQ(mask_pii("邮箱：13812345678@163.com。"), "邮箱：[email]。");
  EXPECT_EQ(mask_pii("not an address: a@b, @home, user@localhost"),
            "not an address: a@b, @home, user@localhost");
}

TEST(PiiMaskerTest, MasksCardNumbersOnlyWhenLuhnPasses) {
  EXPECT_EQ(mask_pii("card 4111111111111111."), "card [card ****1111].");
  EXPECT_EQ(mask_pii("card 4111 1111 1111 1111 exp 12/27"), "card [card ****1111] exp 12/27");
  EXPECT_EQ(mask_pii("amex 3782-822463-10005"), "amex [card ****0005]");
  EXPECT_EQ(mask_pii("银联卡 6217 0000 0000 0000 004"), "银联卡 [card ****0004]");
  EXPECT_EQ(mask_pii("卡号６２２２０２１２３４５６７８９０１２８"), "卡号[card ****0128]");
  // Luhn fails: left alone.
  EXPECT_EQ(mask_pii("card 4111111111111112"), "card 4111111111111112");
  EXPECT_EQ(mask_pii("card 4111 1111 1111 1112"), "card 4111 1111 1111 1112");
}

TEST(PiiMaskerTest, MasksChineseIdNumbersOnlyWhenValid) {
  EXPECT_EQ(mask_pii("身份证11010519491231002X。"), "身份证[id]。");
  EXPECT_EQ(mask_pii("id 11010519491231002x ok"), "id [id] ok");
  EXPECT_EQ(mask_pii("ID 110101 19900307 1233"), "ID [id]");
  EXPECT_EQ(mask_pii("身份证号：１１０１０１１９９００３０７１２３３"), "身份证号：[id]");
  EXPECT_EQ(mask_pii("bad check 110101199003071234"), "bad check 110101199003071234");
  EXPECT_EQ(mask_pii("bad date 110101199013071237"), "bad date 110101199013071237");
}

TEST(PiiMaskerTest, LeavesOrderNumbersPricesAndDatesAlone) {
  for (const std::string text : {
           "订单号 202403151234567890 已发货",  // 18 digits, no province 20
           "order 2024031512345672 shipped",    // Luhn passes, but no card starts so
           "order 1234567890123452",            // likewise
           "Order #114-3941689-8772232",        // marketplace order id
           "订单 SO-20240315-000123",           // glued to letters
           "tracking SF1234567890123 and 1Z999AA10123456784",
           "ORD-13812345678",                      // a phone-shaped id glued to a prefix
           "order 1234567890, ticket 9876543210",  // contiguous 10 digits are not phones
           "total ¥1,299.00 (was ¥1,599.00), $4,111.11, 13800.00 元, 4111111111111111.50",
           "on 2024-03-15 at 13:45:00, or 15/03/2024, 2024年3月15日",
           "server 192.168.100.200 v10.0.19045.1234", "qty 3 x 2 = 6, call in 5 min",
           "a+13812345678",  // glued to a word by a plus
       }) {
    EXPECT_EQ(mask_pii(text), text);
    EXPECT_TRUE(find_pii(text).empty()) << text;
  }
}

TEST(PiiMaskerTest, FindReportsKindsAndOffsetsInTheOriginal) {
  const std::string text = "张三，电话１３８１２３４５６７８，邮箱 zs@example.com";
  const std::vector<PiiMatch> found = find_pii(text);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].kind, PiiKind::kPhone);
  EXPECT_EQ(text.substr(found[0].begin, found[0].end - found[0].begin), "１３８１２３４５６７８");
  EXPECT_EQ(found[1].kind, PiiKind::kEmail);
  EXPECT_EQ(text.substr(found[1].begin, found[1].end - found[1].begin), "zs@example.com");
}

TEST(PiiMaskerTest, SeparatesNumbersWrittenSideBySide) {
  EXPECT_EQ(mask_pii("tel 13812345678 4111111111111111"), "tel [phone] [card ****1111]");
  EXPECT_EQ(mask_pii("13812345678,13912345678"), "[phone],[phone]");
}

TEST(PiiMaskerTest, ArbitraryTextGivesValidUtf8AndOrderedMatches) {
  const std::vector<std::string> atoms = {"1",  "38", "4111", " ",   "-",    "(",
                                          ")",  "+",  "@",    "a.b", "x",    "X",
                                          "．", "１", "\xFF", "我",  ".com", "00"};
  std::mt19937 random(11);
  for (int round = 0; round < 500; ++round) {
    std::string text;
    const int count = std::uniform_int_distribution<int>(1, 40)(random);
    for (int i = 0; i < count; ++i)
      text += atoms[std::uniform_int_distribution<std::size_t>(0, atoms.size() - 1)(random)];
    EXPECT_TRUE(is_valid_utf8(mask_pii(text))) << text;
    const std::string valid = sanitize_utf8(text);
    std::size_t previous_end = 0;
    for (const PiiMatch& match : find_pii(valid)) {
      EXPECT_LE(previous_end, match.begin) << valid;
      EXPECT_LT(match.begin, match.end) << valid;
      EXPECT_LE(match.end, valid.size()) << valid;
      previous_end = match.end;
    }
  }
}

TEST(PiiMaskerTest, IllFormedBytesBecomeReplacementCharacters) {
  EXPECT_EQ(mask_pii("\xFF"
                     "13812345678"),
            "\xEF\xBF\xBD[phone]");
}

}  // namespace
}  // namespace supportd::filter
