// Loading a GGUF model through llama.cpp, its model card, chat template and tokenizer
// (see model.h).
#include "engine/llama/model.h"

#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>

#include <spdlog/spdlog.h>

#include "engine/llama/compute_gate.h"

#include "gguf.h"
#include "llama.h"

namespace supportd::engine::llama {
namespace {

std::mutex log_mutex;
std::string last_error;    // guarded by log_mutex
std::string pending_line;  // guarded by log_mutex: llama.cpp logs lines in pieces

void log_callback(ggml_log_level level, const char* text, void* /*user*/) {
  std::lock_guard lock(log_mutex);
  static ggml_log_level line_level = GGML_LOG_LEVEL_INFO;
  if (level != GGML_LOG_LEVEL_CONT) line_level = level;
  pending_line += text;
  if (pending_line.empty() || pending_line.back() != '\n') return;
  pending_line.pop_back();
  switch (line_level) {
    case GGML_LOG_LEVEL_ERROR:
      last_error = pending_line;
      spdlog::warn("llama.cpp: {}", pending_line);
      break;
    case GGML_LOG_LEVEL_WARN: spdlog::debug("llama.cpp: {}", pending_line); break;
    default: spdlog::trace("llama.cpp: {}", pending_line); break;
  }
  pending_line.clear();
}

std::string meta(const llama_model* model, const char* key) {
  char buffer[512];
  const int n = llama_model_meta_val_str(model, key, buffer, sizeof(buffer));
  return n < 0 ? std::string() : std::string(buffer, std::min<std::size_t>(n, sizeof(buffer) - 1));
}

// A quick look at the file before llama.cpp maps it, so that the common mistakes get a plain
// answer: a missing file, a file that is not GGUF, a truncated header.
Status check_gguf(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return Error::make(ErrorCode::kNotFound, "model file not found: " + path);
  }
  if (std::filesystem::is_directory(path, ec)) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "model path is a directory, not a GGUF file: " + path);
  }
  std::ifstream file(path, std::ios::binary);
  char magic[4] = {};
  if (!file.read(magic, 4) || std::string_view(magic, 4) != "GGUF") {
    return Error::make(ErrorCode::kCorrupt, path + " is not a GGUF file (bad magic)");
  }
  gguf_init_params params{/*no_alloc=*/true, /*ctx=*/nullptr};
  gguf_context* gguf = gguf_init_from_file(path.c_str(), params);
  if (gguf == nullptr) {
    return Error::make(ErrorCode::kCorrupt,
                       path + " is a corrupt or truncated GGUF file: " + last_llama_error());
  }
  gguf_free(gguf);
  return {};
}

}  // namespace

void install_llama_log() {
  static std::once_flag once;
  std::call_once(once, [] {
    llama_log_set(log_callback, nullptr);
    llama_backend_init();
  });
}

std::string last_llama_error() {
  std::lock_guard lock(log_mutex);
  return last_error.empty() ? "no details" : last_error;
}

Result<std::unique_ptr<Model>> Model::load(const std::string& path, const std::string& alias,
                                           bool repack) {
  install_llama_log();
  if (Status status = check_gguf(path); !status) return status.error();

  llama_model_params params = llama_model_default_params();
  params.n_gpu_layers = 0;
  params.use_extra_bufts = repack;
  // Loading (reading, and repacking the weights into this CPU's faster layouts) is seconds of
  // CPU: in a serving process it takes turns with the engines' steps, a turn per tensor
  // (llama.cpp reports progress after each), rather than running beside them.
  SharedWork work(process_compute_gate());
  params.progress_callback = [](float, void* data) {
    static_cast<SharedWork*>(data)->yield();
    return true;
  };
  params.progress_callback_user_data = &work;
  llama_model* raw = llama_model_load_from_file(path.c_str(), params);
  if (raw == nullptr) {
    return Error::make(ErrorCode::kCorrupt,
                       "cannot load model " + path + ": " + last_llama_error());
  }
  std::unique_ptr<Model> model(new Model());
  model->model_ = raw;
  model->vocab_ = llama_model_get_vocab(raw);
  model->vocab_size_ = llama_vocab_n_tokens(model->vocab_);
  model->n_ctx_train_ = llama_model_n_ctx_train(raw);
  // GGUF states a head's size where it is not the width divided by the heads.
  const std::string architecture = meta(raw, "general.architecture");
  const auto head_size = [&](const char* length_key) {
    const std::string stated = meta(raw, (architecture + ".attention." + length_key).c_str());
    const int heads = std::max(1, llama_model_n_head(raw));
    return stated.empty() ? llama_model_n_embd(raw) / heads : std::atoi(stated.c_str());
  };
  model->key_head_size_ = head_size("key_length");
  model->value_head_size_ = head_size("value_length");
  for (Token t = 0; t < model->vocab_size_; ++t) {
    if (llama_vocab_is_eog(model->vocab_, t)) model->eog_tokens_.push_back(t);
  }

  if (const char* tmpl = llama_model_chat_template(raw, nullptr); tmpl != nullptr) {
    model->template_ = tmpl;
  }
  const llama_chat_message probe{"user", "hi"};
  model->template_supported_ =
      !model->template_.empty() &&
      llama_chat_apply_template(model->template_.c_str(), &probe, 1, true, nullptr, 0) >= 0;
  model->template_name_ = model->template_supported_ ? "from model metadata" : "chatml (fallback)";
  if (!model->template_supported_) {
    spdlog::warn("model {} has {} chat template; using ChatML", path,
                 model->template_.empty() ? "no" : "an unsupported");
  }

  char desc[256];
  llama_model_desc(raw, desc, sizeof(desc));
  ModelCard& card = model->card_;
  card.id = alias.empty() ? std::filesystem::path(path).stem().string() : alias;
  card.meaningless_text = !meta(raw, "supportd.synthetic").empty();
  card.context_length = model->n_ctx_train_;
  card.description =
      fmt::format("{}, {:.1f}M parameters, {:.1f} MiB", desc, llama_model_n_params(raw) / 1e6,
                  llama_model_size(raw) / 1048576.0);
  if (card.meaningless_text) {
    card.description += "; synthesized with random weights: its text is meaningless";
  }
  return model;
}

Model::~Model() {
  if (model_ != nullptr) llama_model_free(model_);
}

std::vector<Token> Model::tokenize(std::string_view text, bool add_bos, bool parse_special) const {
  std::vector<Token> tokens(text.size() + 8);
  int n = llama_tokenize(vocab_, text.data(), static_cast<int32_t>(text.size()), tokens.data(),
                         static_cast<int32_t>(tokens.size()), add_bos, parse_special);
  if (n < 0) {
    tokens.resize(static_cast<std::size_t>(-n));
    n = llama_tokenize(vocab_, text.data(), static_cast<int32_t>(text.size()), tokens.data(),
                       static_cast<int32_t>(tokens.size()), add_bos, parse_special);
  }
  tokens.resize(static_cast<std::size_t>(std::max(n, 0)));
  return tokens;
}

Result<std::string> Model::render_chat(const std::vector<ChatMessage>& messages) const {
  std::vector<llama_chat_message> chat;
  chat.reserve(messages.size());
  for (const auto& m : messages)
    chat.push_back({m.role.c_str(), m.content.c_str()});
  const char* tmpl = template_supported_ ? template_.c_str() : "chatml";
  std::string out(256, '\0');
  for (const auto& m : messages)
    out.reserve(out.size() + m.content.size() * 2);
  int n = llama_chat_apply_template(tmpl, chat.data(), chat.size(), true, out.data(),
                                    static_cast<int32_t>(out.size()));
  if (n > static_cast<int>(out.size())) {
    out.resize(static_cast<std::size_t>(n));
    n = llama_chat_apply_template(tmpl, chat.data(), chat.size(), true, out.data(),
                                  static_cast<int32_t>(out.size()));
  }
  if (n < 0) return Error::make(ErrorCode::kInternal, "chat template failed to render");
  out.resize(static_cast<std::size_t>(n));
  return out;
}

Result<std::vector<Token>> Model::tokenize_chat(const std::vector<ChatMessage>& messages) const {
  // Render once with a marker in place of each content, then tokenize the template's text with
  // control tokens and the contents without.
  constexpr char kMark = '\x1f';
  std::vector<ChatMessage> marked = messages;
  for (std::size_t i = 0; i < marked.size(); ++i) {
    marked[i].content = kMark + std::to_string(i) + kMark;
  }
  auto rendered = render_chat(marked);
  if (!rendered) return rendered.error();

  std::vector<Token> tokens;
  const std::string& text = *rendered;
  std::size_t at = 0;
  bool first = true;
  auto append = [&](std::string_view part, bool parse_special) {
    if (part.empty() && !first) return;
    auto more = tokenize(part, first, parse_special);
    tokens.insert(tokens.end(), more.begin(), more.end());
    first = false;
  };
  while (at < text.size()) {
    const std::size_t open = text.find(kMark, at);
    const std::size_t close = open == std::string::npos ? open : text.find(kMark, open + 1);
    if (close == std::string::npos) {
      append(std::string_view(text).substr(at), true);
      break;
    }
    append(std::string_view(text).substr(at, open - at), true);
    std::size_t index = messages.size();
    std::from_chars(text.data() + open + 1, text.data() + close, index);
    if (index >= messages.size()) {
      return Error::make(ErrorCode::kInternal, "chat template mangled a message");
    }
    std::string content = messages[index].content;
    std::erase(content, kMark);
    append(content, false);
    at = close + 1;
  }
  return tokens;
}

std::string Model::piece(Token token) const {
  char buffer[256];
  int n = llama_token_to_piece(vocab_, token, buffer, sizeof(buffer), 0, false);
  if (n >= 0) return std::string(buffer, static_cast<std::size_t>(n));
  std::string big(static_cast<std::size_t>(-n), '\0');
  n = llama_token_to_piece(vocab_, token, big.data(), static_cast<int32_t>(big.size()), 0, false);
  big.resize(static_cast<std::size_t>(std::max(n, 0)));
  return big;
}

bool Model::is_end_of_generation(Token token) const {
  return llama_vocab_is_eog(vocab_, token);
}

}  // namespace supportd::engine::llama
