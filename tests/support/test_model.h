// Models for tests: synthesized once into the build tree and shared by every test process.
#pragma once

#include <string>

namespace supportd::testing {

// Path of a synthesized model of `preset` and `type`, creating it on first use (safe when
// several test processes ask at once).
// `shaped` false: every token may be sampled, invalid UTF-8 fragments included.
std::string synthesized_model(const std::string& preset = "tiny", const std::string& type = "f16",
                              bool shaped = true);

}  // namespace supportd::testing
