// Parsing sources: Markdown entries per heading, FAQ CSV variants, FAQ JSON and JSON Lines,
// labelled questions as intents, merging (labels attach, duplicate ids name both places), every
// problem naming its file and line.
#include "kb/import/sources.h"

#include <gtest/gtest.h>

namespace supportd::kb {
namespace {

bool mentions(const Error& error, const std::string& text) {
  return error.message.find(text) != std::string::npos;
}

TEST(Markdown, MakesAnEntryPerHeading) {
  auto parsed = parse_markdown(
      "# Shipping\n"
      "\n"
      "We ship worldwide.\n"
      "\n"
      "## Returns\n"
      "### Refund timing\n"
      "Refunds take 5 days.\n"
      "```\n"
      "# not a heading inside code\n"
      "```\n"
      "Track it\n"
      "--------\n"
      "Use the tracking link.\n",
      "docs/help.md");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  ASSERT_EQ(parsed->entries.size(), 3u);
  EXPECT_EQ(parsed->entries[0].title, "Shipping");
  EXPECT_EQ(parsed->entries[0].answer, "We ship worldwide.");
  EXPECT_EQ(parsed->entries[0].id, "help/shipping");
  EXPECT_EQ(parsed->entries[0].source.line, 1);
  // "Returns" has no text of its own: it becomes part of its subsection's title.
  EXPECT_EQ(parsed->entries[1].title, "Returns \xE2\x80\xBA Refund timing");
  EXPECT_NE(parsed->entries[1].answer.find("# not a heading inside code"), std::string::npos);
  EXPECT_EQ(parsed->entries[1].source.line, 6);
  // A setext heading.
  EXPECT_EQ(parsed->entries[2].title, "Track it");
  EXPECT_EQ(parsed->entries[2].answer, "Use the tracking link.");
  EXPECT_EQ(parsed->entries[2].source.line, 11);
  EXPECT_EQ(parsed->entries[2].kind, EntryKind::kArticle);
}

TEST(Markdown, ReportsWhatMakesNoEntryAndKeepsTextBeforeHeadings) {
  auto parsed = parse_markdown("Intro text.\n# Empty at the end\n", "faq.md");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  ASSERT_EQ(parsed->entries.size(), 1u);
  EXPECT_EQ(parsed->entries[0].title, "faq");
  ASSERT_EQ(parsed->notes.size(), 2u);
  EXPECT_NE(parsed->notes[0].find("faq.md:1:"), std::string::npos);
  EXPECT_NE(parsed->notes[1].find("faq.md:2: heading 'Empty at the end' has no text"),
            std::string::npos);
}

TEST(Markdown, RepeatedHeadingsGetDistinctIds) {
  auto parsed = parse_markdown("# FAQ\na\n# FAQ\nb\n# FAQ\nc\n", "x.md");
  ASSERT_TRUE(parsed.ok());
  ASSERT_EQ(parsed->entries.size(), 3u);
  EXPECT_EQ(parsed->entries[0].id, "x/faq");
  EXPECT_EQ(parsed->entries[1].id, "x/faq-2");
  EXPECT_EQ(parsed->entries[2].id, "x/faq-3");
}

TEST(Markdown, MalformedFilesNameTheLine) {
  auto unclosed = parse_markdown("# A\ntext\n```\ncode\n", "m.md");
  ASSERT_FALSE(unclosed.ok());
  EXPECT_TRUE(mentions(unclosed.error(), "m.md:3:")) << unclosed.error().message;
  auto untitled = parse_markdown("# A\ntext\n##\nmore\n", "m.md");
  ASSERT_FALSE(untitled.ok());
  EXPECT_TRUE(mentions(untitled.error(), "m.md:3: heading has no title"));
  auto invalid = parse_markdown("# A\n\xC3\x28\n", "m.md");
  ASSERT_FALSE(invalid.ok());
  EXPECT_TRUE(mentions(invalid.error(), "m.md:2: invalid UTF-8"));
  EXPECT_FALSE(parse_markdown("\n\n", "blank.md").ok());
  auto nul = parse_markdown(std::string_view("# A\ntext\n\0more\n", 15), "m.md");
  ASSERT_FALSE(nul.ok());
  EXPECT_TRUE(mentions(nul.error(), "m.md:3: a NUL byte")) << nul.error().message;
}

TEST(FaqCsv, RowsSharingAnIdAreVariants) {
  auto table = parse_csv(
      "id,question,answer,tags,locale,label\n"
      "ship,Where is my parcel?,Use the tracking link.,shipping; tracking,en,\n"
      "ship,Has my order shipped?,,,,\n"
      ",How do I return an item?,Open Orders and choose Return.,returns,,\n",
      "faq.csv");
  ASSERT_TRUE(table.ok());
  auto parsed = parse_faq_csv(*table);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  ASSERT_EQ(parsed->entries.size(), 2u);
  const Entry& ship = parsed->entries[0];
  EXPECT_EQ(ship.id, "ship");
  ASSERT_EQ(ship.questions.size(), 2u);
  EXPECT_EQ(ship.questions[1].text, "Has my order shipped?");
  EXPECT_EQ(ship.questions[1].source.line, 3);
  EXPECT_EQ(ship.tags, (std::vector<std::string>{"shipping", "tracking"}));
  EXPECT_EQ(ship.title, "Where is my parcel?");
  EXPECT_EQ(ship.label, "ship");
  EXPECT_EQ(parsed->entries[1].id, "faq/how-do-i-return-an-item");
}

TEST(FaqCsv, ProblemsNameFileAndLine) {
  const auto error_of = [](const std::string& text) {
    auto table = parse_csv(text, "faq.csv");
    EXPECT_TRUE(table.ok());
    auto parsed = parse_faq_csv(*table);
    EXPECT_FALSE(parsed.ok());
    return parsed.ok() ? std::string() : parsed.error().message;
  };
  EXPECT_NE(error_of("question,answer\nq1,a1\n,a2\n").find("faq.csv:3: the question is empty"),
            std::string::npos);
  EXPECT_NE(error_of("question,answer\nq1,\n").find("faq.csv:2: the answer is empty"),
            std::string::npos);
  EXPECT_NE(error_of("id,question,answer\nx,q1,a1\nx,q2,other\n").find("faq.csv:3:"),
            std::string::npos);
  EXPECT_NE(error_of("question,anwser\nq,a\n").find("unknown column 'anwser'"), std::string::npos);
}

TEST(FaqJson, ReadsArraysAndLinesWithLineNumbers) {
  auto parsed = parse_faq_json(
      "[\n"
      "  {\"id\": \"pay\", \"questions\": [\"Can I pay by card?\", \"Do you take Visa?\"],\n"
      "   \"answer\": \"Yes.\", \"tags\": [\"payment\"]},\n"
      "  {\"question\": \"怎么退货？\", \"answer\": \"在订单页面申请退货。\", \"locale\": \"zh\"}\n"
      "]\n",
      "faq.json", false);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  ASSERT_EQ(parsed->entries.size(), 2u);
  EXPECT_EQ(parsed->entries[0].questions.size(), 2u);
  EXPECT_EQ(parsed->entries[0].source.line, 2);
  EXPECT_EQ(parsed->entries[1].source.line, 4);
  EXPECT_EQ(parsed->entries[1].locale, "zh");

  auto lines = parse_faq_json("{\"question\":\"a\",\"answer\":\"b\"}\n\n{\"question\":\"c\"}\n",
                              "faq.jsonl", true);
  ASSERT_FALSE(lines.ok());
  EXPECT_TRUE(mentions(lines.error(), "faq.jsonl:3: the answer is missing"))
      << lines.error().message;
}

TEST(FaqJson, ProblemsNameFileAndLine) {
  auto unknown = parse_faq_json(
      "[{\"question\":\"a\",\"answer\":\"b\"},\n{\"question\":\"c\","
      "\"answer\":\"d\",\"anwser\":1}]",
      "f.json", false);
  ASSERT_FALSE(unknown.ok());
  EXPECT_TRUE(mentions(unknown.error(), "f.json:2: unknown key 'anwser'"))
      << unknown.error().message;
  auto syntax = parse_faq_json("[\n{\"question\": \"a\",\n \"answer\": }\n]", "f.json", false);
  ASSERT_FALSE(syntax.ok());
  EXPECT_TRUE(mentions(syntax.error(), "f.json:3: invalid JSON")) << syntax.error().message;
  auto type = parse_faq_json("[{\"question\": [1], \"answer\": \"b\"}]", "f.json", false);
  ASSERT_FALSE(type.ok());
  auto duplicate = parse_faq_json(
      "[{\"id\":\"x\",\"question\":\"a\",\"answer\":\"b\"},\n{\"id\":\"x\",\"question\":\"c\","
      "\"answer\":\"d\"}]",
      "f.json", false);
  ASSERT_FALSE(duplicate.ok());
  EXPECT_TRUE(mentions(duplicate.error(), "f.json:2: id 'x' appears twice"));
  // A key twice in one object (Boost.JSON would keep one silently), however it is spelled.
  auto twice = parse_faq_json(
      "[{\"question\":\"a\",\"answer\":\"b\"},\n{\"question\":\"c\",\n\"answer\":\"d\","
      "\"question\":\"e\"}]",
      "f.json", false);
  ASSERT_FALSE(twice.ok());
  EXPECT_TRUE(mentions(twice.error(), "f.json:3: the key 'question' appears twice"))
      << twice.error().message;
  auto escaped = parse_faq_json(
      "{\"question\":\"a\",\"answer\":\"b\"}\n{\"answer\":\"b\",\"\\u0061nswer\":\"c\"}\n",
      "f.jsonl", true);
  ASSERT_FALSE(escaped.ok());
  EXPECT_TRUE(mentions(escaped.error(), "f.jsonl:2: the key 'answer' appears twice"))
      << escaped.error().message;
  // The same key in different objects, or as a value, is fine.
  EXPECT_TRUE(parse_faq_json("[{\"question\":\"answer\",\"answer\":\"question\"},"
                             "{\"question\":\"q\",\"answer\":\"a\",\"tags\":[\"answer\"]}]",
                             "f.json", false)
                  .ok());
}

TEST(LabelledCsv, EveryLabelBecomesAnIntent) {
  auto table = parse_csv(
      "text,category,extra\n"
      "Where is my card?,card_arrival,1\n"
      "How do I top up?,top_up,2\n"
      "My card has not arrived,card_arrival,3\n",
      "train.csv");
  ASSERT_TRUE(table.ok());
  auto parsed = parse_labelled_csv(*table, "text", "category");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  ASSERT_EQ(parsed->entries.size(), 2u);
  EXPECT_EQ(parsed->entries[0].id, "intent/card_arrival");
  EXPECT_EQ(parsed->entries[0].kind, EntryKind::kIntent);
  EXPECT_EQ(parsed->entries[0].questions.size(), 2u);
  EXPECT_EQ(parsed->entries[0].questions[1].source.line, 4);
  ASSERT_EQ(parsed->notes.size(), 1u);  // the unused column is mentioned
  EXPECT_NE(parsed->notes[0].find("extra"), std::string::npos);

  auto empty = parse_csv("text,category\nq,\n", "train.csv");
  auto failed = parse_labelled_csv(*empty, "text", "category");
  ASSERT_FALSE(failed.ok());
  EXPECT_TRUE(mentions(failed.error(), "train.csv:2: the label is empty"));
  auto missing = parse_labelled_csv(*empty, "question", "category");
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(mentions(missing.error(), "no column named 'question'"));
}

TEST(Merge, AttachesLabelledQuestionsToTheEntryWithThatLabel) {
  auto faq_table =
      parse_csv("id,question,answer,label\nfees,What are the fees?,None.,fees\n", "faq.csv");
  auto labelled_table =
      parse_csv("text,label\nIs there a charge?,fees\nHi there,greeting\n", "l.csv");
  std::vector<ParsedSource> sources;
  sources.push_back(*parse_faq_csv(*faq_table));
  sources.push_back(*parse_labelled_csv(*labelled_table, "text", "label"));
  std::vector<std::string> notes;
  auto entries = merge_sources(std::move(sources), notes);
  ASSERT_TRUE(entries.ok()) << entries.error().message;
  ASSERT_EQ(entries->size(), 2u);
  EXPECT_EQ((*entries)[0].id, "fees");
  EXPECT_EQ((*entries)[0].questions.size(), 2u);
  EXPECT_EQ((*entries)[1].id, "intent/greeting");
  EXPECT_EQ((*entries)[0].locale, "en");  // detected
}

TEST(Merge, DuplicateIdsAcrossFilesNameBothPlaces) {
  std::vector<ParsedSource> sources;
  sources.push_back(*parse_faq_csv(*parse_csv("id,question,answer\nx,q,a\n", "a.csv")));
  sources.push_back(*parse_faq_csv(*parse_csv("id,question,answer\ny,q,a\nx,q2,a2\n", "b.csv")));
  std::vector<std::string> notes;
  auto entries = merge_sources(std::move(sources), notes);
  ASSERT_FALSE(entries.ok());
  EXPECT_TRUE(mentions(entries.error(), "b.csv:3: id 'x' is already used at a.csv:2"))
      << entries.error().message;
}

TEST(Sources, UnknownFileTypesAndAmbiguousCsvAreErrors) {
  auto unknown = parse_source("notes.txt", {});
  ASSERT_FALSE(unknown.ok());
  EXPECT_TRUE(mentions(unknown.error(), "unknown file type"));
  EXPECT_EQ(slugify("Where's my Parcel?!"), "where-s-my-parcel");
  EXPECT_EQ(slugify("退货 政策"), "退货-政策");
  EXPECT_EQ(split_tags(" a; b ,, c "), (std::vector<std::string>{"a", "b", "c"}));
}

}  // namespace
}  // namespace supportd::kb
