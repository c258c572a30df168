// Helpers shared by the store tests: scratch directories, a fixed signer, and the factory
// the SessionStore contract tests (session_store_contract.cpp) run against.
#pragma once

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>

#include "store/session_id.h"
#include "store/session_store.h"

namespace supportd::store::testing {

// A fresh directory under /tmp, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("supportd-store-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// `prefix` followed by random hex: a tenant or user no other test (or run) uses.
inline std::string unique_name(const std::string& prefix) {
  static std::mt19937_64 random(std::random_device{}());
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(random()));
  return prefix + "-" + hex;
}

inline SessionSigner test_signer() {
  return std::move(*SessionSigner::create("a test secret that is long enough!"));
}

// Opens a store keeping its files in `dir`; opening again with the same dir is a restart.
// Every call must give a store over the same backing data (servers included).
struct StoreFactory {
  std::string name;
  std::function<std::unique_ptr<SessionStore>(const std::filesystem::path& dir)> open;
};

}  // namespace supportd::store::testing
