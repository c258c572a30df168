// A GGUF model loaded through llama.cpp: weights, vocabulary, chat template, and the
// tokenizer/detokenizer the engine and the API share. Immutable after load.
// Thread-safety: every const method may be called from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "engine/engine.h"

struct llama_model;
struct llama_vocab;

namespace supportd::engine::llama {

using Token = std::int32_t;

class Model {
 public:
  // Loads `path`. Errors (missing file, not GGUF, corrupt, unsupported architecture) name the
  // file and say what is wrong; they never abort the process. `repack`: lay the weights out for
  // the CPU's fastest kernels (llama.cpp's extra buffer types) instead of as stored.
  static Result<std::unique_ptr<Model>> load(const std::string& path, const std::string& alias,
                                             bool repack = true);
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  llama_model* raw() const { return model_; }
  const llama_vocab* vocab() const { return vocab_; }
  const ModelCard& card() const { return card_; }

  // Tokenizes text. `add_bos`: start with BOS where the model wants one. `parse_special`: text
  // like "<|im_start|>" becomes the control token; never for text a customer wrote.
  std::vector<Token> tokenize(std::string_view text, bool add_bos, bool parse_special) const;

  // Renders `messages` with the model's chat template (from its metadata), ending with the
  // assistant's turn opened. Falls back to ChatML when the template is unknown to llama.cpp.
  Result<std::string> render_chat(const std::vector<ChatMessage>& messages) const;

  // Tokens of the rendered chat. Only the template's own text may produce control tokens:
  // message contents are tokenized as plain text, so no message can forge a turn.
  Result<std::vector<Token>> tokenize_chat(const std::vector<ChatMessage>& messages) const;

  // The bytes of one token as the model would print them (control tokens render as nothing).
  // May be part of a UTF-8 character.
  std::string piece(Token token) const;

  bool is_end_of_generation(Token token) const;
  const std::vector<Token>& end_of_generation_tokens() const { return eog_tokens_; }
  int vocab_size() const { return vocab_size_; }
  int context_length() const { return n_ctx_train_; }
  // Numbers per attention head in a key and in a value (what one KV cache row holds per head).
  int key_head_size() const { return key_head_size_; }
  int value_head_size() const { return value_head_size_; }
  std::string chat_template_name() const { return template_name_; }

 private:
  Model() = default;

  llama_model* model_ = nullptr;
  const llama_vocab* vocab_ = nullptr;
  ModelCard card_;
  std::vector<Token> eog_tokens_;
  std::string template_;       // Jinja source from the GGUF, or empty
  std::string template_name_;  // what render_chat uses: the model's, or "chatml (fallback)"
  bool template_supported_ = false;
  int vocab_size_ = 0;
  int n_ctx_train_ = 0;
  int key_head_size_ = 0;
  int value_head_size_ = 0;
};

// Routes llama.cpp's log to spdlog once per process, and remembers the last error line so
// load failures can say why.
void install_llama_log();
std::string last_llama_error();

}  // namespace supportd::engine::llama
