// OptionTable, the one-declaration-per-option machinery behind `serve`: flags and config-file
// keys made from one declaration, flags winning over the file, ranges, named choices (with
// quiet aliases), durations, parsed values, repeated flags, rules across options, and how each
// refusal names the flag or the file and line.
#include <gtest/gtest.h>

#include <charconv>
#include <chrono>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/option_table.h"
#include "command_line.h"

namespace supportd::app {
namespace {

using testing::ConfigFile;

enum class Colour { kRed, kGreen };
const Choices<Colour> kColours{
    {"red", Colour::kRed}, {"green", Colour::kGreen}, {"verde", Colour::kGreen, false}};

// What the declarations below write.
struct Settings {
  int count = -100;
  std::size_t bytes = 0;
  double ratio = 0;
  bool loud = false;
  std::string name;
  Colour colour = Colour::kRed;
  std::chrono::milliseconds wait{0};
  std::vector<std::string> tags;
  int even = 0;
};

Result<int> parse_even(std::string_view text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value % 2 != 0)
    return Error::invalid("'" + std::string(text) + "' is not an even number");
  return value;
}

// A command with a few options of every kind; `run` parses `args` and finishes the table.
class Command {
 public:
  Command() {
    table_.config_file_option("config", "config file");
    OptionSection general = table_.section("general", "General");
    general.value("count", settings.count, 3, "how many").between(1, 10);
    general.value("bytes", settings.bytes, 2048, "how large").at_least(1024);
    general.value("ratio", settings.ratio, 0.5, "a share").between(0.0, 1.0);
    general.value("loud", settings.loud, false, "say more");
    general.value("name", settings.name, "plain", "a name")
        .check([](const std::string& name, const std::string& shown) -> Status {
          if (!name.empty()) return {};
          return Error::invalid(shown + " must not be empty");
        });
    OptionSection other = table_.section("other", "Other");
    other.choice("colour", settings.colour, kColours, Colour::kGreen, "a colour");
    other.duration<std::chrono::seconds>("wait", settings.wait, 2, "how long").at_least(1);
    other.value("tag", settings.tags, {}, "a tag (repeat for more)");
    other.parsed<int>("even", settings.even, "4", parse_even, "an even number");
    table_.rule([this] {
      if (settings.loud && settings.count > 5)
        return Status(Error::invalid("--loud takes --count 5 at most"));
      return Status();
    });
  }

  Status run(const std::vector<std::string>& args) {
    if (Status parsed = testing::parse_command_line(app_, args); !parsed) return parsed;
    return table_.finish();
  }

  std::string help() const { return app_.help(); }
  const OptionTable& table() const { return table_; }

  Settings settings;

 private:
  CLI::App app_{"test command"};
  OptionTable table_{app_};
};

std::string message(const Status& status) {
  return status.ok() ? "(accepted)" : status.error().message;
}

TEST(ConfigOptionTable, DefaultsAreWrittenToTheTargets) {
  Command command;
  ASSERT_TRUE(command.run({}).ok());
  const Settings& s = command.settings;
  EXPECT_EQ(s.count, 3);
  EXPECT_EQ(s.bytes, 2048u);
  EXPECT_EQ(s.ratio, 0.5);
  EXPECT_FALSE(s.loud);
  EXPECT_EQ(s.name, "plain");
  EXPECT_EQ(s.colour, Colour::kGreen);
  EXPECT_EQ(s.wait, std::chrono::seconds(2));
  EXPECT_TRUE(s.tags.empty());
  EXPECT_EQ(s.even, 4);
}

TEST(ConfigOptionTable, FlagsAreTranslatedIntoTheirTargets) {
  Command command;
  ASSERT_TRUE(command
                  .run({"--count", "7", "--loud=false", "--colour", "red", "--wait", "3", "--tag",
                        "a", "--tag", "b", "--even", "8", "--name", "x"})
                  .ok());
  const Settings& s = command.settings;
  EXPECT_EQ(s.count, 7);
  EXPECT_FALSE(s.loud);
  EXPECT_EQ(s.colour, Colour::kRed);
  EXPECT_EQ(s.wait, std::chrono::milliseconds(3000));
  EXPECT_EQ(s.tags, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(s.even, 8);
  EXPECT_EQ(s.name, "x");
  EXPECT_TRUE(command.table().given("count"));
  EXPECT_FALSE(command.table().given("bytes"));
}

TEST(ConfigOptionTable, EveryRefusalNamesTheFlag) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--count", "0"}, "--count must be between 1 and 10"},
      {{"--count", "11"}, "--count must be between 1 and 10"},
      {{"--bytes", "1000"}, "--bytes must be at least 1024"},
      {{"--ratio", "1.5"}, "--ratio must be between 0 and 1"},
      {{"--wait", "0"}, "--wait must be at least 1 (seconds)"},
      {{"--colour", "blue"}, "--colour must be red or green"},
      {{"--name", ""}, "--name must not be empty"},
      {{"--even", "3"}, "--even: '3' is not an even number"},
      {{"--loud", "--count", "6"}, "--loud takes --count 5 at most"},
  };
  for (const auto& [args, expected] : cases) {
    Command command;
    EXPECT_EQ(message(command.run(args)), expected) << args.front();
  }
}

TEST(ConfigOptionTable, AQuietAliasIsAcceptedButNeverOffered) {
  Command command;
  ASSERT_TRUE(command.run({"--colour", "verde"}).ok());
  EXPECT_EQ(command.settings.colour, Colour::kGreen);
  EXPECT_EQ(kColours.name(Colour::kGreen), "green");
  EXPECT_EQ(command.help().find("verde"), std::string::npos) << command.help();
}

TEST(ConfigOptionTable, TheFileGivesEveryKindOfValueUnderItsSection) {
  const ConfigFile file(
      "[general]\ncount = 9\nbytes = 4096\nratio = 0.25\nloud = false\nname = \"n\"\n"
      "[other]\ncolour = \"red\"\nwait = 5\ntag = [\"x\", \"y\"]\neven = \"6\"\n");
  Command command;
  ASSERT_TRUE(command.run({"--config", file.path()}).ok());
  const Settings& s = command.settings;
  EXPECT_EQ(s.count, 9);
  EXPECT_EQ(s.bytes, 4096u);
  EXPECT_EQ(s.ratio, 0.25);
  EXPECT_EQ(s.name, "n");
  EXPECT_EQ(s.colour, Colour::kRed);
  EXPECT_EQ(s.wait, std::chrono::seconds(5));
  EXPECT_EQ(s.tags, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(s.even, 6);
  EXPECT_TRUE(command.table().given("count"));
}

TEST(ConfigOptionTable, AFlagWinsOverTheFileEvenWhenTheFileIsWrongThere) {
  const ConfigFile file("[general]\ncount = 9\nbytes = \"not a number\"\n");
  Command command;
  ASSERT_TRUE(command.run({"--config", file.path(), "--count", "2", "--bytes", "5000"}).ok());
  EXPECT_EQ(command.settings.count, 2);
  EXPECT_EQ(command.settings.bytes, 5000u);
}

TEST(ConfigOptionTable, TheFilesRefusalsNameFileLineAndKey) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"[general]\ncount = 20\n", ":2: 'general.count' must be between 1 and 10"},
      {"[other]\n\ncolour = \"blue\"\n", ":3: 'other.colour' must be red or green"},
      {"[general]\ncount = \"many\"\n",
       ":2: 'general.count' has the wrong type or is out of range"},
      {"[general]\nbytes = -1\n", ":2: 'general.bytes' has the wrong type or is out of range"},
      {"[other]\ntag = [1]\n", ":2: 'other.tag' has the wrong type or is out of range"},
      {"[general]\ncolour = \"red\"\n", ":2: unknown setting 'general.colour'"},
      {"count = 2\n", ":1: unknown setting 'count'"},
      {"[general\n", ":1:9: "},
  };
  for (const auto& [text, expected] : cases) {
    const ConfigFile file(text);
    Command command;
    const std::string why = message(command.run({"--config", file.path()}));
    EXPECT_EQ(why.rfind(file.path() + expected, 0), 0u) << text << "\n" << why;
  }
}

TEST(ConfigOptionTable, TopLevelKeysReadElsewhereAreLeftAlone) {
  const ConfigFile file("[[keys]]\nkey = \"a\"\n\n[general]\ncount = 4\n");
  CLI::App app;
  OptionTable table(app);
  table.config_file_option("config", "config file");
  int count = 0;
  table.section("general", "General").value("count", count, 1, "how many");
  ASSERT_TRUE(testing::parse_command_line(app, {"--config", file.path()}).ok());
  EXPECT_EQ(message(table.finish({"keys"})), "(accepted)");
  EXPECT_EQ(count, 4);
}

TEST(ConfigOptionTable, HelpShowsEachSectionWithItsTableDefaultsAndRanges) {
  Command command;
  const std::string help = command.help();
  for (const char* expected :
       {"General [general]", "Other [other]", "--count INT=3", "[1..10]", "[>= 1024]",
        "--colour red|green=green", "--wait SECONDS=2", "in the table named beside its group"}) {
    EXPECT_NE(help.find(expected), std::string::npos) << expected << "\n" << help;
  }
  std::vector<std::string> keys;
  for (const DeclaredOption* option : command.table().options())
    keys.push_back(option->key());
  EXPECT_EQ(keys, (std::vector<std::string>{"general.count", "general.bytes", "general.ratio",
                                            "general.loud", "general.name", "other.colour",
                                            "other.wait", "other.tag", "other.even"}));
}

}  // namespace
}  // namespace supportd::app
