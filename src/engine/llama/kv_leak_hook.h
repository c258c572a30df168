// Test-only: a deliberate KV cell leak, to prove the leak watchdog sees one. Declared here,
// defined in kv_leak_hook.cpp, which only the supportd_llama_test_hooks library holds (tests
// link it; the supportd executable does not, so a serving process cannot call it).
// Thread-safety: any thread; it runs on the engine thread and waits.
#pragma once

#include "engine/llama/llama_engine.h"

namespace supportd::engine::llama {

// Copies a prefix-cache entry's KV cells into a free sequence id and never frees that id
// (engine stats: kv_cells_leaked grows). False when the prefix cache is empty (run a request
// first) or no sequence id is free.
bool leak_kv_cells(LlamaEngine& engine);

}  // namespace supportd::engine::llama
