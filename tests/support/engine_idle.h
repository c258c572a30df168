// Waits for an engine to finish everything it holds. A sink hears of its request's end before
// the engine publishes that step's counts, so tests that read EngineStats after a request
// wait for this first.
#pragma once

#include <chrono>
#include <thread>

#include "engine/engine.h"

namespace supportd::testing {

// Polls until nothing runs or waits (at most ~5 s); returns the last stats read.
inline engine::EngineStats wait_until_idle(const engine::Engine& engine) {
  engine::EngineStats stats = engine.stats();
  for (int i = 0; i < 500 && stats.running + stats.waiting > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    stats = engine.stats();
  }
  return stats;
}

}  // namespace supportd::testing
