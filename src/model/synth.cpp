// `supportd model synth`: the preset's tensors filled with seeded random numbers into an f16
// GGUF with the embedded tokenizer, the output rows of unsampleable tokens zeroed, then
// quantized to the asked type; synthesize_cached() keeps one per preset and type.
#include "model/synth.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

#include <spdlog/spdlog.h>

#include "core/progress.h"
#include "core/temp_file.h"
#include "core/utf8.h"
#include "engine/llama/model.h"
#include "gguf.h"
#include "llama.h"
#include "model/quantize.h"
#include "model/vocabularies.h"

namespace supportd::model {
namespace {

constexpr float kWeightStd = 0.02f;
constexpr float kLogitStd = 8.0f;

const char* kChatML =
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] "
    "+ '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ "
    "'<|im_start|>assistant\\n' "
    "}}{% endif %}";

// splitmix64: fast, seedable, good enough for random weights.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform on [-a, a] with standard deviation `std`.
  float uniform(float std) {
    const float u = static_cast<float>(next() >> 40) * (1.0f / 16777216.0f);  // [0, 1)
    return (2.0f * u - 1.0f) * std * 1.7320508f;
  }

 private:
  std::uint64_t state_;
};

struct GgufDeleter {
  void operator()(gguf_context* c) const { gguf_free(c); }
};
struct GgmlDeleter {
  void operator()(ggml_context* c) const { ggml_free(c); }
};
using GgufPtr = std::unique_ptr<gguf_context, GgufDeleter>;
using GgmlPtr = std::unique_ptr<ggml_context, GgmlDeleter>;

// Tokens that must never be sampled: control, byte-fallback, unused and unknown tokens, and
// those whose text is not whole UTF-8 on its own.
Result<std::vector<bool>> banned_tokens(const std::string& vocab_path, int* n_vocab) {
  llama_model_params params = llama_model_default_params();
  params.vocab_only = true;
  llama_model* model = llama_model_load_from_file(vocab_path.c_str(), params);
  if (model == nullptr)
    return Error::make(ErrorCode::kInternal, "cannot load the embedded vocabulary");
  const llama_vocab* vocab = llama_model_get_vocab(model);
  *n_vocab = llama_vocab_n_tokens(vocab);
  std::vector<bool> banned(static_cast<std::size_t>(*n_vocab), false);
  char buffer[256];
  for (llama_token t = 0; t < *n_vocab; ++t) {
    const auto attr = llama_vocab_get_attr(vocab, t);
    const int n = llama_token_to_piece(vocab, t, buffer, sizeof(buffer), 0, false);
    const bool special = attr & (LLAMA_TOKEN_ATTR_CONTROL | LLAMA_TOKEN_ATTR_BYTE |
                                 LLAMA_TOKEN_ATTR_UNUSED | LLAMA_TOKEN_ATTR_UNKNOWN);
    banned[t] = special || n <= 0 || !is_valid_utf8(std::string_view(buffer, n)) ||
                llama_vocab_is_eog(vocab, t);
  }
  llama_model_free(model);
  return banned;
}

void fill_random(ggml_tensor* tensor, float std, Random& random) {
  const std::int64_t n = ggml_nelements(tensor);
  if (tensor->type == GGML_TYPE_F32) {
    auto* data = static_cast<float*>(tensor->data);
    for (std::int64_t i = 0; i < n; ++i)
      data[i] = random.uniform(std);
    return;
  }
  auto* data = static_cast<ggml_fp16_t*>(tensor->data);
  float chunk[4096];
  for (std::int64_t i = 0; i < n; i += 4096) {
    const std::int64_t m = std::min<std::int64_t>(4096, n - i);
    for (std::int64_t k = 0; k < m; ++k)
      chunk[k] = random.uniform(std);
    ggml_fp32_to_fp16_row(chunk, data + i, m);
  }
}

void fill_constant(ggml_tensor* tensor, float value) {
  auto* data = static_cast<float*>(tensor->data);
  for (std::int64_t i = 0; i < ggml_nelements(tensor); ++i)
    data[i] = value;
}

Status write_f16(const Preset& p, const std::string& vocab_path, const std::string& out,
                 std::uint64_t seed, bool progress, bool shape, SynthReport* report) {
  gguf_init_params read{/*no_alloc=*/true, /*ctx=*/nullptr};
  GgufPtr vocab(gguf_init_from_file(vocab_path.c_str(), read));
  if (!vocab) return Error::make(ErrorCode::kInternal, "cannot read the embedded vocabulary");

  int n_vocab = 0;
  auto banned = banned_tokens(vocab_path, &n_vocab);
  if (!banned) return banned.error();
  if (!shape) banned->assign(banned->size(), false);
  report->vocabulary = n_vocab;
  for (bool b : *banned)
    report->banned_tokens += b ? 1 : 0;

  GgufPtr gguf(gguf_init_empty());
  gguf_set_kv(gguf.get(), vocab.get());
  for (std::int64_t i = gguf_get_n_kv(gguf.get()) - 1; i >= 0; --i) {
    const std::string key = gguf_get_key(gguf.get(), i);
    if (key.rfind("tokenizer.", 0) != 0) gguf_remove_key(gguf.get(), key.c_str());
  }
  if (gguf_find_key(gguf.get(), "tokenizer.chat_template") < 0) {
    gguf_set_val_str(gguf.get(), "tokenizer.chat_template", kChatML);
  }
  const std::string a = p.architecture;
  const std::string name = p.name + " (synthesized, random weights: its text is meaningless)";
  const int head_dim = p.embedding / p.heads;
  gguf_set_val_str(gguf.get(), "general.architecture", a.c_str());
  gguf_set_val_str(gguf.get(), "general.name", name.c_str());
  gguf_set_val_u32(gguf.get(), "general.file_type", 1);  // LLAMA_FTYPE_MOSTLY_F16
  gguf_set_val_u32(gguf.get(), "general.quantization_version", 2);
  gguf_set_val_u32(gguf.get(), (a + ".context_length").c_str(), p.context);
  gguf_set_val_u32(gguf.get(), (a + ".embedding_length").c_str(), p.embedding);
  gguf_set_val_u32(gguf.get(), (a + ".block_count").c_str(), p.layers);
  gguf_set_val_u32(gguf.get(), (a + ".feed_forward_length").c_str(), p.feed_forward);
  gguf_set_val_u32(gguf.get(), (a + ".attention.head_count").c_str(), p.heads);
  gguf_set_val_u32(gguf.get(), (a + ".attention.head_count_kv").c_str(), p.kv_heads);
  gguf_set_val_u32(gguf.get(), (a + ".rope.dimension_count").c_str(), head_dim);
  gguf_set_val_f32(gguf.get(), (a + ".attention.layer_norm_rms_epsilon").c_str(), p.rms_epsilon);
  gguf_set_val_f32(gguf.get(), (a + ".rope.freq_base").c_str(), p.rope_base);
  gguf_set_val_u32(gguf.get(), (a + ".vocab_size").c_str(), n_vocab);
  gguf_set_val_bool(gguf.get(), "supportd.synthetic", true);
  gguf_set_val_str(gguf.get(), "supportd.preset", p.name.c_str());
  gguf_set_val_str(gguf.get(), "supportd.shape_of", p.shape_of.c_str());

  // Tensors, in llama.cpp's names and shapes (ne0 = input width).
  struct Spec {
    std::string name;
    std::int64_t ne0, ne1;
  };
  std::vector<Spec> specs;
  const std::int64_t q = static_cast<std::int64_t>(p.heads) * head_dim;
  const std::int64_t kv = static_cast<std::int64_t>(p.kv_heads) * head_dim;
  specs.push_back({"token_embd.weight", p.embedding, n_vocab});
  for (int l = 0; l < p.layers; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".";
    specs.push_back({b + "attn_norm.weight", p.embedding, 1});
    specs.push_back({b + "attn_q.weight", p.embedding, q});
    specs.push_back({b + "attn_k.weight", p.embedding, kv});
    specs.push_back({b + "attn_v.weight", p.embedding, kv});
    if (p.qkv_bias) {
      specs.push_back({b + "attn_q.bias", q, 1});
      specs.push_back({b + "attn_k.bias", kv, 1});
      specs.push_back({b + "attn_v.bias", kv, 1});
    }
    specs.push_back({b + "attn_output.weight", q, p.embedding});
    specs.push_back({b + "ffn_norm.weight", p.embedding, 1});
    specs.push_back({b + "ffn_gate.weight", p.embedding, p.feed_forward});
    specs.push_back({b + "ffn_up.weight", p.embedding, p.feed_forward});
    specs.push_back({b + "ffn_down.weight", p.feed_forward, p.embedding});
  }
  specs.push_back({"output_norm.weight", p.embedding, 1});

  std::size_t bytes = ggml_tensor_overhead() * (specs.size() + 1);
  for (const auto& s : specs) {
    const bool vector = s.ne1 == 1;
    bytes += static_cast<std::size_t>(s.ne0 * s.ne1) * (vector ? 4 : 2) + 64;
  }
  ggml_init_params init{bytes, nullptr, /*no_alloc=*/false};
  GgmlPtr ggml(ggml_init(init));
  if (!ggml) return Error::make(ErrorCode::kIo, "out of memory for the model's tensors");

  Random random(seed);
  ProgressBar bar("synthesizing " + p.name, static_cast<std::int64_t>(specs.size()));
  // The output projection is the (tied) embedding: final-norm gain sets the logit spread.
  const float gain = kLogitStd / (kWeightStd * std::sqrt(static_cast<float>(p.embedding)));
  for (const auto& s : specs) {
    const bool vector = s.ne1 == 1;
    ggml_tensor* t = vector ? ggml_new_tensor_1d(ggml.get(), GGML_TYPE_F32, s.ne0)
                            : ggml_new_tensor_2d(ggml.get(), GGML_TYPE_F16, s.ne0, s.ne1);
    ggml_set_name(t, s.name.c_str());
    if (s.name == "output_norm.weight") {
      fill_constant(t, gain);
    } else if (s.name.ends_with("_norm.weight")) {
      fill_constant(t, 1.0f);
    } else {
      fill_random(t, kWeightStd, random);
    }
    if (s.name == "token_embd.weight") {
      auto* rows = static_cast<ggml_fp16_t*>(t->data);
      for (int token = 0; token < n_vocab; ++token) {
        if ((*banned)[token]) std::memset(rows + token * s.ne0, 0, s.ne0 * sizeof(ggml_fp16_t));
      }
    }
    gguf_add_tensor(gguf.get(), t);
    report->parameters += ggml_nelements(t);
    if (progress) bar.advance();
  }
  if (progress) bar.finish();
  if (!gguf_write_to_file(gguf.get(), out.c_str(), false)) {
    return Error::make(ErrorCode::kIo, "cannot write " + out);
  }
  return {};
}

}  // namespace

Result<SynthReport> synthesize(const SynthOptions& options) {
  engine::llama::install_llama_log();
  const Preset* preset = find_preset(options.preset);
  if (preset == nullptr) {
    return Error::invalid("unknown preset '" + options.preset + "' (known: " + preset_names() + ")",
                          "preset");
  }
  const auto type = parse_quant_type(options.type);
  if (!type) return type.error();
  if (options.out.empty()) return Error::invalid("an output file is required (--out)", "out");

  const auto blob = embedded_vocabulary(preset->vocabulary);
  const std::string directory = std::filesystem::absolute(options.out).parent_path().string();
  TempFile vocab(directory, "synth");
  {
    FILE* f = std::fopen(vocab.path().c_str(), "wb");
    if (f == nullptr || std::fwrite(blob.data(), 1, blob.size(), f) != blob.size()) {
      if (f != nullptr) std::fclose(f);
      return Error::make(ErrorCode::kIo, "cannot write a temporary file in " + directory);
    }
    std::fclose(f);
  }

  SynthReport report;
  const bool direct = options.type == "f16";
  TempFile f16(directory, "synth");
  const std::string f16_path = direct ? options.out : f16.path();
  if (Status s = write_f16(*preset, vocab.path(), f16_path, options.seed, options.progress,
                           options.shape_output, &report);
      !s) {
    return s.error();
  }
  if (!direct) {
    if (Status s = quantize(f16_path, options.out, options.type); !s) return s.error();
  }
  std::error_code ec;
  report.bytes = static_cast<std::int64_t>(std::filesystem::file_size(options.out, ec));
  return report;
}

Result<std::string> synthesize_cached(const std::string& preset, const std::string& type) {
  const char* home = std::getenv("HOME");
  const char* cache = std::getenv("SUPPORTD_CACHE");
  const std::filesystem::path directory =
      cache != nullptr
          ? std::filesystem::path(cache) / "models"
          : std::filesystem::path(home != nullptr ? home : "/tmp") / ".cache/supportd/models";
  const std::string path = (directory / (preset + "-" + type + "-synthetic.gguf")).string();
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) return path;
  std::filesystem::create_directories(directory, ec);
  if (ec)
    return Error::make(ErrorCode::kIo, "cannot create " + directory.string() + ": " + ec.message());
  spdlog::info("synthesizing the {} demo model ({}, random weights) into {}", preset, type, path);
  const std::string partial = path + ".partial." + std::to_string(getpid());
  SynthOptions options{preset, type, partial, 42, true, true};
  auto report = synthesize(options);
  if (!report) return report.error();
  std::filesystem::rename(partial, path, ec);
  if (ec) return Error::make(ErrorCode::kIo, "cannot rename " + partial + ": " + ec.message());
  return path;
}

}  // namespace supportd::model
