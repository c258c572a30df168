// Content-safety throughput on customer-service text: the input check, the streaming output
// filter (answers fed in token-sized pieces), the PII masker, and the multi-pattern scan
// itself, Hyperscan against a dense Aho-Corasick automaton on the same word list.
// Text: BANKING77's real customer messages (English) interleaved with Chinese customer-service
// sentences, a few of them carrying PII. Rules: a synthetic tenant list of 2,000 English and
// 2,000 Chinese words plus 16 regular expressions (seeded, so every run measures the same).
//   usage: filter_throughput --data PATH/banking77/train.csv [google-benchmark flags]
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <benchmark/benchmark.h>
#include <hs/hs.h>

#include "filter/output_filter.h"
#include "filter/pii_masker.h"
#include "filter/rule_set.h"
#include "filter/text_normalizer.h"

namespace supportd::filter {
namespace {

constexpr std::array<std::string_view, 16> kChinese = {
    "您好，我的包裹已经一个星期了还没有到，请帮我查一下物流信息。",
    "我想申请退款，订单号是202403151234567890，商品有质量问题。",
    "请问你们的客服电话是多少？我的手机号是13812345678，麻烦回电。",
    "银行卡被扣了两次钱，卡号6222021234567890128，怎么处理？",
    "我要修改收货地址，原来的地址写错了。",
    "优惠券为什么不能用？页面显示已过期。",
    "会员积分什么时候到账？我上周已经确认收货了。",
    "发票抬头写错了，可以重新开吗？邮箱是zhang.san@example.com。",
    "快递员态度很差，我要投诉。",
    "这个型号还有货吗？什么时候补货？",
    "我忘记密码了，手机也换了，怎么找回账户？",
    "退货需要自己付运费吗？商品包装已经拆了。",
    "身份证号码11010519491231002X需要实名认证吗？",
    "价格是¥1,299.00，昨天还是¥1,099.00，能保价吗？",
    "你们几点下班？周末有人工客服吗？",
    "谢谢，问题已经解决了。",
};

constexpr std::string_view kCommonHan =
    "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家"
    "学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经"
    "头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者";

std::vector<std::string> load_messages(const std::string& path) {
  std::vector<std::string> english;
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    const std::size_t comma = line.rfind(',');
    if (comma == std::string::npos) continue;
    std::string text = line.substr(0, comma);
    if (text.size() >= 2 && text.front() == '"' && text.back() == '"') {
      text = text.substr(1, text.size() - 2);
      for (std::size_t at = text.find("\"\""); at != std::string::npos;
           at = text.find("\"\"", at + 1))
        text.erase(at, 1);
    }
    english.push_back(std::move(text));
  }
  if (english.empty()) {
    std::fprintf(stderr, "no messages in %s (pass --data PATH/banking77/train.csv)\n",
                 path.c_str());
    std::exit(2);
  }
  // Two English messages, then one Chinese, then again: about 20% Chinese by count.
  std::vector<std::string> messages;
  for (std::size_t i = 0; i < english.size(); ++i) {
    messages.push_back(english[i]);
    if (i % 2 == 1) messages.emplace_back(kChinese[(i / 2) % kChinese.size()]);
  }
  return messages;
}

std::string han(std::mt19937& random, int count) {
  std::string out;
  const std::size_t characters = kCommonHan.size() / 3;
  for (int i = 0; i < count; ++i) {
    const std::size_t at = std::uniform_int_distribution<std::size_t>(0, characters - 1)(random);
    out.append(kCommonHan.substr(at * 3, 3));
  }
  return out;
}

std::string latin(std::mt19937& random, int count) {
  std::string out;
  for (int i = 0; i < count; ++i)
    out.push_back(static_cast<char>('a' + std::uniform_int_distribution<int>(0, 25)(random)));
  return out;
}

// The synthetic tenant list: words plus a few that do occur in the text, so matches happen.
std::vector<std::string> word_list() {
  std::mt19937 random(7);
  std::vector<std::string> words = {"scam", "fraud", "stolen", "hacked", "投诉", "退款"};
  for (int i = 0; i < 2000; ++i)
    words.push_back(latin(random, std::uniform_int_distribution<int>(5, 10)(random)));
  for (int i = 0; i < 2000; ++i)
    words.push_back(han(random, std::uniform_int_distribution<int>(2, 4)(random)));
  return words;
}

std::string rule_file_text() {
  std::string text = "notice: Sorry, I can't help with that.\n";
  const std::vector<std::string> words = word_list();
  const char* actions[] = {"refuse", "mask", "flag"};
  for (std::size_t i = 0; i < words.size(); ++i) {
    // The words that occur in the text flag (so streams run to the end); the rest vary.
    const char* action = i < 6 ? "flag" : actions[i % 3];
    text += std::string(action) + " list" + std::to_string(i % 7) + " word: " + words[i] + "\n";
  }
  const char* regexes[] = {
      "wire\\s{0,3}transfer\\s{0,3}fee",
      "acct-\\d{6,10}",
      "free\\s{0,2}money",
      "password\\s{0,2}is\\s{0,2}[a-z0-9]{1,20}",
      "免费\\s{0,2}领取",
      "加\\s{0,2}微信\\s{0,2}[a-z0-9_-]{3,20}",
      "(?:bit|btc)coin\\s{0,2}wallet",
      "gift\\s{0,2}card\\s{0,2}code",
      "\\d{3}-\\d{2}-\\d{4}",
      "verify\\s{0,2}your\\s{0,2}account",
      "点击\\s{0,2}链接",
      "cvv\\s{0,2}\\d{3}",
      "pin\\s{0,2}(?:code\\s{0,2})?\\d{4}",
      "转账\\s{0,2}到",
      "(?:kill|hurt)\\s{1,3}(?:you|him|her)",
      "刷单",
  };
  for (const char* regex : regexes)
    text += std::string("mask pattern regex: ") + regex + "\n";
  return text;
}

struct Fixture {
  std::vector<std::string> messages;
  std::size_t bytes = 0;
  std::shared_ptr<const RuleSet> rules;
};

Fixture* fixture = nullptr;

void BM_InputCheck(benchmark::State& state) {
  std::size_t refused = 0;
  for (auto _ : state) {
    for (const std::string& message : fixture->messages) {
      const InputVerdict verdict = fixture->rules->check_input(message);
      refused += verdict.decision == Decision::kRefuse;
      benchmark::DoNotOptimize(verdict);
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * fixture->bytes));
  state.counters["refused_per_pass"] =
      static_cast<double>(refused) / static_cast<double>(state.iterations());
}

// Bytes counted are the bytes fed: an answer that a refuse rule stops is not fed further.
void BM_OutputFilterStream(benchmark::State& state) {
  const auto piece = static_cast<std::size_t>(state.range(0));
  std::size_t fed = 0, stopped = 0;
  for (auto _ : state) {
    for (const std::string& message : fixture->messages) {
      OutputFilter filter(fixture->rules);
      const std::string_view text = message;
      std::size_t at = 0;
      for (; at < text.size() && !filter.stopped(); at += piece)
        benchmark::DoNotOptimize(filter.push(text.substr(at, piece)));
      fed += std::min(at, text.size());
      benchmark::DoNotOptimize(filter.finish());
      stopped += filter.stopped();
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(fed));
  state.counters["stopped_per_pass"] =
      static_cast<double>(stopped) / static_cast<double>(state.iterations());
}

void BM_PiiMask(benchmark::State& state) {
  for (auto _ : state) {
    for (const std::string& message : fixture->messages)
      benchmark::DoNotOptimize(mask_pii(message));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * fixture->bytes));
}

void BM_Normalize(benchmark::State& state) {
  for (auto _ : state) {
    for (const std::string& message : fixture->messages)
      benchmark::DoNotOptimize(normalize_text(message));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * fixture->bytes));
}

// --- the multi-pattern scan alone: Hyperscan vs Aho-Corasick on the same normalized words ----

std::vector<std::string> normalized_words() {
  std::vector<std::string> words;
  for (const std::string& word : word_list())
    words.push_back(normalize_text(word).text());
  return words;
}

std::vector<std::string> normalized_messages() {
  std::vector<std::string> out;
  for (const std::string& message : fixture->messages)
    out.push_back(normalize_text(message).text());
  return out;
}

// A dense Aho-Corasick automaton: a full 256-way transition table per state (the fastest form
// to scan with, at the cost of memory), failure links folded into the transitions.
class AhoCorasick {
 public:
  explicit AhoCorasick(const std::vector<std::string>& words) {
    add_state();
    for (const std::string& word : words) {
      int state = 0;
      for (unsigned char c : word) {
        if (next_[state * 256 + c] == 0) {
          const int created = add_state();
          next_[state * 256 + c] = created;
        }
        state = next_[state * 256 + c];
      }
      output_[state] = 1;
    }
    std::vector<int> fail(output_.size(), 0), queue;
    for (int c = 0; c < 256; ++c)
      if (next_[c] != 0) queue.push_back(next_[c]);
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const int state = queue[head];
      output_[state] += output_[fail[state]];
      for (int c = 0; c < 256; ++c) {
        const int child = next_[state * 256 + c];
        if (child != 0) {
          fail[child] = next_[fail[state] * 256 + c];
          queue.push_back(child);
        } else {
          next_[state * 256 + c] = next_[fail[state] * 256 + c];
        }
      }
    }
  }
  std::size_t count(std::string_view text) const {
    std::size_t matches = 0;
    int state = 0;
    for (unsigned char c : text) {
      state = next_[state * 256 + c];
      matches += output_[state];
    }
    return matches;
  }
  std::size_t states() const { return output_.size(); }

 private:
  int add_state() {
    next_.resize(next_.size() + 256, 0);
    output_.push_back(0);
    return static_cast<int>(output_.size() - 1);
  }
  std::vector<int> next_;
  std::vector<int> output_;
};

void BM_ScanAhoCorasick(benchmark::State& state) {
  const AhoCorasick automaton(normalized_words());
  const std::vector<std::string> messages = normalized_messages();
  std::size_t bytes = 0, matches = 0;
  for (const std::string& m : messages)
    bytes += m.size();
  for (auto _ : state) {
    for (const std::string& message : messages)
      matches += automaton.count(message);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["matches_per_pass"] =
      static_cast<double>(matches) / static_cast<double>(state.iterations());
  state.counters["states"] = static_cast<double>(automaton.states());
}

int count_match(unsigned, unsigned long long, unsigned long long, unsigned, void* context) {
  ++*static_cast<std::size_t*>(context);
  return 0;
}

void BM_ScanHyperscan(benchmark::State& state) {
  const std::vector<std::string> words = normalized_words();
  std::vector<std::string> escaped;
  for (const std::string& word : words) {
    std::string e;
    for (unsigned char c : word) {
      char buffer[5];
      std::snprintf(buffer, sizeof buffer, "\\x%02x", c);
      e += buffer;
    }
    escaped.push_back(std::move(e));
  }
  std::vector<const char*> expressions;
  std::vector<unsigned> ids, flags(words.size(), 0);
  for (std::size_t i = 0; i < escaped.size(); ++i) {
    expressions.push_back(escaped[i].c_str());
    ids.push_back(static_cast<unsigned>(i));
  }
  hs_database_t* database = nullptr;
  hs_compile_error_t* error = nullptr;
  if (hs_compile_multi(expressions.data(), flags.data(), ids.data(),
                       static_cast<unsigned>(expressions.size()), HS_MODE_BLOCK, nullptr, &database,
                       &error) != HS_SUCCESS) {
    state.SkipWithError(error->message);
    return;
  }
  hs_scratch_t* scratch = nullptr;
  hs_alloc_scratch(database, &scratch);
  const std::vector<std::string> messages = normalized_messages();
  std::size_t bytes = 0, matches = 0;
  for (const std::string& m : messages)
    bytes += m.size();
  for (auto _ : state) {
    for (const std::string& message : messages)
      hs_scan(database, message.data(), static_cast<unsigned>(message.size()), 0, scratch,
              count_match, &matches);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["matches_per_pass"] =
      static_cast<double>(matches) / static_cast<double>(state.iterations());
  hs_free_scratch(scratch);
  hs_free_database(database);
}

BENCHMARK(BM_Normalize)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ScanHyperscan)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ScanAhoCorasick)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_InputCheck)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OutputFilterStream)->Arg(4)->Arg(16)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PiiMask)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace supportd::filter

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  std::string data;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string_view(argv[i]) == "--data") data = argv[i + 1];
  if (data.empty()) {
    std::fprintf(stderr, "usage: %s --data PATH/banking77/train.csv [benchmark flags]\n", argv[0]);
    return 2;
  }
  using namespace supportd;
  using namespace supportd::filter;
  Fixture loaded;
  loaded.messages = load_messages(data);
  for (const std::string& m : loaded.messages)
    loaded.bytes += m.size();
  const auto compile_start = std::chrono::steady_clock::now();
  Result<RuleFile> file = parse_rule_file(rule_file_text(), "bench.rules");
  Result<std::shared_ptr<const RuleSet>> rules =
      file.ok() ? RuleSet::compile(std::move(file).value()) : file.error();
  if (!rules.ok()) {
    std::fprintf(stderr, "rules: %s\n", rules.error().message.c_str());
    return 1;
  }
  const std::chrono::duration<double, std::milli> compile_time =
      std::chrono::steady_clock::now() - compile_start;
  loaded.rules = *rules;
  fixture = &loaded;
  std::printf(
      "corpus: %zu messages, %zu bytes; rules: %zu, parsed and compiled in %.0f ms; longest "
      "output match %zu bytes\n",
      loaded.messages.size(), loaded.bytes, loaded.rules->rules().size(), compile_time.count(),
      loaded.rules->longest_output_match());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
