// How an in-process llama.cpp engine is set up (LlamaEngine::create), and the bounds it
// accepts. The bounds are preconditions, checked once by validate() and never clamped: a value
// out of range is refused with an error naming the option, so the CLI and the config file
// (app/serve_config) can mirror them and say the same thing.
// Thread-safety: plain data; validate() is a pure function.
#pragma once

#include <string>

#include "core/status.h"
#include "sched/admission_control.h"
#include "sched/scheduler.h"

namespace supportd::engine::llama {

struct EngineOptions {
  std::string model_path;
  std::string alias;  // the id clients use; default: the file name without .gguf
  // >= 0: compute threads for llama.cpp; 0: a pool of one per core, each step using as many
  // as the thread tuner finds fastest now.
  int threads = 0;
  int context_cells = 16384;      // >= 256: KV cells for the running sequences (see kv_layout)
  int parallel = 16;              // 1..128: sequences running at once
  int step_tokens = 256;          // >= 16: tokens per llama_decode call (decode + prefill chunks)
  int default_max_tokens = 1024;  // >= 1: when a request does not say
  // 0..128: cached prefixes (each holds a sequence id). kPerSequence uses at most `parallel`.
  int prefix_cache_entries = 32;
  // >= 0; unified: KV cells the prefix cache may hold, 0: a quarter of context_cells.
  // kPerSequence: unused (each cached prefix holds one buffer).
  int prefix_cache_cells = 0;
  // How the KV cache is laid out. kUnified (the default): one buffer of context_cells for all,
  // prefixes shared in place, and one request may fill it (a desk prompt with articles and
  // history can be long); but every row of every step scans every cell in use, cached
  // conversations included. kPerSequence: a buffer of context_cells / parallel cells for
  // each running sequence and each cached prefix (at most `parallel` of them, so the cache adds
  // up to context_cells again); a step's attention reads only each sequence's own buffer, and
  // a prefix is shared by copying its cells: faster steps when requests are short
  // (docs/performance.md measures both), llama-server's layout with -np.
  enum class KvLayout { kUnified, kPerSequence } kv_layout = KvLayout::kUnified;
  // Attention kernel: llama.cpp's flash attention, its plain one (matrix products over each
  // sequence's cells), or llama.cpp's choice (kAuto: flash where the backend supports it).
  // Which is faster depends on the layout: flash skips masked cells of a unified buffer; plain
  // decodes faster per sequence on CPU (docs/performance.md).
  enum class FlashAttention { kAuto, kOn, kOff } flash_attention = FlashAttention::kAuto;
  // How the KV cache stores keys and values: f16, or q8_0 (half the memory; llama.cpp's plain
  // attention reads q8_0 keys faster on CPU, and only its flash attention reads q8_0 values:
  // value_type kQ8_0 requires flash_attention kOn or kAuto).
  enum class CacheType { kF16, kQ8_0 } key_type = CacheType::kF16, value_type = CacheType::kF16;
  // Cascade attention (kPerSequence with plain attention): when every sequence of a step
  // begins with the same tokens (a shared system prompt), attention reads that beginning's
  // keys and values once for all of them, from one buffer, instead of once per sequence.
  bool shared_prefix_attention = true;
  // Weights laid out at load for the CPU's fastest kernels (llama.cpp's extra buffer types;
  // supportd's patch adds Q8_0 on AVX-512 VNNI). Off: multiplied as stored in the file.
  bool weight_repack = true;
  bool warmup = true;  // decode a representative batch before ready()
  // When a request that outranks a running one finds no room: pause the running one by
  // saving its KV to memory (kSave), by dropping it and recomputing later (kRecompute), or not
  // at all (kOff). kSave is the default by measurement (bench/preemption-cost).
  enum class Preemption { kOff, kSave, kRecompute } preemption = Preemption::kSave;
  // Bounds: sched::validate(SchedulerOptions). Its aging is admission's too (create copies it).
  sched::SchedulerOptions scheduling;
  // Bounds: sched::validate(AdmissionOptions); its aging is replaced by scheduling.aging.
  sched::AdmissionOptions admission;
};

// The highest `parallel` and `prefix_cache_entries` (their sum is llama.cpp's sequence ids).
inline constexpr int kMaxParallel = 128;
inline constexpr int kMaxPrefixCacheEntries = 128;

// Ok when every option is within the bounds stated above; else Error::invalid whose message
// names the first option out of range (its field name, e.g. "parallel", also the error's
// param) and the range.
Status validate(const EngineOptions& options);

}  // namespace supportd::engine::llama
