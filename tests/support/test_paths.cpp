// The paths of test_paths.h, from the compile definitions of this file's own library
// (tests/CMakeLists.txt: supportd_test_paths).
#include "test_paths.h"

namespace supportd::testing {

const std::string& supportd_binary() {
  static const std::string path = SUPPORTD_BINARY;
  return path;
}

const std::string& source_dir() {
  static const std::string path = SUPPORTD_SOURCE_DIR;
  return path;
}

const std::string& test_data_dir() {
  static const std::string path = SUPPORTD_TEST_DATA_DIR;
  return path;
}

std::string shared_data_dir() {
  return source_dir() + "/../shared/data";
}

}  // namespace supportd::testing
