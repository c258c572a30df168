// What a model version's name is, and whether a `--model`/`--upstream` value names one
// ("NAME=PATH") or is a bare path or URL: the rule serve's option reading and the model versions
// (model_versions.h) share, kept apart so that reading options needs nothing of the models.
// Thread-safety: pure functions.
#pragma once

#include <string>

namespace supportd::app {

// True when `name` is a valid version name: 1 to 64 letters, digits, '.', '-' or '_'.
bool is_version_name(const std::string& name);
// That rule said for people, for error messages.
extern const char* const kVersionNameRule;

// True when `text` names a version as a `--model NAME=PATH` would (text before an '=' that is
// a valid name); a bare path is not.
bool names_a_version(const std::string& text);

}  // namespace supportd::app
