// Where the tests find what the build made and what the checkout holds: the supportd binary,
// the source tree, the build's test-data folder. The paths are compiled into test_paths.cpp
// alone, so that every other test file compiles to the same command in any checkout (ccache
// hits across clones: CI builds a fresh clone each time).
#pragma once

#include <string>

namespace supportd::testing {

// The built `supportd` executable of this build tree.
const std::string& supportd_binary();
// The checkout's root (its tests/, scripts/, web/...).
const std::string& source_dir();
// The build tree's test-data folder (synthesized models, test servers' files); may not exist yet.
const std::string& test_data_dir();
// ../shared/data beside the checkout (banking77, nab, opentelemetry-proto): read, never copied.
std::string shared_data_dir();

}  // namespace supportd::testing
