// Creating the in-process engine (options, the llama.cpp context, its threads) and its public
// methods, which hand work to the engine thread's loop through its inbox.
#include "engine/llama/llama_engine.h"

#include <algorithm>
#include <random>
#include <tuple>

#include <spdlog/spdlog.h>

#include "engine/llama/loop.h"
#include "ggml-cpu.h"
#include "llama.h"

namespace supportd::engine::llama {

LlamaEngine::LlamaEngine(EngineOptions options)
    : options_(std::move(options)), admission_(options_.admission) {}

LlamaEngine::~LlamaEngine() {
  shutdown();
}

Result<std::unique_ptr<LlamaEngine>> LlamaEngine::create(const EngineOptions& requested) {
  EngineOptions options = requested;
  // Admission control's waits age requests as the scheduler does: one setting, not two.
  options.admission.aging = options.scheduling.aging;
  if (Status valid = validate(options); !valid.ok()) return valid.error();
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const bool unified = options.kv_layout == EngineOptions::KvLayout::kUnified;
  // Per sequence: every running sequence and every cached prefix gets a buffer of this many
  // cells (llama.cpp rounds a buffer up to 256), and a cached prefix holds at most one buffer.
  const int sequence_cells = (options.context_cells / options.parallel + 255) / 256 * 256;
  if (!unified) {
    options.prefix_cache_entries = std::min(options.prefix_cache_entries, options.parallel);
    options.prefix_cache_cells = options.prefix_cache_entries * sequence_cells;
  } else if (options.prefix_cache_cells <= 0) {
    options.prefix_cache_cells = options.context_cells / 4;
  }

  auto model = Model::load(options.model_path, options.alias, options.weight_repack);
  if (!model) return model.error();

  llama_context_params params = llama_context_default_params();
  params.n_ctx = static_cast<uint32_t>(options.context_cells);
  params.n_batch = static_cast<uint32_t>(std::max(options.step_tokens, options.parallel));
  params.n_ubatch = std::min<uint32_t>(params.n_batch, 512);
  params.n_seq_max = static_cast<uint32_t>(options.parallel + options.prefix_cache_entries);
  if (!unified) params.n_ctx = static_cast<uint32_t>(sequence_cells) * params.n_seq_max;
  // One pool of worker threads; each step uses as many of them as --threads says, or as many
  // as the thread tuner finds fastest right now (--threads 0).
  const int pool_threads = options.threads > 0 ? options.threads : cores;
  params.n_threads = pool_threads;
  params.n_threads_batch = pool_threads;
  params.kv_unified = unified;
  params.no_perf = true;
  switch (options.flash_attention) {
    case EngineOptions::FlashAttention::kAuto:
      params.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_AUTO;
      break;
    case EngineOptions::FlashAttention::kOn:
      params.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_ENABLED;
      break;
    case EngineOptions::FlashAttention::kOff:
      params.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_DISABLED;
      break;
  }
  const auto storage = [](EngineOptions::CacheType type) {
    return type == EngineOptions::CacheType::kQ8_0 ? GGML_TYPE_Q8_0 : GGML_TYPE_F16;
  };
  params.type_k = storage(options.key_type);
  params.type_v = storage(options.value_type);
  // A quantized row is cut into heads, so a block must not straddle two. llama.cpp checks this
  // only for flash attention; its plain kernel cannot view such a row head by head either.
  for (const auto& [type, head, what] :
       {std::tuple{params.type_k, (*model)->key_head_size(), "keys"},
        std::tuple{params.type_v, (*model)->value_head_size(), "values"}}) {
    const auto block = static_cast<int>(ggml_blck_size(type));
    if (head % block != 0) {
      return Error::invalid(
          fmt::format("the KV cache cannot hold this model's {} in {}: a head has "
                      "{} numbers, not a multiple of its block of {}",
                      what, ggml_type_name(type), head, block));
    }
  }
  llama_context* context = llama_init_from_model((*model)->raw(), params);
  if (context == nullptr) {
    return Error::make(ErrorCode::kInternal,
                       "cannot create a llama.cpp context: " + last_llama_error());
  }
  // What a request may use: all cells (unified) or its own buffer's.
  const int request_cells =
      static_cast<int>(unified ? llama_n_ctx(context) : llama_n_ctx_seq(context));
  if (unified) options.context_cells = request_cells;
  ggml_threadpool_params pool_params = ggml_threadpool_params_default(pool_threads);
  ggml_threadpool* threadpool = ggml_threadpool_new(&pool_params);
  if (threadpool == nullptr) {
    llama_free(context);
    return Error::make(ErrorCode::kInternal, "cannot start the engine's worker threads");
  }
  llama_attach_threadpool(context, threadpool, threadpool);

  std::unique_ptr<LlamaEngine> engine(new LlamaEngine(options));
  engine->model_ = std::move(model).value();
  engine->max_context_ = std::min(engine->model_->context_length(), request_cells);
  engine->model_card_ = engine->model_->card();
  engine->model_card_.context_length = engine->max_context_;
  engine->loop_ = std::make_unique<Loop>(LoopSetup{.model = *engine->model_,
                                                   .options = engine->options_,
                                                   .max_context = engine->max_context_,
                                                   .admission = engine->admission_,
                                                   .context = context,
                                                   .threadpool = threadpool,
                                                   .pool_threads = pool_threads});
  spdlog::info(
      "engine: {} ({}); {} threads, {} parallel sequences, {} tokens per step; KV: {} cells, {}; "
      "keys {}, values {}; flash attention {}{}; weights {}",
      engine->model_card_.id, engine->model_card_.description,
      options.threads > 0 ? std::to_string(options.threads) : "auto 1-" + std::to_string(cores),
      options.parallel, options.step_tokens, llama_n_ctx(context),
      unified ? "one buffer for all"
              : fmt::format("a buffer of {} for each sequence and each of {} cached prefixes",
                            request_cells, options.prefix_cache_entries),
      ggml_type_name(params.type_k), ggml_type_name(params.type_v),
      llama_flash_attn_type_name(params.flash_attn_type),
      !unified && options.flash_attention == EngineOptions::FlashAttention::kOff
          ? (options.shared_prefix_attention ? "; shared-prefix (cascade) attention"
                                             : "; shared-prefix attention off")
          : "",
      options.weight_repack ? "repacked where this CPU has a faster layout" : "as stored");

  LlamaEngine* self = engine.get();
  engine->thread_ = std::thread([self] {
    if (self->options_.warmup) self->loop_->warm_up();
    self->ready_ = true;
    self->loop_->run();
  });
  return engine;
}

const ModelCard& LlamaEngine::model() const {
  return model_card_;
}

Result<Engine::RequestId> LlamaEngine::submit(GenerationRequest request,
                                              std::shared_ptr<GenerationSink> sink) {
  if (stopping_.load()) {
    return Error::make(ErrorCode::kUnavailable, "the server is shutting down");
  }
  auto sequence = std::make_unique<Sequence>();
  if (request.chat) {
    auto tokens = model_->tokenize_chat(request.messages);
    if (!tokens) return tokens.error();
    sequence->tokens = std::move(tokens).value();
  } else {
    sequence->tokens = model_->tokenize(request.prompt, /*add_bos=*/true, /*parse_special=*/true);
  }
  // A resumed stream: the answer so far follows the prompt, as plain text.
  const std::vector<Token> continued =
      model_->tokenize(request.continuation, /*add_bos=*/false, /*parse_special=*/false);
  sequence->tokens.insert(sequence->tokens.end(), continued.begin(), continued.end());
  const int prompt = static_cast<int>(sequence->tokens.size());
  if (prompt == 0)
    return Error::invalid("the prompt is empty", request.chat ? "messages" : "prompt");
  if (prompt >= max_context_) {
    return Error{ErrorCode::kTooLarge,
                 fmt::format("the prompt is {} tokens; this model's context holds {} tokens "
                             "(prompt and output together)",
                             prompt, max_context_),
                 request.chat ? "messages" : "prompt"};
  }
  const int room = max_context_ - prompt;
  const int wanted = request.max_tokens > 0 ? request.max_tokens : options_.default_max_tokens;
  // The answer so far counts in max_tokens (at least one more token: its text may tokenize
  // into more tokens than the engine that produced it generated).
  sequence->max_new = std::min(std::max(wanted - static_cast<int>(continued.size()), 1), room);
  sequence->continued = static_cast<int>(continued.size());
  sequence->prompt_size = sequence->tokens.size();
  sequence->cells = prompt + sequence->max_new;
  sequence->tokens.reserve(sequence->prompt_size + static_cast<std::size_t>(sequence->max_new));

  // Early refusal: a full queue for this class, or a deadline that cannot be met.
  if (auto refusal = admission_.enter(request.priority, request.deadline)) {
    refusal->error.retry_after_s = static_cast<int>(refusal->retry_after.count());
    return refusal->error;
  }

  const std::uint32_t seed =
      request.sampling.seed.value_or(static_cast<std::uint32_t>(std::random_device{}()));
  sequence->sampler =
      std::make_unique<Sampler>(*model_, request.sampling, request.ignore_eos, seed);
  sequence->stop = StopMatcher(request.stop);
  sequence->counted_waiting = true;
  if (!request.background) sequence->foreground = process_compute_gate().foreground();
  sequence->id = next_id_++;
  sequence->submitted = Clock::now();
  sequence->request = std::move(request);
  sequence->sink = std::move(sink);
  const RequestId id = sequence->id;
  loop_->enqueue(std::move(sequence));
  return id;
}

void LlamaEngine::cancel(RequestId id) {
  loop_->cancel(id);
}

EngineStats LlamaEngine::stats() const {
  EngineStats stats = loop_->stats();
  stats.slots = options_.parallel;
  return stats;
}

void LlamaEngine::shutdown() {
  if (stopping_.exchange(true)) return;
  ready_ = false;
  if (loop_) loop_->request_stop();
  if (thread_.joinable()) thread_.join();
}

void LlamaEngine::clear_prefix_cache() {
  loop_->run_on_engine([this] { loop_->clear_prefix_cache(); });
}

int LlamaEngine::sequences_holding_cells() {
  int holding = 0;
  loop_->run_on_engine([&] { holding = loop_->sequences_holding_cells(); });
  return holding;
}

}  // namespace supportd::engine::llama
