// The strict CSV reader: quoted fields with commas, quotes and newlines, CRLF, BOM and blank lines,
// errors naming file and line, formatted rows reading back, repeated columns and NUL bytes refused.
#include "kb/import/csv.h"

#include <gtest/gtest.h>

namespace supportd::kb {
namespace {

TEST(Csv, ReadsQuotedFieldsWithCommasQuotesAndNewlines) {
  auto table = parse_csv(
      "text,label\n"
      "plain,a\n"
      "\"with, comma\",b\n"
      "\"with \"\"quotes\"\"\",c\n"
      "\"two\nlines\",d\n"
      "last,e\n",
      "q.csv");
  ASSERT_TRUE(table.ok()) << table.error().message;
  ASSERT_EQ(table->rows.size(), 5u);
  EXPECT_EQ(table->rows[1].fields[0], "with, comma");
  EXPECT_EQ(table->rows[2].fields[0], "with \"quotes\"");
  EXPECT_EQ(table->rows[3].fields[0], "two\nlines");
  // Line numbers are where each record starts, counting the newline inside the quotes.
  EXPECT_EQ(table->rows[0].line, 2);
  EXPECT_EQ(table->rows[3].line, 5);
  EXPECT_EQ(table->rows[4].line, 7);
  EXPECT_EQ(table->column("label"), 1);
  EXPECT_EQ(table->column("missing"), -1);
}

TEST(Csv, AcceptsCrlfBomAndBlankLines) {
  auto table = parse_csv("\xEF\xBB\xBFtext,label\r\n\r\nhello,greet\r\n", "q.csv");
  ASSERT_TRUE(table.ok()) << table.error().message;
  EXPECT_EQ(table->header[0], "text");
  ASSERT_EQ(table->rows.size(), 1u);
  EXPECT_EQ(table->rows[0].fields[1], "greet");
  EXPECT_EQ(table->rows[0].line, 3);
}

TEST(Csv, ErrorsNameFileAndLine) {
  auto wrong_count = parse_csv("a,b\n1,2\n1,2,3\n", "f.csv");
  ASSERT_FALSE(wrong_count.ok());
  EXPECT_NE(wrong_count.error().message.find("f.csv:3:"), std::string::npos)
      << wrong_count.error().message;

  auto unterminated = parse_csv("a,b\n1,2\n\"open,2\n3,4\n", "f.csv");
  ASSERT_FALSE(unterminated.ok());
  EXPECT_NE(unterminated.error().message.find("f.csv:3:"), std::string::npos);
  EXPECT_NE(unterminated.error().message.find("never closed"), std::string::npos);

  auto stray = parse_csv("a,b\nsay \"hi\",2\n", "f.csv");
  ASSERT_FALSE(stray.ok());
  EXPECT_NE(stray.error().message.find("f.csv:2:"), std::string::npos);

  auto invalid = parse_csv("a,b\nok,1\nbad\xFF,2\n", "f.csv");
  ASSERT_FALSE(invalid.ok());
  EXPECT_NE(invalid.error().message.find("f.csv:3: invalid UTF-8"), std::string::npos);

  EXPECT_FALSE(parse_csv("", "empty.csv").ok());
  EXPECT_FALSE(parse_csv("a,,c\n", "f.csv").ok());  // unnamed column
}

TEST(Csv, FormattedRowsReadBackUnchanged) {
  const std::vector<std::string> fields = {"plain", "with, comma", "with \"quote\"", "two\nlines",
                                           ""};
  auto table = parse_csv(format_csv_row({"a", "b", "c", "d", "e"}) + format_csv_row(fields), "f");
  ASSERT_TRUE(table.ok()) << table.error().message;
  ASSERT_EQ(table->rows.size(), 1u);
  EXPECT_EQ(table->rows[0].fields, fields);
}

TEST(Csv, RefusesARepeatedColumnAndNulBytes) {
  auto repeated = parse_csv("text,text,category\na,b,c\n", "q.csv");
  ASSERT_FALSE(repeated.ok());
  EXPECT_NE(
      repeated.error().message.find("q.csv:1: column 2 of the header, 'text', repeats column 1"),
      std::string::npos)
      << repeated.error().message;
  const std::string nul("text,category\nfine,a\nbro\0ken,b\n", 31);
  auto with_nul = parse_csv(nul, "q.csv");
  ASSERT_FALSE(with_nul.ok());
  EXPECT_NE(with_nul.error().message.find("q.csv:3: a NUL byte"), std::string::npos)
      << with_nul.error().message;
}

}  // namespace
}  // namespace supportd::kb
