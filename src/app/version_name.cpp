// The version-name rule (see version_name.h).
#include "app/version_name.h"

namespace supportd::app {

bool is_version_name(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  return name.find_first_not_of(
             "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
             "._-") == std::string::npos;
}

const char* const kVersionNameRule = "a version's name is 1 to 64 letters, digits, '.', '-' or '_'";

bool names_a_version(const std::string& text) {
  const auto equals = text.find('=');
  return equals != std::string::npos && is_version_name(text.substr(0, equals));
}

}  // namespace supportd::app
