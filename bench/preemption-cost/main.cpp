// What pausing a running sequence costs, two ways, on a real llama.cpp context:
//   save:      llama_state_seq_get_data to host memory, free the cells, later set_data back;
//   recompute: free the cells, later prefill every token again.
// Prints milliseconds per pause+resume for several sequence lengths, and the ratio.
//   usage: bench_preemption_cost MODEL.gguf [threads]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "ggml-cpu.h"
#include "llama.h"

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

bool prefill(llama_context* context, const std::vector<llama_token>& tokens, int batch_size) {
  llama_batch batch = llama_batch_init(batch_size, 0, 1);
  bool ok = true;
  for (std::size_t at = 0; ok && at < tokens.size(); at += static_cast<std::size_t>(batch_size)) {
    batch.n_tokens = 0;
    for (std::size_t i = at; i < tokens.size() && i < at + static_cast<std::size_t>(batch_size);
         ++i) {
      const int k = batch.n_tokens++;
      batch.token[k] = tokens[i];
      batch.pos[k] = static_cast<llama_pos>(i);
      batch.n_seq_id[k] = 1;
      batch.seq_id[k][0] = 0;
      batch.logits[k] = i + 1 == tokens.size();
    }
    ok = llama_decode(context, batch) == 0;
  }
  llama_batch_free(batch);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODEL.gguf [threads]\n", argv[0]);
    return 2;
  }
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  llama_log_set([](ggml_log_level, const char*, void*) {}, nullptr);
  llama_backend_init();
  llama_model* model = llama_model_load_from_file(argv[1], llama_model_default_params());
  if (model == nullptr) {
    std::fprintf(stderr, "cannot load %s\n", argv[1]);
    return 1;
  }
  llama_context_params params = llama_context_default_params();
  params.n_ctx = 4096;
  params.n_batch = 512;
  params.n_seq_max = 2;
  params.kv_unified = true;
  params.n_threads = params.n_threads_batch = threads;
  llama_context* context = llama_init_from_model(model, params);
  llama_memory_t memory = llama_get_memory(context);
  const int vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));

  std::printf("%8s %14s %14s %10s %12s\n", "tokens", "save ms", "recompute ms", "ratio",
              "state bytes");
  for (int n : {64, 256, 1024, 2048}) {
    std::vector<llama_token> tokens(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
      tokens[static_cast<std::size_t>(i)] = 100 + (i * 7919) % (vocab - 200);
    llama_memory_clear(memory, true);
    if (!prefill(context, tokens, 512)) return 1;

    // save: copy out, free, copy back
    const auto save_start = Clock::now();
    const std::size_t size = llama_state_seq_get_size(context, 0);
    std::vector<std::uint8_t> state(size);
    llama_state_seq_get_data(context, state.data(), size, 0);
    llama_memory_seq_rm(memory, 0, -1, -1);
    const std::size_t read = llama_state_seq_set_data(context, state.data(), size, 0);
    const double save_ms = ms_since(save_start);
    if (read == 0 || llama_memory_seq_pos_max(memory, 0) != n - 1) {
      std::fprintf(stderr, "restore failed at %d tokens\n", n);
      return 1;
    }

    // recompute: free, prefill again
    const auto recompute_start = Clock::now();
    llama_memory_seq_rm(memory, 0, -1, -1);
    if (!prefill(context, tokens, 512)) return 1;
    const double recompute_ms = ms_since(recompute_start);

    std::printf("%8d %14.2f %14.2f %9.0fx %12zu\n", n, save_ms, recompute_ms,
                recompute_ms / save_ms, size);
  }
  llama_free(context);
  llama_model_free(model);
  return 0;
}
