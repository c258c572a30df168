// The synthesized test models: made once per preset and type into build/test-data (written
// under a temporary name and renamed, so concurrent tests end with one whole file) and reused.
#include "test_model.h"

#include <unistd.h>

#include <filesystem>
#include <stdexcept>

#include "model/synth.h"
#include "test_paths.h"

namespace supportd::testing {

std::string synthesized_model(const std::string& preset, const std::string& type, bool shaped,
                              std::uint64_t seed) {
  const std::filesystem::path directory = test_data_dir();
  std::filesystem::create_directories(directory);
  const std::string seeded = seed == 42 ? "" : "-seed" + std::to_string(seed);
  const std::string path =
      (directory / (preset + "-" + type + (shaped ? "" : "-unshaped") + seeded + ".gguf")).string();
  if (std::filesystem::exists(path)) return path;
  const std::string partial = path + ".partial." + std::to_string(getpid());
  auto report = model::synthesize({preset, type, partial, seed, false, shaped});
  if (!report)
    throw std::runtime_error("cannot synthesize the test model: " + report.error().message);
  std::filesystem::rename(partial, path);  // atomic: concurrent writers end with one whole file
  return path;
}

}  // namespace supportd::testing
