// Import, search, reload and corruption handling on the store help-centre files in data/.
#include <gtest/gtest.h>

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "kb/eval/evaluation.h"
#include "kb/import/importer.h"
#include "kb/knowledge_base.h"
#include "kb/live_knowledge_base.h"
#include "test_dir.h"
#include "test_model.h"
#include "test_paths.h"

namespace supportd::kb {
namespace {

namespace fs = std::filesystem;
const std::string kData = supportd::testing::source_dir() + "/tests/kb/data";

std::vector<std::string> store_files() {
  return {kData + "/store-help.md", kData + "/store-faq.csv", kData + "/store-faq-zh.json"};
}

ImportOptions quick_options() {
  ImportOptions options;
  ClassifierParams params;
  params.epochs = 20;
  params.buckets = 20000;
  options.classifier_grid = {params};
  return options;
}

TEST(KbImport, MixedFormatsAreSearchableWithCitations) {
  testing::TestDir dir("import");
  const std::string kb_dir = dir.path() + "/kb";
  auto report = import_knowledge_base(kb_dir, store_files(), quick_options());
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(report->manifest.entries, 10 + 4 + 20);
  ASSERT_EQ(report->manifest.sources.size(), 3u);
  EXPECT_EQ(report->manifest.sources[0].format, "markdown");
  EXPECT_EQ(report->manifest.sources[1].format, "faq-csv");
  EXPECT_EQ(report->manifest.sources[2].format, "faq-json");

  auto kb = KnowledgeBase::open(kb_dir);
  ASSERT_TRUE(kb.ok()) << kb.error().message;
  EXPECT_EQ((*kb)->version(), report->manifest.version);
  EXPECT_TRUE((*kb)->version().starts_with("g1-"));

  auto refund = (*kb)->search("How long do refunds take?");
  ASSERT_TRUE(refund.ok()) << refund.error().message;
  ASSERT_FALSE(refund->hits.empty());
  const SearchHit& hit = refund->hits[0];
  EXPECT_EQ(hit.id, "store-help/refund-timing");
  EXPECT_EQ(hit.title, "Returns and refunds \xE2\x80\xBA Refund timing");
  EXPECT_EQ(hit.kind, "article");
  EXPECT_EQ(hit.source, kData + "/store-help.md:25");
  EXPECT_NE(hit.snippet.find("Refunds go back"), std::string::npos) << hit.snippet;
  EXPECT_NE(hit.answer.find("3-5 business days"), std::string::npos);
  EXPECT_EQ(refund->language, "en");
  EXPECT_FALSE(refund->used_vectors);
  EXPECT_GE(hit.confidence, 0.0);
  EXPECT_LE(hit.confidence, 1.0);

  auto track = (*kb)->search("How can I track my package?", {.k = 3});
  ASSERT_TRUE(track.ok());
  ASSERT_LE(track->hits.size(), 3u);
  EXPECT_EQ(track->hits[0].id, "track-order");
  EXPECT_EQ(track->hits[0].snippet, "How can I track my package?");  // the matching variant
  EXPECT_EQ(track->hits[0].tags, (std::vector<std::string>{"orders", "shipping"}));

  auto chinese = (*kb)->search("退款要等几天");
  ASSERT_TRUE(chinese.ok());
  ASSERT_FALSE(chinese->hits.empty());
  EXPECT_EQ(chinese->hits[0].id, "zh/refund-time");
  EXPECT_EQ(chinese->hits[0].locale, "zh");
  EXPECT_EQ(chinese->language, "zh");

  const Entry* entry = (*kb)->find("cancel-order");
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->questions.size(), 2u);
  EXPECT_EQ((*kb)->find("no-such-entry"), nullptr);
}

TEST(KbImport, BadQuestionsAreErrorsNotCrashes) {
  testing::TestDir dir("bad-questions");
  ASSERT_TRUE(import_knowledge_base(dir.path(), store_files(), quick_options()).ok());
  auto kb = KnowledgeBase::open(dir.path());
  ASSERT_TRUE(kb.ok());
  EXPECT_EQ((*kb)->search("   ").error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ((*kb)->search("refund", {.k = 0}).error().code, ErrorCode::kInvalidArgument);
  auto garbage = (*kb)->search("\xFF\xFE\xC3");
  ASSERT_TRUE(garbage.ok());
  EXPECT_TRUE(garbage->hits.empty());
  EXPECT_EQ((*kb)->embed("refund").error().code, ErrorCode::kUnavailable);
  EXPECT_FALSE((*kb)->semantic_cache().has_value());
}

TEST(KbImport, ConcurrentSearchesAgreeWithSequentialOnes) {
  testing::TestDir dir("concurrent");
  ASSERT_TRUE(import_knowledge_base(dir.path(), store_files(), quick_options()).ok());
  auto kb = KnowledgeBase::open(dir.path());
  ASSERT_TRUE(kb.ok());
  const std::vector<std::string> questions = {
      "refund", "退货", "Can I pay with PayPal?", "password reset", "积分怎么用", "customs"};
  std::vector<std::string> expected;
  for (const auto& q : questions)
    expected.push_back((*kb)->search(q)->hits.at(0).id);
  std::vector<std::thread> threads;
  std::atomic<int> mismatches = 0;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int round = 0; round < 25; ++round) {
        for (std::size_t i = 0; i < questions.size(); ++i) {
          auto result = (*kb)->search(questions[i]);
          if (!result.ok() || result->hits.empty() || result->hits[0].id != expected[i]) {
            ++mismatches;
          }
        }
      }
    });
  }
  for (auto& thread : threads)
    thread.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(KbImport, MalformedFileLeavesTheLiveGenerationAlone) {
  testing::TestDir dir("malformed");
  const std::string kb_dir = dir.path() + "/kb";
  auto first = import_knowledge_base(kb_dir, store_files(), quick_options());
  ASSERT_TRUE(first.ok());
  const std::string bad = dir.write("bad.csv", "question,answer\nWhere?,Here.\n,No question\n");
  auto failed = import_knowledge_base(kb_dir, {kData + "/store-help.md", bad}, quick_options());
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.error().message.find(bad + ":3: the question is empty"), std::string::npos)
      << failed.error().message;
  auto kb = KnowledgeBase::open(kb_dir);
  ASSERT_TRUE(kb.ok());
  EXPECT_EQ((*kb)->version(), first->manifest.version);
  EXPECT_FALSE(fs::exists(kb_dir + "/gen-000002"));
  EXPECT_FALSE(import_knowledge_base(kb_dir, {}, quick_options()).ok());
  EXPECT_FALSE(import_knowledge_base(kb_dir, {dir.path() + "/missing.md"}, quick_options()).ok());
}

TEST(KbReload, SwapsGenerationsWithoutDisturbingReaders) {
  testing::TestDir dir("reload");
  const std::string kb_dir = dir.path() + "/kb";
  ASSERT_TRUE(import_knowledge_base(kb_dir, {kData + "/store-help.md"}, quick_options()).ok());
  auto live = LiveKnowledgeBase::open(kb_dir);
  ASSERT_TRUE(live.ok()) << live.error().message;
  const std::shared_ptr<const KnowledgeBase> before = (*live)->current();
  auto unchanged = (*live)->reload();
  ASSERT_TRUE(unchanged.ok());
  EXPECT_FALSE(*unchanged);
  EXPECT_EQ((*live)->current(), before);

  ASSERT_TRUE(import_knowledge_base(kb_dir, store_files(), quick_options()).ok());
  auto changed = (*live)->reload();
  ASSERT_TRUE(changed.ok()) << changed.error().message;
  EXPECT_TRUE(*changed);
  EXPECT_NE((*live)->current()->version(), before->version());
  EXPECT_EQ((*live)->current()->search("退款要等几天")->hits.at(0).id, "zh/refund-time");
  // A search that holds the old generation still works on it.
  EXPECT_EQ(before->search("How long do refunds take?")->hits.at(0).id, "store-help/refund-timing");

  // A broken generation is refused and the one in use stays.
  const std::string current = (*live)->current()->info().directory;
  fs::copy(current, kb_dir + "/gen-000009", fs::copy_options::recursive);
  {
    std::ofstream entries(kb_dir + "/gen-000009/entries.jsonl", std::ios::app);
    entries << "{not json\n";
  }
  std::ofstream(kb_dir + "/CURRENT") << "gen-000009\n";
  const std::string version = (*live)->current()->version();
  auto broken = (*live)->reload();
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.error().message.find("gen-000009/entries.jsonl: "), std::string::npos)
      << broken.error().message;
  EXPECT_NE(broken.error().message.find("bytes, the manifest records"), std::string::npos)
      << broken.error().message;
  EXPECT_EQ((*live)->current()->version(), version);
  // Without the recorded sizes (a generation written before them), the parser names the line.
  const std::string manifest = kb_dir + "/gen-000009/manifest.json";
  std::string json;
  {
    std::ifstream in(manifest);
    json.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::size_t files = json.find(",\"files\":[");
  ASSERT_NE(files, std::string::npos);
  json.erase(files, json.find(']', files) + 1 - files);
  std::ofstream(manifest, std::ios::trunc) << json;
  broken = (*live)->reload();
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.error().message.find("entries.jsonl:35: not a JSON object"), std::string::npos)
      << broken.error().message;
  EXPECT_EQ((*live)->current()->version(), version);
}

TEST(KbReload, WatcherPicksUpANewImport) {
  testing::TestDir dir("watch");
  const std::string kb_dir = dir.path() + "/kb";
  ASSERT_TRUE(import_knowledge_base(kb_dir, {kData + "/store-help.md"}, quick_options()).ok());
  auto live = LiveKnowledgeBase::open(kb_dir);
  ASSERT_TRUE(live.ok());
  const std::string before = (*live)->current()->version();
  std::mutex mutex;
  std::condition_variable reloaded;
  bool swapped = false;
  KnowledgeBaseWatcher watcher(**live, std::chrono::milliseconds(20), [&](const Result<bool>& r) {
    std::lock_guard lock(mutex);
    swapped = swapped || (r.ok() && *r);
    reloaded.notify_all();
  });
  ASSERT_TRUE(import_knowledge_base(kb_dir, store_files(), quick_options()).ok());
  std::unique_lock lock(mutex);
  ASSERT_TRUE(reloaded.wait_for(lock, std::chrono::seconds(30), [&] { return swapped; }));
  EXPECT_NE((*live)->current()->version(), before);
}

TEST(KbOpen, CorruptFilesAreNamed) {
  testing::TestDir dir("corrupt");
  EXPECT_EQ(KnowledgeBase::open(dir.path() + "/nothing").error().code, ErrorCode::kNotFound);
  EXPECT_EQ(KnowledgeBase::open(dir.path()).error().code, ErrorCode::kNotFound);  // no CURRENT
  ImportOptions options = quick_options();
  options.source = {"text", "label"};  // labelled questions: a classifier is trained
  auto report = import_knowledge_base(dir.path(), {kData + "/store-questions-en.csv"}, options);
  ASSERT_TRUE(report.ok()) << report.error().message;
  ASSERT_EQ(report->manifest.classifiers.size(), 1u);
  const std::string manifest = report->generation + "/manifest.json";
  std::string text;
  {
    std::ifstream in(manifest);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string original = text;
  text.replace(text.find("\"format_version\":1"), 18, "\"format_version\":99");
  std::ofstream(manifest) << text;
  auto newer = KnowledgeBase::open(dir.path());
  ASSERT_FALSE(newer.ok());
  EXPECT_EQ(newer.error().code, ErrorCode::kUnsupported);
  EXPECT_NE(newer.error().message.find("re-import"), std::string::npos);

  std::ofstream(manifest) << original;
  std::ofstream(report->generation + "/classifier-1.bin") << "garbage";
  auto classifier = KnowledgeBase::open(dir.path());
  ASSERT_FALSE(classifier.ok());
  EXPECT_EQ(classifier.error().code, ErrorCode::kCorrupt);
  EXPECT_NE(classifier.error().message.find("classifier-1.bin"), std::string::npos);

  std::ofstream(dir.path() + "/CURRENT") << "../../etc\n";
  EXPECT_EQ(KnowledgeBase::open(dir.path()).error().code, ErrorCode::kCorrupt);
}

// Import records every data file's size and checksum; open refuses a file that differs, naming
// it, before any parser or fastText sees it. A generation written before the records were kept
// still opens, and a damaged classifier in it is still refused (by the layout check).
TEST(KbOpen, DamagedDataFilesAreRefusedByTheirRecordedSizeAndChecksum) {
  testing::TestDir dir("checksums");
  ImportOptions options = quick_options();
  options.source = {"text", "label"};
  auto report = import_knowledge_base(dir.path(), {kData + "/store-questions-en.csv"}, options);
  ASSERT_TRUE(report.ok()) << report.error().message;
  const std::string generation = report->generation;
  std::vector<std::string> recorded;
  for (const auto& file : report->manifest.files)
    recorded.push_back(file.name);
  EXPECT_EQ(recorded, (std::vector<std::string>{"entries.jsonl", "classifier-1.bin"}));
  auto slurp = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  auto put = [](const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  };
  const std::string entries = generation + "/entries.jsonl";
  const std::string classifier = generation + "/classifier-1.bin";
  const std::string manifest = generation + "/manifest.json";
  const std::string good_entries = slurp(entries), good_classifier = slurp(classifier);

  // Same size, still valid JSON, one letter changed: only the checksum can tell.
  std::string changed = good_entries;
  const std::size_t text = changed.find("\"text\":\"") + 8;
  changed[text] = changed[text] == 'x' ? 'y' : 'x';
  put(entries, changed);
  auto opened = KnowledgeBase::open(dir.path());
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.error().code, ErrorCode::kCorrupt);
  EXPECT_NE(opened.error().message.find(entries + ": checksum"), std::string::npos)
      << opened.error().message;
  put(entries, good_entries);

  put(classifier, good_classifier.substr(0, 100));
  opened = KnowledgeBase::open(dir.path());
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.error().code, ErrorCode::kCorrupt);
  EXPECT_NE(opened.error().message.find(classifier + ": 100 bytes"), std::string::npos)
      << opened.error().message;
  put(classifier, good_classifier);
  ASSERT_TRUE(KnowledgeBase::open(dir.path()).ok());

  // An older generation: no "files" in its manifest.
  std::string json = slurp(manifest);
  const std::size_t files = json.find(",\"files\":[");
  ASSERT_NE(files, std::string::npos);
  json.erase(files, json.find(']', files) + 1 - files);
  put(manifest, json);
  ASSERT_TRUE(KnowledgeBase::open(dir.path()).ok());
  for (std::size_t size : {std::size_t{100}, std::size_t{10000}, good_classifier.size() - 1}) {
    put(classifier, good_classifier.substr(0, size));
    opened = KnowledgeBase::open(dir.path());
    ASSERT_FALSE(opened.ok()) << size;
    EXPECT_EQ(opened.error().code, ErrorCode::kCorrupt);
    EXPECT_NE(opened.error().message.find(classifier), std::string::npos);
  }
}

TEST(KbEncoder, VectorsJoinForEnglishAndTheLexicalPathRemainsWithoutThem) {
  if (!sentence_encoder_built()) GTEST_SKIP() << "this build has no src/encoder";
  auto embedder = open_sentence_encoder("");
  ASSERT_TRUE(embedder.ok()) << embedder.error().message
                             << " (scripts/fetch-encoder.sh installs the weights; make setup)";
  std::shared_ptr<const Embedder> shared = std::move(*embedder);
  testing::TestDir dir("encoder");
  ImportOptions options = quick_options();
  options.embedder = shared;
  auto report = import_knowledge_base(dir.path(), store_files(), options);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(report->manifest.encoder, shared->fingerprint());
  EXPECT_EQ(report->manifest.dimensions, shared->dimensions());

  auto kb = KnowledgeBase::open(dir.path(), {shared});
  ASSERT_TRUE(kb.ok()) << kb.error().message;
  EXPECT_TRUE((*kb)->warnings().empty());
  EXPECT_TRUE((*kb)->info().vectors);
  auto english = (*kb)->search("How long do refunds take?", {.explain = true});
  ASSERT_TRUE(english.ok());
  EXPECT_TRUE(english->used_vectors);
  EXPECT_EQ(english->hits.at(0).id, "store-help/refund-timing");
  bool dense_ranking = false;
  for (const auto& ranking : english->components)
    dense_ranking |= ranking.component == "encoder-knn";
  EXPECT_TRUE(dense_ranking);
  EXPECT_TRUE(english->shares_words);
  // Text in no word of the knowledge base is never confident, however near the encoder and
  // the classifier find some entry (the calibration only saw real questions).
  for (const std::string& nonsense :
       {std::string(3000, 'A'), std::string("asdkjh qwpeoiru zxmcnv")}) {
    auto result = (*kb)->search(nonsense);
    ASSERT_TRUE(result.ok());
    EXPECT_TRUE(result->used_vectors);
    EXPECT_FALSE(result->shares_words) << nonsense.substr(0, 24);
    EXPECT_FALSE(result->confident) << nonsense.substr(0, 24) << ": " << result->confidence;
    EXPECT_EQ(result->confidence, 0) << nonsense.substr(0, 24);
    EXPECT_FALSE(result->hits.empty());  // still the nearest entries, to offer as links
  }
  auto chinese = (*kb)->search("退款要等几天");
  ASSERT_TRUE(chinese.ok());
  EXPECT_FALSE(chinese->used_vectors);  // the encoder is English-only
  EXPECT_EQ(chinese->hits.at(0).id, "zh/refund-time");
  auto vector = (*kb)->embed("Where is my parcel?");
  ASSERT_TRUE(vector.ok());
  EXPECT_EQ(static_cast<int>(vector->size()), shared->dimensions());
  auto reused = (*kb)->search("Where is my parcel?", {.vector = *vector});
  ASSERT_TRUE(reused.ok());
  EXPECT_TRUE(reused->used_vectors);
  EXPECT_EQ(reused->hits.at(0).id, "track-order");
  EXPECT_EQ((*kb)->embed("我的包裹在哪里").error().code, ErrorCode::kUnavailable);
  const std::vector<float> wrong(3, 0.5f);
  EXPECT_EQ((*kb)->search("parcel", {.vector = wrong}).error().code, ErrorCode::kInvalidArgument);

  // Without the encoder at run time: a warning, and the lexical path.
  auto lexical = KnowledgeBase::open(dir.path());
  ASSERT_TRUE(lexical.ok()) << lexical.error().message;
  ASSERT_EQ((*lexical)->warnings().size(), 1u);
  EXPECT_NE((*lexical)->warnings()[0].find("no encoder"), std::string::npos);
  auto fallback = (*lexical)->search("How long do refunds take?");
  ASSERT_TRUE(fallback.ok());
  EXPECT_FALSE(fallback->used_vectors);
  EXPECT_EQ(fallback->hits.at(0).id, "store-help/refund-timing");
}

TEST(KbEncoder, HnswGraphBeyondTheExactLimit) {
  if (!sentence_encoder_built()) GTEST_SKIP() << "this build has no src/encoder";
  auto embedder = open_sentence_encoder("");
  ASSERT_TRUE(embedder.ok()) << embedder.error().message;
  std::shared_ptr<const Embedder> shared = std::move(*embedder);
  testing::TestDir dir("hnsw-kb");
  ImportOptions options = quick_options();
  options.embedder = shared;
  options.exact_limit = 10;  // the store help centre has more English documents than that
  auto report = import_knowledge_base(
      dir.path(), {kData + "/store-help.md", kData + "/store-faq.csv"}, options);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_TRUE(report->manifest.graph);
  EXPECT_TRUE(fs::exists(report->generation + "/graph.bin"));
  auto kb = KnowledgeBase::open(dir.path(), {shared});
  ASSERT_TRUE(kb.ok()) << kb.error().message;
  auto result = (*kb)->search("Where is my parcel?");
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result->used_vectors);
  EXPECT_EQ(result->hits.at(0).id, "track-order");
  fs::remove(report->generation + "/graph.bin");
  auto missing = KnowledgeBase::open(dir.path(), {shared});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("graph.bin"), std::string::npos);
}

TEST(KbGguf, AnEmbeddingModelInGgufGivesVectorsInEveryLanguage) {
  // A synthesized model has random weights: this checks the mechanics (shapes, normalization,
  // routing), not the quality of its vectors.
  auto embedder = open_gguf_embedder(supportd::testing::synthesized_model("tiny", "f16"), 2);
  ASSERT_TRUE(embedder.ok()) << embedder.error().message;
  std::shared_ptr<const Embedder> shared = std::move(*embedder);
  EXPECT_TRUE(shared->multilingual());
  EXPECT_GT(shared->dimensions(), 0);
  auto a = shared->embed("Where is my parcel?");
  auto b = shared->embed("Where is my parcel?");
  auto c = shared->embed("退款要等几天");
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  ASSERT_EQ(static_cast<int>(a->size()), shared->dimensions());
  double norm = 0;
  for (float v : *a)
    norm += v * v;
  EXPECT_NEAR(norm, 1.0, 1e-4);
  EXPECT_EQ(*a, *b);
  EXPECT_NE(*a, *c);
  EXPECT_EQ(shared->truncated(), 0u);
  std::string long_text;
  for (int i = 0; i < 2000; ++i)
    long_text += "parcel ";
  ASSERT_TRUE(shared->embed(long_text).ok());
  EXPECT_EQ(shared->truncated(), 1u);  // cut to the context, and counted

  testing::TestDir dir("gguf");
  ImportOptions options = quick_options();
  options.embedder = shared;
  auto report = import_knowledge_base(dir.path(), store_files(), options);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(report->manifest.encoder, shared->fingerprint());
  auto kb = KnowledgeBase::open(dir.path(), {shared});
  ASSERT_TRUE(kb.ok()) << kb.error().message;
  auto chinese = (*kb)->search("退款要等几天");
  ASSERT_TRUE(chinese.ok());
  EXPECT_TRUE(chinese->used_vectors);  // a multilingual model embeds every language
  EXPECT_FALSE((*kb)->info().english_only_vectors);
  EXPECT_FALSE(open_gguf_embedder(dir.path() + "/missing.gguf").ok());
}

}  // namespace
}  // namespace supportd::kb
