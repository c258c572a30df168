// What patches/llama.cpp adds to llama.cpp, on a synthesized model:
// - llama_set_shared_prefix (cascade attention): with a KV buffer per sequence and plain
//   attention, sequences that begin alike read that beginning once, and their logits stay those
//   of attention over each buffer of their own;
// - the KV cache asks for transparent huge pages;
// - Q8_0 weights repacked for AVX-512 VNNI multiply to the logits of the plain layout.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ggml-cpu.h"
#include "llama.h"
#include "test_model.h"

namespace supportd {
namespace {

constexpr int kSequences = 4;
constexpr int kPrefix = 96;  // tokens every sequence begins with
constexpr int kOwn = 7;      // tokens of its own after them

// Counts the graph nodes of the shared-prefix path ("kq_prefix-<layer>") as they are built.
bool count_prefix_nodes(ggml_tensor* tensor, bool ask, void* user_data) {
  if (ask && std::strncmp(ggml_get_name(tensor), "kq_prefix", 9) == 0)
    ++*static_cast<int*>(user_data);
  return false;  // observe nothing: the graph runs as it would without a callback
}

class SharedPrefixAttention : public ::testing::Test {
 protected:
  void SetUp() override {
    llama_log_set([](ggml_log_level, const char*, void*) {}, nullptr);  // quiet: it only works
    llama_backend_init();
    llama_model_params model_params = llama_model_default_params();
    model_ = llama_model_load_from_file(testing::synthesized_model().c_str(), model_params);
    ASSERT_NE(model_, nullptr);
    n_vocab_ = llama_vocab_n_tokens(llama_model_get_vocab(model_));
  }
  void TearDown() override {
    if (context_) llama_free(context_);
    if (model_) llama_model_free(model_);
  }

  void make_context(bool flash_attention) {
    llama_context_params params = llama_context_default_params();
    params.n_ctx = 256 * kSequences;
    params.n_batch = 512;
    params.n_ubatch = 512;
    params.n_seq_max = kSequences;
    params.kv_unified = false;
    params.n_threads = params.n_threads_batch = 2;
    params.flash_attn_type =
        flash_attention ? LLAMA_FLASH_ATTN_TYPE_ENABLED : LLAMA_FLASH_ATTN_TYPE_DISABLED;
    params.cb_eval = count_prefix_nodes;
    params.cb_eval_user_data = &prefix_nodes_;
    params.no_perf = true;
    context_ = llama_init_from_model(model_, params);
    ASSERT_NE(context_, nullptr);
  }

  llama_token token(int sequence, int position) const {
    const int shared = position < kPrefix ? 0 : sequence + 1;
    return static_cast<llama_token>((7 + 31 * position + 101 * shared) % (n_vocab_ - 10) + 5);
  }

  // Fills every sequence's buffer with the shared prefix and its own tokens, then decodes one
  // more token for each, all in one batch, with `shared_prefix` promised. Returns the logits of
  // every sequence's last two positions (the own tokens' last one and the decoded one).
  std::vector<float> run(std::uint32_t shared_prefix) {
    llama_memory_clear(llama_get_memory(context_), true);
    llama_set_shared_prefix(context_, 0);
    llama_batch batch = llama_batch_init(512, 0, 1);
    const auto add = [&](llama_token t, int position, int sequence, bool logits) {
      const int i = batch.n_tokens++;
      batch.token[i] = t;
      batch.pos[i] = position;
      batch.n_seq_id[i] = 1;
      batch.seq_id[i][0] = sequence;
      batch.logits[i] = logits;
    };
    // The prefix in sequence 0, then copied into the others' buffers.
    for (int p = 0; p < kPrefix; ++p)
      add(token(0, p), p, 0, false);
    EXPECT_EQ(llama_decode(context_, batch), 0);
    std::vector<std::uint8_t> state(llama_state_seq_get_size(context_, 0));
    const std::size_t written = llama_state_seq_get_data(context_, state.data(), state.size(), 0);
    for (int s = 1; s < kSequences; ++s)
      EXPECT_GT(llama_state_seq_set_data(context_, state.data(), written, s), 0u);

    llama_set_shared_prefix(context_, shared_prefix);
    std::vector<float> logits;
    // The logits of each sequence's last token in the batch (batch index `stride` * s + last).
    const auto keep_logits = [&](int stride, int last) {
      for (int s = 0; s < kSequences; ++s) {
        const float* row = llama_get_logits_ith(context_, stride * s + last);
        ASSERT_NE(row, nullptr);
        logits.insert(logits.end(), row, row + n_vocab_);
      }
    };
    // Each sequence's own tokens, equally many (one pass over the weights for all four).
    batch.n_tokens = 0;
    for (int s = 0; s < kSequences; ++s)
      for (int p = kPrefix; p < kPrefix + kOwn; ++p)
        add(token(s, p), p, s, p + 1 == kPrefix + kOwn);
    EXPECT_EQ(llama_decode(context_, batch), 0);
    keep_logits(kOwn, kOwn - 1);
    // One decode step for all of them.
    batch.n_tokens = 0;
    for (int s = 0; s < kSequences; ++s)
      add(token(s, kPrefix + kOwn), kPrefix + kOwn, s, true);
    EXPECT_EQ(llama_decode(context_, batch), 0);
    keep_logits(1, 0);
    llama_batch_free(batch);
    return logits;
  }

  llama_model* model_ = nullptr;
  llama_context* context_ = nullptr;
  int n_vocab_ = 0;
  int prefix_nodes_ = 0;
};

// The largest difference between two runs' logits, relative to the largest logit.
double relative_difference(const std::vector<float>& a, const std::vector<float>& b) {
  double difference = 0, scale = 1e-6;
  for (std::size_t i = 0; i < a.size(); ++i) {
    difference = std::max(difference, static_cast<double>(std::fabs(a[i] - b[i])));
    scale = std::max(scale, static_cast<double>(std::fabs(a[i])));
  }
  return difference / scale;
}

std::size_t argmax_row(const std::vector<float>& logits, std::size_t row, int n_vocab) {
  const auto begin = logits.begin() + static_cast<std::ptrdiff_t>(row) * n_vocab;
  return static_cast<std::size_t>(std::max_element(begin, begin + n_vocab) - begin);
}

TEST_F(SharedPrefixAttention, ReadsThePrefixOnceAndKeepsTheLogits) {
  make_context(false);
  const std::vector<float> plain = run(0);
  EXPECT_EQ(prefix_nodes_, 0) << "the shared-prefix path ran without a promise";
  const std::vector<float> cascade = run(kPrefix);
  EXPECT_GT(prefix_nodes_, 0) << "the promise did not reach the attention graph";
  ASSERT_EQ(plain.size(), cascade.size());
  EXPECT_LT(relative_difference(plain, cascade), 1e-3);
  for (std::size_t row = 0; row < plain.size() / static_cast<std::size_t>(n_vocab_); ++row)
    EXPECT_EQ(argmax_row(plain, row, n_vocab_), argmax_row(cascade, row, n_vocab_)) << row;
  // The sequences' own tokens differ, so must their logits: one buffer standing for all four
  // must not have hidden the rest of theirs.
  EXPECT_GT(relative_difference(
                std::vector<float>(cascade.begin(), cascade.begin() + n_vocab_),
                std::vector<float>(cascade.begin() + n_vocab_, cascade.begin() + 2 * n_vocab_)),
            1e-3);
}

TEST_F(SharedPrefixAttention, APromiseLongerThanTheBuffersHoldIsNotUsed) {
  make_context(false);
  const std::vector<float> plain = run(0);
  // Promised beyond what the buffers hold even after the decode step (which fills positions up
  // to kPrefix + kOwn): llama.cpp's check of the cells refuses, and the graph stays plain.
  const std::vector<float> refused = run(kPrefix + kOwn + 2);
  EXPECT_EQ(prefix_nodes_, 0);
  EXPECT_EQ(plain, refused);
}

TEST_F(SharedPrefixAttention, FlashAttentionIgnoresThePromise) {
  make_context(true);
  const std::vector<float> flash = run(0);
  const std::vector<float> promised = run(kPrefix);
  EXPECT_EQ(prefix_nodes_, 0);
  EXPECT_EQ(flash, promised);
}

// The text llama.cpp logged while the current test loaded a model (the repack names its layout).
std::string& loader_log() {
  static std::string text;
  return text;
}

// Every position's logits for 37 prompt tokens (nine four-token tiles and one token on its own),
// then for one decoded token, with Q8_0 weights repacked or as stored.
std::vector<float> q8_0_logits(bool repack) {
  loader_log().clear();
  llama_log_set([](ggml_log_level, const char* text, void*) { loader_log() += text; }, nullptr);
  llama_backend_init();
  llama_model_params model_params = llama_model_default_params();
  model_params.use_extra_bufts = repack;
  llama_model* model =
      llama_model_load_from_file(testing::synthesized_model("tiny", "q8_0").c_str(), model_params);
  EXPECT_NE(model, nullptr);
  if (!model) return {};
  llama_context_params params = llama_context_default_params();
  params.n_ctx = 256;
  params.n_batch = params.n_ubatch = 64;
  params.n_seq_max = 1;
  params.n_threads = params.n_threads_batch = 2;
  params.no_perf = true;
  llama_context* context = llama_init_from_model(model, params);
  EXPECT_NE(context, nullptr);
  const int n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));
  std::vector<float> logits;
  llama_batch batch = llama_batch_init(64, 0, 1);
  const auto decode = [&](int first, int count) {
    batch.n_tokens = count;
    for (int i = 0; i < count; ++i) {
      batch.token[i] = static_cast<llama_token>((11 + 37 * (first + i)) % (n_vocab - 10) + 5);
      batch.pos[i] = first + i;
      batch.n_seq_id[i] = 1;
      batch.seq_id[i][0] = 0;
      batch.logits[i] = true;
    }
    EXPECT_EQ(llama_decode(context, batch), 0);
    for (int i = 0; i < count; ++i) {
      const float* row = llama_get_logits_ith(context, i);
      if (row) logits.insert(logits.end(), row, row + n_vocab);
    }
  };
  if (context) {
    decode(0, 37);
    decode(37, 1);
    llama_free(context);
  }
  llama_batch_free(batch);
  llama_model_free(model);
  llama_log_set([](ggml_log_level, const char*, void*) {}, nullptr);
  return logits;
}

TEST(Q8_0WeightRepack, MultipliesToTheLogitsOfTheStoredLayout) {
  if (!ggml_cpu_has_avx512() || !ggml_cpu_has_avx512_vnni())
    GTEST_SKIP() << "this CPU has no AVX-512 VNNI: Q8_0 weights stay as stored";
  const std::vector<float> stored = q8_0_logits(false);
  EXPECT_EQ(loader_log().find("q8_0_16x8"), std::string::npos) << "repacked without being asked";
  const std::vector<float> repacked = q8_0_logits(true);
  EXPECT_NE(loader_log().find("q8_0_16x8"), std::string::npos) << "the weights were not repacked";
  ASSERT_EQ(stored.size(), repacked.size());
  ASSERT_FALSE(stored.empty());
  // The integer products are exact; only the order of the float sums differs.
  EXPECT_LT(relative_difference(stored, repacked), 1e-4);
  const int n_vocab = static_cast<int>(stored.size() / 38);
  for (std::size_t row = 0; row < 38; ++row)
    EXPECT_EQ(argmax_row(stored, row, n_vocab), argmax_row(repacked, row, n_vocab)) << row;
}

// Kibibytes of this process's anonymous memory in transparent huge pages.
long anonymous_huge_kib() {
  std::ifstream in("/proc/self/smaps_rollup");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("AnonHugePages:", 0) == 0) return std::stol(line.substr(14));
  }
  return -1;
}

TEST(KvCacheMemory, AsksForTransparentHugePages) {
  std::ifstream setting("/sys/kernel/mm/transparent_hugepage/enabled");
  std::stringstream text;
  text << setting.rdbuf();
  if (!setting || text.str().find("[never]") != std::string::npos)
    GTEST_SKIP() << "transparent huge pages are off on this machine";
  llama_log_set([](ggml_log_level, const char*, void*) {}, nullptr);
  llama_backend_init();
  llama_model* model = llama_model_load_from_file(testing::synthesized_model().c_str(),
                                                  llama_model_default_params());
  ASSERT_NE(model, nullptr);
  const long before = anonymous_huge_kib();
  ASSERT_GE(before, 0) << "no AnonHugePages in /proc/self/smaps_rollup";
  llama_context_params params = llama_context_default_params();
  params.n_ctx = 65536;  // tiny's cache: 32 MiB, sixteen huge pages
  params.n_seq_max = 4;
  params.kv_unified = false;
  params.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_DISABLED;
  llama_context* context = llama_init_from_model(model, params);
  ASSERT_NE(context, nullptr);
  const std::size_t cache_bytes = llama_state_get_size(context);
  const long after = anonymous_huge_kib();
  llama_free(context);
  llama_model_free(model);
  // Whole 2 MiB pages inside the buffer; the system may still refuse some (fragmented memory).
  EXPECT_GT(after - before, 0) << "the cache (" << cache_bytes / 1024 << " KiB) has none";
}

}  // namespace
}  // namespace supportd
