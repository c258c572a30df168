// The machinery behind OptionTable: registering each declared option with CLI11, reading the
// TOML config file into the options the command line left alone, and running every check
// once. CLI11 and toml++ stay in this file; the option types are instantiated at its end.
#include "app/option_table.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "app/toml_file.h"

namespace supportd::app {

class ConfigValue {
 public:
  explicit ConfigValue(const toml::node& node) : node(node) {}
  const toml::node& node;
};

namespace {

// Every value below `table`, with its dotted key ("engine.threads").
void collect_keys(const toml::table& table, const std::string& prefix,
                  std::vector<std::pair<std::string, const toml::node*>>& out) {
  for (const auto& [key, node] : table) {
    const std::string path =
        prefix.empty() ? std::string(key.str()) : prefix + "." + std::string(key.str());
    if (const auto* sub = node.as_table()) {
      collect_keys(*sub, path, out);
    } else {
      out.emplace_back(path, &node);
    }
  }
}

}  // namespace

// ---- DeclaredOption ----

DeclaredOption::DeclaredOption(std::string name, std::string section, std::string help)
    : name_(std::move(name)), key_(section + "." + name_), help_(std::move(help)) {}

DeclaredOption::~DeclaredOption() = default;

bool DeclaredOption::given() const {
  return (cli_ != nullptr && cli_->count() > 0) || !file_.empty();
}

std::string DeclaredOption::shown() const {
  if (file_.empty()) return flag();
  return fmt::format("{}:{}: '{}'", file_, line_, key_);
}

void DeclaredOption::set_placeholder(const std::string& placeholder) {
  cli_->type_name(placeholder);
}

void DeclaredOption::show_range(const std::string& range) {
  help_ += range;
  cli_->description(help_);
}

void DeclaredOption::attach(CLI::Option* option, const std::string& group) {
  cli_ = option;
  cli_->group(group);
}

// ---- Option<T> ----

template <typename T>
// The bodies below are guarded by `if constexpr` as well as constrained: clang 14 instantiates
// constrained members on the explicit instantiations at the end of this file (the fuzz build).
Option<T>& Option<T>::between(T low, T high) requires std::is_arithmetic_v<T> {
  if constexpr (std::is_arithmetic_v<T>) {
    show_range(fmt::format(" [{}..{}]", low, high));
    check([low, high](const T& value, const std::string& shown) -> Status {
      if (value >= low && value <= high) return {};
      return Error::invalid(fmt::format("{} must be between {} and {}", shown, low, high));
    });
  }
  return *this;
}

template <typename T>
Option<T>& Option<T>::at_least(T low) requires std::is_arithmetic_v<T> {
  if constexpr (std::is_arithmetic_v<T>) {
    show_range(fmt::format(" [>= {}]", low));
    check([this, low](const T& value, const std::string& shown) -> Status {
      if (value >= low) return {};
      if (low == 0) return Error::invalid(shown + " must not be negative");
      const std::string unit_text = unit_name().empty() ? "" : " (" + unit_name() + ")";
      return Error::invalid(fmt::format("{} must be at least {}{}", shown, low, unit_text));
    });
  }
  return *this;
}

template <typename T>
Option<T>& Option<T>::unit(std::string unit) requires std::is_arithmetic_v<T> {
  std::string placeholder = unit;
  std::transform(placeholder.begin(), placeholder.end(), placeholder.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  set_placeholder(placeholder);
  set_unit(std::move(unit));
  return *this;
}

template <typename T>
void Option<T>::add_to(CLI::App& command, const std::string& group) {
  CLI::Option* option = nullptr;
  if constexpr (std::is_same_v<T, bool>) {
    option = command.add_flag(flag(), value_, help());
  } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    // One value per occurrence; repeating the flag adds values.
    option = command.add_option(flag(), value_, help())->allow_extra_args(false);
  } else {
    option = command.add_option(flag(), value_, help())->capture_default_str();
  }
  attach(option, group);
}

template <typename T>
bool Option<T>::read(const ConfigValue& value) {
  return toml_value(value.node, value_);
}

template <typename T>
Status Option<T>::finish() {
  const std::string name = shown();
  if (given()) {
    for (const Check& check : checks_) {
      if (Status status = check(value_, name); !status) return status;
    }
  }
  return store_(value_, name);
}

template class Option<bool>;
template class Option<int>;
template class Option<std::uint16_t>;
template class Option<std::size_t>;
template class Option<double>;
template class Option<std::string>;
template class Option<std::vector<std::string>>;

// ---- OptionSection, OptionTable ----

void OptionSection::adopt(std::unique_ptr<DeclaredOption> option) {
  table_.adopt(std::move(option), fmt::format("{} [{}]", title_, name_));
}

OptionTable::OptionTable(CLI::App& command) : command_(command) {}

OptionTable::~OptionTable() = default;

OptionSection OptionTable::section(std::string name, std::string title) {
  return OptionSection(*this, std::move(name), std::move(title));
}

void OptionTable::adopt(std::unique_ptr<DeclaredOption> option, const std::string& group) {
  option->add_to(command_, group);
  options_.push_back(std::move(option));
}

void OptionTable::config_file_option(const std::string& name, const std::string& help) {
  command_.add_option("--" + name, config_file_, help)->check(CLI::ExistingFile);
  command_.footer(fmt::format(
      "Every option can also be set in the file of --{}: in the table named beside its group, "
      "by its name without the dashes. Flags win over the file, the file over the defaults.",
      name));
}

bool OptionTable::given(std::string_view name) const {
  for (const auto& option : options_) {
    if (option->name() == name) return option->given();
  }
  return false;
}

DeclaredOption* OptionTable::find_key(std::string_view key) const {
  for (const auto& option : options_) {
    if (option->key() == key) return option.get();
  }
  return nullptr;
}

std::vector<const DeclaredOption*> OptionTable::options() const {
  std::vector<const DeclaredOption*> out;
  for (const auto& option : options_)
    out.push_back(option.get());
  return out;
}

Status OptionTable::read_file(std::initializer_list<std::string_view> elsewhere) {
  Result<toml::table> parsed = parse_toml_file(config_file_);
  if (!parsed) return parsed.error();
  toml::table& table = *parsed;
  for (std::string_view key : elsewhere)
    table.erase(key);
  std::vector<std::pair<std::string, const toml::node*>> keys;
  collect_keys(table, "", keys);
  for (const auto& [key, node] : keys) {
    const int line = static_cast<int>(node->source().begin.line);
    DeclaredOption* option = find_key(key);
    if (option == nullptr)
      return Error::invalid(fmt::format("{}:{}: unknown setting '{}'", config_file_, line, key));
    if (option->cli_->count() > 0) continue;  // the flag wins
    if (!option->read(ConfigValue(*node))) {
      return Error::invalid(fmt::format("{}:{}: '{}' has the wrong type or is out of range",
                                        config_file_, line, key));
    }
    option->file_ = config_file_;
    option->line_ = line;
  }
  return {};
}

Status OptionTable::finish(std::initializer_list<std::string_view> elsewhere) {
  if (!config_file_.empty()) {
    if (Status status = read_file(elsewhere); !status) return status;
  }
  for (const auto& option : options_) {
    if (Status status = option->finish(); !status) return status;
  }
  for (const auto& rule : rules_) {
    if (Status status = rule(); !status) return status;
  }
  return {};
}

}  // namespace supportd::app
