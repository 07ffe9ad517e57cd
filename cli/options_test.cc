#include "cli/options.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/help_format.h"

namespace pglayout::cli {
namespace {

// Parses |args| after the program name; returns "" or CLI11's message.
std::string Parse(CLI::App* app, std::vector<std::string> args) {
  std::vector<const char*> argv = {"pglayout"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  try {
    app->parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return "";
}

TEST(DurationOption, TakesUnitsAndABareNumberInTheOptionsOwnUnit) {
  const std::vector<std::pair<std::string, double>> ms = {
      {"500", 0.5}, {"2s", 2}, {"250ms", 0.25}, {"1min", 60}};
  for (const auto& [text, seconds] : ms) {
    CLI::App app;
    double value = -1;
    AddDurationOption(&app, "--lock-timeout", &value, "", "ms", 0.001, 60);
    EXPECT_EQ(Parse(&app, {"--lock-timeout", text}), "") << text;
    EXPECT_DOUBLE_EQ(value, seconds) << text;
  }
  CLI::App app;
  double value = -1;
  AddDurationOption(&app, "--old-xact-wait", &value, "", "s");
  EXPECT_EQ(Parse(&app, {"--old-xact-wait", "30"}), "");
  EXPECT_DOUBLE_EQ(value, 30);
  EXPECT_EQ(Parse(&app, {"--old-xact-wait=5min"}), "");
  EXPECT_DOUBLE_EQ(value, 300);
}

TEST(DurationOption, ABadOrOutOfRangeDurationNamesTheOption) {
  CLI::App app;
  double value = 7;
  AddDurationOption(&app, "--lock-timeout", &value, "", "ms", 0.001, 60);
  EXPECT_EQ(Parse(&app, {"--lock-timeout", "2x"}),
            "--lock-timeout: unknown duration unit 'x' in '2x' (use us, ms, "
            "s, min, h, d)");
  EXPECT_EQ(Parse(&app, {"--lock-timeout", "2min"}),
            "--lock-timeout: '2min' is outside 1ms to 1min");
  EXPECT_EQ(Parse(&app, {"--lock-timeout", "-5"}),
            "--lock-timeout: duration '-5' must not be negative");
  EXPECT_DOUBLE_EQ(value, 7);  // unchanged
}

TEST(WordOption, KeepsTheDefaultTakesAWordAndNamesTheWordsOtherwise) {
  auto make = [](CLI::App* app, std::string* text) {
    return AddWordOption(app, "--verify", text, {"full", "off"}, "");
  };
  {
    CLI::App app;
    std::string verify = "full";
    CLI::Option* option = make(&app, &verify);
    EXPECT_EQ(Parse(&app, {}), "");
    EXPECT_EQ(verify, "full");
    EXPECT_EQ(option->count(), 0u);  // not given: a resumed run keeps its own
    EXPECT_EQ(option->get_type_name(), "full|off");
  }
  {
    CLI::App app;
    std::string verify = "full";
    CLI::Option* option = make(&app, &verify);
    EXPECT_EQ(Parse(&app, {"--verify", "off"}), "");
    EXPECT_EQ(verify, "off");
    EXPECT_EQ(option->count(), 1u);
  }
  {
    CLI::App app;
    std::string verify = "full";
    make(&app, &verify);
    EXPECT_EQ(Parse(&app, {"--verify=fast"}),
              "--verify: 'fast' is not a choice; use full or off");
    EXPECT_EQ(verify, "full");  // unchanged
  }
}

TEST(ConnectionOptions, DbnameAndTheOldSpellingSetTheSameField) {
  for (const char* name : {"-d", "--dbname", "--dsn"}) {
    CLI::App app;
    app.set_help_flag();  // -h is --host
    ConnectionOptions c;
    AddConnectionOptions(&app, "the database", "--dsn", &c);
    EXPECT_EQ(
        Parse(&app, {name, "host=db1", "-h", "db2", "-p", "5433", "-U", "dba"}),
        "")
        << name;
    EXPECT_EQ(c.dbname, "host=db1") << name;
    EXPECT_EQ(c.host, "db2");
    EXPECT_EQ(c.port, "5433");
    EXPECT_EQ(c.username, "dba");
    // As in psql, the string's host wins over -h; -p and -U fill in.
    std::string conninfo;
    ASSERT_TRUE(ComposeConninfo(c, &conninfo).ok());
    EXPECT_EQ(conninfo, "host='db1' port='5433' user='dba'") << name;
  }
}

TEST(Help, FitsEightyColumnsAndNamesTheValues) {
  CLI::App app{"pglayout: test"};
  app.formatter(std::make_shared<HelpFormatter>());
  CLI::App* sub = app.add_subcommand("migrate", "Execute a plan");
  sub->set_help_flag("--help", "Show this help, then exit");
  std::string plan;
  sub->add_option("plan", plan, "the plan")->type_name("PLAN");
  ConnectionOptions c;
  AddConnectionOptions(sub, "the target database", "--dsn", &c);
  double wait = 0;
  AddDurationOption(sub, "--lock-idle-timeout", &wait,
                    "How long a transaction holding a lock that production "
                    "waits for may sit idle before the server ends it",
                    "s")
      ->group(kGroupSafety);
  const std::string help = sub->help();
  EXPECT_NE(help.find("Usage: pglayout migrate [OPTION]... PLAN\n"),
            std::string::npos)
      << help;
  EXPECT_NE(
      help.find("\n  -d, --dbname=CONNSTR          the target database\n"),
      std::string::npos)
      << help;
  EXPECT_NE(help.find("\n      --lock-idle-timeout=DURATION\n"),
            std::string::npos)
      << help;
  EXPECT_EQ(help.find("--dsn"), std::string::npos) << help;
  EXPECT_NE(help.find("man pglayout-migrate, or "
                      "docs/ref/pglayout-migrate.md"),
            std::string::npos)
      << help;
  size_t start = 0;
  while (start < help.size()) {
    size_t end = help.find('\n', start);
    if (end == std::string::npos) end = help.size();
    EXPECT_LE(end - start, 80u) << help.substr(start, end - start);
    start = end + 1;
  }
}

TEST(Wrap, KeepsParagraphsAndIndentsContinuations) {
  EXPECT_EQ(Wrap("aaa bbb ccc\nddd", 2, 9, false), "aaa bbb\n  ccc\n  ddd\n");
  EXPECT_EQ(Wrap("aaa", 4, 80, true), "    aaa\n");
}

}  // namespace
}  // namespace pglayout::cli
