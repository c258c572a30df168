// The exact answer cache's parts without Redis: question normalization and keys, the TtlLru L1
// (expiry, LRU bound, per-entry TTL, many threads), and the access log's hottest keys surviving a
// restart, compaction and a torn last line.
#include "store/cache/answer_cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <thread>

#include "store/cache/answer_access_log.h"
#include "store_test_support.h"

namespace supportd::store {
namespace {

using std::chrono::milliseconds;

struct FakeClock {
  AnswerLru::Clock::time_point now{};
};

TEST(AnswerCacheTest, QuestionsAreNormalized) {
  EXPECT_EQ(normalize_question("  Where is my PARCEL?? "), "where is my parcel");
  EXPECT_EQ(normalize_question("where\tis  my\nparcel"), "where is my parcel");
  EXPECT_EQ(normalize_question("Hi!"), "hi");
  EXPECT_EQ(normalize_question("我的包裹在哪里？"), "我的包裹在哪里");
  EXPECT_EQ(normalize_question("Ça va ?"), "Ça va");  // only ASCII letters are folded
  EXPECT_EQ(normalize_question("???"), "");
  EXPECT_EQ(normalize_question("bad \xff byte"), "bad \xEF\xBF\xBD byte");
}

TEST(AnswerCacheTest, KeysDependOnTheNormalizedQuestionAndTheKbVersion) {
  EXPECT_EQ(answer_key("Where is my parcel?", "kb-7"), answer_key("where is my parcel", "kb-7"));
  EXPECT_NE(answer_key("where is my parcel", "kb-7"), answer_key("where is my parcel", "kb-8"));
  EXPECT_NE(answer_key("where is my parcel", "kb-7"), answer_key("where is my order", "kb-7"));
  // The version and the question cannot be confused with each other.
  EXPECT_NE(answer_key("b", "a"), answer_key("", "a\0b"));
  EXPECT_EQ(answer_key("q", "v").rfind("answer:", 0), 0u);
  EXPECT_EQ(answer_key("q", "v").size(), 7u + 64u);
}

TEST(TtlLruTest, ExpiredEntriesAreNeverReturned) {
  FakeClock clock;
  AnswerLru cache(10, milliseconds(1000), [&] { return clock.now; });
  cache.put("a", {"answer", {"doc-1"}, 1});
  clock.now += milliseconds(999);
  ASSERT_TRUE(cache.get("a").has_value());
  EXPECT_EQ(cache.get("a")->citations, std::vector<std::string>{"doc-1"});
  clock.now += milliseconds(1);
  EXPECT_FALSE(cache.get("a").has_value());
  TtlLruStats stats = cache.stats();
  EXPECT_EQ(stats.hits, 2);
  EXPECT_EQ(stats.misses, 1);
  EXPECT_EQ(stats.expirations, 1);
  EXPECT_EQ(stats.size, 0u);
}

TEST(TtlLruTest, TheLeastRecentlyUsedEntryIsEvicted) {
  FakeClock clock;
  AnswerLru cache(2, milliseconds(1000), [&] { return clock.now; });
  cache.put("a", {"A", {}, 0});
  cache.put("b", {"B", {}, 0});
  ASSERT_TRUE(cache.get("a").has_value());  // b is now the least recently used
  cache.put("c", {"C", {}, 0});
  EXPECT_TRUE(cache.get("a").has_value());
  EXPECT_FALSE(cache.get("b").has_value());
  EXPECT_TRUE(cache.get("c").has_value());
  EXPECT_EQ(cache.stats().evictions, 1);
}

TEST(TtlLruTest, PutReplacesAndRenewsAndAPerEntryTtlApplies) {
  FakeClock clock;
  AnswerLru cache(2, milliseconds(1000), [&] { return clock.now; });
  cache.put("a", {"old", {}, 0});
  clock.now += milliseconds(900);
  cache.put("a", {"new", {}, 0});
  clock.now += milliseconds(900);
  ASSERT_TRUE(cache.get("a").has_value());
  EXPECT_EQ(cache.get("a")->text, "new");
  cache.put("short", {"s", {}, 0}, milliseconds(10));
  clock.now += milliseconds(10);
  EXPECT_FALSE(cache.get("short").has_value());
  cache.erase("a");
  EXPECT_FALSE(cache.get("a").has_value());
}

TEST(TtlLruTest, ManyThreadsAtOnceKeepTheBound) {
  AnswerLru cache(100, milliseconds(60'000));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        const std::string key = std::to_string((t * 7919 + i) % 300);
        if (i % 3 == 0) {
          cache.put(key, {key, {}, i});
        } else if (auto hit = cache.get(key)) {
          EXPECT_EQ(hit->text, key);
        }
      }
    });
  }
  for (auto& thread : threads)
    thread.join();
  EXPECT_LE(cache.stats().size, 100u);
}

TEST(AnswerAccessLogTest, TheHottestKeysSurviveARestartAndCompaction) {
  testing::TempDir dir;
  AnswerAccessLog::Options options{dir.path() / "answer-access.log", 1024, 3};
  {
    auto log = AnswerAccessLog::open(options);
    ASSERT_TRUE(log.ok());
    for (int i = 0; i < 50; ++i)
      (*log)->record("answer:hot");
    for (int i = 0; i < 30; ++i)
      (*log)->record("answer:warm");
    for (int i = 0; i < 10; ++i)
      (*log)->record("answer:cool");
    for (int i = 0; i < 100; ++i)
      (*log)->record(std::string("answer:once-").append(std::to_string(i)));
    (*log)->record("has space");  // not a key: ignored
    ASSERT_TRUE((*log)->flush().ok());
  }
  // 104 "key count" lines passed 1 KB: compacted to the three most used keys, with their counts.
  EXPECT_LE(std::filesystem::file_size(options.path), 1024u);
  auto log = AnswerAccessLog::open(options);
  (*log)->record("answer:cool");
  Result<std::vector<std::string>> hottest = (*log)->hottest(2);
  ASSERT_TRUE(hottest.ok());
  EXPECT_EQ(*hottest, (std::vector<std::string>{"answer:hot", "answer:warm"}));
  EXPECT_EQ((*log)->hottest(10)->size(), 3u);
}

TEST(AnswerAccessLogTest, UsesAreCountedNotRepeated) {
  testing::TempDir dir;
  const auto path = dir.path() / "answer-access.log";
  {
    auto log = AnswerAccessLog::open({path});
    for (int i = 0; i < 1000; ++i)
      (*log)->record(i % 10 == 0 ? "answer:cool" : "answer:hot");
  }  // flushed on destruction
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<std::string>{"answer:cool 100", "answer:hot 900"}));
  auto log = AnswerAccessLog::open({path});
  EXPECT_EQ(*(*log)->hottest(10), (std::vector<std::string>{"answer:hot", "answer:cool"}));
}

TEST(AnswerAccessLogTest, ATornLastLineIsSkipped) {
  testing::TempDir dir;
  const auto path = dir.path() / "answer-access.log";
  {
    std::ofstream out(path);
    out << "answer:a 5\nanswer:b\nanswer:b\nanswer:c x\nanswer:d 9";  // no final newline
  }
  auto log = AnswerAccessLog::open({path});
  EXPECT_EQ(*(*log)->hottest(10), (std::vector<std::string>{"answer:d", "answer:a", "answer:b"}));
}

}  // namespace
}  // namespace supportd::store
