// Models for tests: synthesized once into the build tree and shared by every test process.
#pragma once

#include <cstdint>
#include <string>

namespace supportd::testing {

// Path of a synthesized model of `preset` and `type`, creating it on first use (safe when
// several test processes ask at once).
// `shaped` false: every token may be sampled, invalid UTF-8 fragments included.
// `seed`: of the random weights; another seed makes another file (another SHA-256), e.g. a
// second model version.
std::string synthesized_model(const std::string& preset = "tiny", const std::string& type = "f16",
                              bool shaped = true, std::uint64_t seed = 42);

}  // namespace supportd::testing
