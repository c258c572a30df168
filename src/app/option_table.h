// A command's options, each declared once, in one place: its name (the flag is --name), the
// section of the config file it sits in (its key there is section.name), its help, its default
// and what it accepts (a range, named choices, a check of its own). From those declarations
// come the CLI11 flags (grouped by section in --help, defaults and ranges shown), the config
// file's keys (TOML), and the validation, done once, after the command line and the file are
// read. Declaring an option is all it takes to add one:
//
//   OptionTable table(command);                       // a CLI11 (sub)command
//   table.config_file_option("config", "TOML config file ...");
//   OptionSection engine = table.section("engine", "Engine");
//   engine.value("parallel", options.parallel, 16, "Sequences decoded together").between(1, 128);
//   engine.choice("kv-layout", options.kv_layout, kKvLayouts, KvLayout::kUnified, "KV layout");
//   engine.duration<std::chrono::milliseconds>("aging-ms", options.aging, 10000, "...");
//   table.rule([&] { return ...; });                  // a check across options
//   ... CLI11 parses ...
//   Status status = table.finish();                   // file, checks, targets written, rules
//
// A value's source decides how errors name it: "--parallel must be between 1 and 128" for a
// flag, "serve.toml:3: 'engine.parallel' must be between 1 and 128" for the file's. Flags win
// over the file, the file over the defaults. Until finish() succeeds, the targets hold
// whatever they held before; after it, every target holds its option's value.
// Thread-safety: none; build, parse and finish on one thread (main's).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "app/choices.h"
#include "core/status.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace supportd::app {

class ConfigValue;  // a value read from the config file (defined in option_table.cpp)
class OptionTable;

// What every declared option has, whatever its type.
class DeclaredOption {
 public:
  virtual ~DeclaredOption();
  DeclaredOption(const DeclaredOption&) = delete;
  DeclaredOption& operator=(const DeclaredOption&) = delete;

  const std::string& name() const { return name_; }  // "parallel"
  const std::string& key() const { return key_; }    // "engine.parallel", in the config file
  std::string flag() const { return "--" + name_; }  // "--parallel"
  const std::string& help() const { return help_; }  // as --help shows it (range included)
  // True when the command line or the config file gave it (false: its default stands).
  bool given() const;
  // How errors name it: its flag, or "FILE:LINE: 'KEY'" when its value came from the file.
  std::string shown() const;
  // The placeholder --help shows for the value (e.g. SECONDS, or a|b|c for choices).
  void set_placeholder(const std::string& placeholder);

 protected:
  DeclaredOption(std::string name, std::string section, std::string help);
  // Adds the accepted range to the help: " [LOW..HIGH]" or " [>= LOW]".
  void show_range(const std::string& range);
  void set_unit(std::string unit) { unit_ = std::move(unit); }
  const std::string& unit_name() const { return unit_; }
  void attach(CLI::Option* option, const std::string& group);

 private:
  friend class OptionTable;
  virtual void add_to(CLI::App& command, const std::string& group) = 0;
  // Takes the config file's value; false when it has the wrong type or does not fit the type.
  virtual bool read(const ConfigValue& value) = 0;
  // The option's own checks (when given), then the target written (which may refuse too).
  virtual Status finish() = 0;

  std::string name_, key_, help_, unit_;
  CLI::Option* cli_ = nullptr;
  std::string file_;  // where the config file gave the value, when it did
  int line_ = 0;
};

// A declared option holding a T as the command line and the file give it: bool (a flag),
// int, std::uint16_t, std::size_t, double, std::string or std::vector<std::string> (the flag
// may be repeated; in the file, an array). The builders below add what it accepts.
template <typename T>
class Option final : public DeclaredOption {
 public:
  // Returns an error (naming the option with `shown`) when `value` is not acceptable.
  using Check = std::function<Status(const T& value, const std::string& shown)>;
  // Writes the checked value into its target, translating it (a name into an enum value, a
  // count into a duration); may refuse it too (an unknown name).
  using Store = std::function<Status(const T& value, const std::string& shown)>;

  Option(std::string name, std::string section, std::string help, T fallback, Store store)
      : DeclaredOption(std::move(name), std::move(section), std::move(help)),
        value_(std::move(fallback)),
        store_(std::move(store)) {}

  // Refuses a value below `low` or above `high`: "--flag must be between LOW and HIGH".
  Option& between(T low, T high) requires std::is_arithmetic_v<T>;
  // Refuses a value below `low`: "--flag must be at least LOW (UNIT)", or "must not be
  // negative" when `low` is 0.
  Option& at_least(T low) requires std::is_arithmetic_v<T>;
  // One more check, run after the earlier ones, only on a value given (defaults are trusted).
  Option& check(Check check) {
    checks_.push_back(std::move(check));
    return *this;
  }
  // What the number counts ("seconds", "ms"): shown as the value's placeholder in --help and
  // after the bound in range errors.
  Option& unit(std::string unit) requires std::is_arithmetic_v<T>;

  const T& value() const { return value_; }

 private:
  void add_to(CLI::App& command, const std::string& group) override;
  bool read(const ConfigValue& value) override;
  Status finish() override;

  T value_;
  Store store_;
  std::vector<Check> checks_;
};

// Declares options in one section of the config file (one group of --help). The declaring
// functions take the option's name, its target (where finish() writes the value), its
// default and its help, and return the option for the builders (between, at_least, check).
// REQUIRES: targets and choices outlive the table's finish().
class OptionSection {
 public:
  // A value taken as given (see Option for the types T may be).
  template <typename T>
  Option<T>& value(std::string name, T& target, std::type_identity_t<T> fallback,
                   std::string help) {
    return add<T>(std::move(name), std::move(help), std::move(fallback),
                  [&target](const T& value, const std::string&) -> Status {
                    target = value;
                    return {};
                  });
  }

  // One of named choices, given by name: "--flag must be a, b or c" otherwise.
  template <typename E>
  Option<std::string>& choice(std::string name, E& target, const Choices<E>& choices, E fallback,
                              std::string help) {
    Option<std::string>& option = add<std::string>(
        std::move(name), std::move(help), std::string(choices.name(fallback)),
        [&target, &choices](const std::string& value, const std::string& shown) -> Status {
          const E* chosen = choices.find(value);
          if (chosen == nullptr) return Error::invalid(shown + " must be " + choices.listed());
          target = *chosen;
          return {};
        });
    option.set_placeholder(choices.alternatives());
    return option;
  }

  // A whole number of `Unit`s (std::chrono::seconds or milliseconds), stored as a duration.
  template <typename Unit, typename Duration>
  Option<int>& duration(std::string name, Duration& target, int fallback, std::string help) {
    Option<int>& option = add<int>(std::move(name), std::move(help), fallback,
                                   [&target](const int& value, const std::string&) -> Status {
                                     target = std::chrono::duration_cast<Duration>(Unit(value));
                                     return {};
                                   });
    return option.unit(std::is_same_v<Unit, std::chrono::seconds> ? "seconds" : "ms");
  }

  // Text turned into a `Target` by `parse`; its refusal reads "--flag: <parse's message>".
  template <typename Target>
  Option<std::string>& parsed(std::string name, Target& target, std::string fallback,
                              std::function<Result<Target>(std::string_view)> parse,
                              std::string help) {
    return add<std::string>(
        std::move(name), std::move(help), std::move(fallback),
        [&target, parse](const std::string& value, const std::string& shown) -> Status {
          Result<Target> parsed = parse(value);
          if (!parsed) return Error::invalid(shown + ": " + parsed.error().message);
          target = std::move(parsed).value();
          return {};
        });
  }

 private:
  friend class OptionTable;
  OptionSection(OptionTable& table, std::string name, std::string title)
      : table_(table), name_(std::move(name)), title_(std::move(title)) {}

  template <typename T>
  Option<T>& add(std::string name, std::string help, T fallback, typename Option<T>::Store store) {
    auto option = std::make_unique<Option<T>>(std::move(name), name_, std::move(help),
                                              std::move(fallback), std::move(store));
    Option<T>& added = *option;
    adopt(std::move(option));
    return added;
  }
  void adopt(std::unique_ptr<DeclaredOption> option);

  OptionTable& table_;
  std::string name_;   // the config file's [name]
  std::string title_;  // the --help group
};

class OptionTable {
 public:
  // Options go on `command`, which must outlive the table.
  explicit OptionTable(CLI::App& command);
  ~OptionTable();

  // Declares options under [name] in the config file, shown under `title` in --help.
  OptionSection section(std::string name, std::string title);

  // Declares --NAME FILE, the config file (it must exist), and says in --help how its keys
  // are named.
  void config_file_option(const std::string& name, const std::string& help);
  // The config file given on the command line; empty when none.
  const std::string& config_file() const { return config_file_; }

  // A check across options (e.g. two that exclude each other), run by finish() after every
  // option's own checks, in the order declared. It sees the targets already written.
  void rule(std::function<Status()> check) { rules_.push_back(std::move(check)); }

  // Whether the option `name` was given. REQUIRES: it is declared.
  bool given(std::string_view name) const;

  // After CLI11 has parsed the command line: reads the config file (when given) for the
  // options not given as flags, runs every option's checks in declaration order, writes the
  // targets, then runs the rules. `elsewhere`: top-level keys of the file read by someone
  // else (e.g. [[api_keys]]). The first refusal is the result: the file's syntax errors,
  // unknown keys and values of the wrong type name the file and line; a refused value names
  // its flag (or the file, line and key it came from).
  Status finish(std::initializer_list<std::string_view> elsewhere = {});

  // Every declared option, in declaration order.
  std::vector<const DeclaredOption*> options() const;

 private:
  friend class OptionSection;
  void adopt(std::unique_ptr<DeclaredOption> option, const std::string& group);
  Status read_file(std::initializer_list<std::string_view> elsewhere);
  DeclaredOption* find_key(std::string_view key) const;

  CLI::App& command_;
  std::string config_file_;
  std::vector<std::unique_ptr<DeclaredOption>> options_;
  std::vector<std::function<Status()>> rules_;
};

}  // namespace supportd::app
