// The named values of a setting, declared once: an enum's (or a switch's) names as users type
// them on the command line and in the config file, and the names shown back in help and errors.
//
//   const Choices<KvLayout> kKvLayouts{{"unified", KvLayout::kUnified},
//                                      {"per-sequence", KvLayout::kPerSequence}};
//   kKvLayouts.find("unified")   -> &KvLayout::kUnified (null for an unknown name)
//   kKvLayouts.name(value)       -> "unified"
//   kKvLayouts.listed()          -> "unified or per-sequence"
//
// A choice marked `listed = false` is accepted but not offered (an alias kept for old
// spellings). Thread-safety: immutable after construction.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace supportd::app {

template <typename T>
class Choices {
 public:
  struct Choice {
    std::string_view name;
    T value;
    bool listed = true;  // false: accepted, but not named in help and errors
  };

  // REQUIRES: at least one listed choice; names are unique.
  Choices(std::initializer_list<Choice> choices) : choices_(choices) {}

  // The value named `name`, or null when no choice has that name.
  const T* find(std::string_view name) const {
    for (const Choice& choice : choices_) {
      if (choice.name == name) return &choice.value;
    }
    return nullptr;
  }

  // The first listed name of `value`; empty when no choice has that value.
  std::string_view name(const T& value) const {
    for (const Choice& choice : choices_) {
      if (choice.listed && choice.value == value) return choice.name;
    }
    return {};
  }

  // The listed names joined for a sentence ("a, b or c") or for a placeholder ("a|b|c").
  std::string listed() const { return join(", ", " or "); }
  std::string alternatives() const { return join("|", "|"); }

 private:
  std::string join(std::string_view separator, std::string_view last_separator) const {
    std::vector<std::string_view> names;
    for (const Choice& choice : choices_) {
      if (choice.listed) names.push_back(choice.name);
    }
    std::string text;
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (i > 0) text += i + 1 == names.size() ? last_separator : separator;
      text += names[i];
    }
    return text;
  }

  std::vector<Choice> choices_;
};

}  // namespace supportd::app
