// The front door through the real binary: every --help fits 80 columns and
// names its values, and every error reads as PostgreSQL's tools print
// theirs ("pglayout: error: ...", "pglayout: hint: ...", exit 2).

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "tests/run_pglayout.h"

namespace pglayout {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The subcommands `pglayout --help` lists.
std::vector<std::string> Subcommands() {
  Completion help = RunPglayout({"--help"});
  EXPECT_EQ(help.exit_code, 0) << help.output;
  std::vector<std::string> names;
  bool in_block = false;
  for (const std::string& line : Lines(help.output)) {
    if (line == "Subcommands:") {
      in_block = true;
    } else if (in_block && line.empty()) {
      break;
    } else if (in_block && line.rfind("  ", 0) == 0 && line[2] != ' ') {
      names.push_back(line.substr(2, line.find(' ', 2) - 2));
    }
  }
  return names;
}

TEST(Help, EveryLineOfEveryHelpFitsEightyColumns) {
  const std::vector<std::string> subs = Subcommands();
  ASSERT_EQ(subs.size(), 6u);
  std::vector<std::vector<std::string>> commands = {{"--help"}};
  for (const std::string& sub : subs) commands.push_back({sub, "--help"});
  for (const auto& args : commands) {
    Completion run = RunPglayout(args);
    ASSERT_EQ(run.exit_code, 0) << args[0] << "\n" << run.output;
    for (const std::string& line : Lines(run.output)) {
      EXPECT_LE(line.size(), 80u) << args[0] << ": " << line;
    }
  }
}

TEST(Help, NamesTheValuesAndNeverTheBinarysPath) {
  for (const std::string& sub : Subcommands()) {
    Completion run = RunPglayout({sub, "--help"});
    ASSERT_EQ(run.exit_code, 0) << run.output;
    for (const char* bad : {"TEXT", "FLOAT", "INT", " in [", PGLAYOUT_BINARY,
                            "--dsn", "--journal"}) {
      EXPECT_EQ(run.output.find(bad), std::string::npos)
          << sub << " --help shows " << bad << ":\n"
          << run.output;
    }
    EXPECT_NE(run.output.find("\nUsage: pglayout " + sub + " [OPTION]..."),
              std::string::npos)
        << run.output;
    EXPECT_NE(run.output.find("The full reference: man pglayout-" + sub +
                              ", or docs/ref/pglayout-" + sub + ".md.\n"),
              std::string::npos)
        << run.output;
  }
  Completion migrate = RunPglayout({"migrate", "--help"});
  for (const char* part :
       {"Usage: pglayout migrate [OPTION]... PLAN\n", "\nConnection options:\n",
        "\nWhat to do:\n", "\nThrottle options:\n", "\nSafety options:\n",
        "\nOutput options:\n", "  -d, --dbname=CONNSTR", "  -h, --host=",
        "  -p, --port=", "  -U, --username=", "      --lock-timeout=DURATION",
        "      --max-rate=MBPS", "      --max-wal-size=SIZE"}) {
    EXPECT_NE(migrate.output.find(part), std::string::npos) << part << "\n"
                                                            << migrate.output;
  }
}

TEST(Help, ObserveFitsOnOneScreen) {
  Completion run = RunPglayout({"observe", "--help"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_LT(Lines(run.output).size(), 40u) << run.output;
  EXPECT_EQ(run.output.find("SELECT"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("docs/oracle-import.md"), std::string::npos);
}

TEST(Errors, AMissingPlanExitsTwoAsPostgresWordsIt) {
  Completion run = RunPglayout({"migrate", "/nonexistent.toml"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.output,
            "pglayout: error: could not read \"/nonexistent.toml\": No such "
            "file or directory\n");
}

TEST(Errors, AMissingFileExitsTwoFromEveryCommand) {
  const std::string missing = "/nonexistent/input.toml";
  const std::string out = ::testing::TempDir() + "/errors_out";
  const std::vector<std::vector<std::string>> runs = {
      {"check", missing},
      {"plan", "--volumes", missing, "--workload", missing, "--out-dir", out},
      {"report", "--plan", missing, "-o", out + ".html"},
      {"observe", "--from-log", missing, "-o", out + ".toml"},
      {"observe", "--from-segments", missing, "-o", out + ".toml"},
      {"migrate", missing}};
  for (const auto& args : runs) {
    Completion run = RunPglayout(args);
    EXPECT_EQ(run.exit_code, 2) << args[0] << ": " << run.output;
    EXPECT_NE(run.output.find("pglayout: error: "), std::string::npos)
        << run.output;
    EXPECT_NE(run.output.find(missing + "\": No such file or directory\n"),
              std::string::npos)
        << run.output;
  }
  Completion dir = RunPglayout({"migrate", ::testing::TempDir()});
  EXPECT_EQ(dir.exit_code, 2) << dir.output;
  EXPECT_NE(dir.output.find("\": Is a directory\n"), std::string::npos)
      << dir.output;
}

TEST(Errors, CliParseErrorsHaveTheShapeAndTheHint) {
  Completion run = RunPglayout({"plan", "--volumes", "v.toml"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.output,
            "pglayout: error: --workload is required\n"
            "pglayout: hint: Try \"pglayout plan --help\" for more "
            "information.\n");
  run = RunPglayout({"migrate", "plan.toml", "--no-such-option"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.output.rfind("pglayout: error: ", 0), 0u) << run.output;
  EXPECT_NE(run.output.find("pglayout: hint: Try \"pglayout migrate --help\""),
            std::string::npos)
      << run.output;
  run = RunPglayout({"no-such-command"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.output.find("pglayout: hint: Try \"pglayout --help\""),
            std::string::npos)
      << run.output;
}

TEST(Errors, DurationsTakeUnitsAndABadOneNamesTheOption) {
  // The options parse (the plan is then missing: exit 2 for that).
  for (const char* value : {"2s", "500ms", "500"}) {
    Completion run =
        RunPglayout({"migrate", "/nonexistent.toml", "--lock-timeout", value});
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_NE(run.output.find("could not read \"/nonexistent.toml\""),
              std::string::npos)
        << value << ": " << run.output;
  }
  Completion run =
      RunPglayout({"migrate", "/nonexistent.toml", "--lock-timeout", "2x"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.output,
            "pglayout: error: --lock-timeout: unknown duration unit 'x' in "
            "'2x' (use us, ms, s, min, h, d)\n"
            "pglayout: hint: Try \"pglayout migrate --help\" for more "
            "information.\n");
  run = RunPglayout({"observe", "--duration", "soon"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.output.find("pglayout: error: --duration: 'soon' is not a "
                            "duration"),
            std::string::npos)
      << run.output;
}

TEST(Errors, AUsageErrorOfACommandHintsAtItsHelp) {
  Completion run = RunPglayout({"migrate", "--abort", "--status"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.output,
            "pglayout: error: --abort, --finalize and --status exclude each "
            "other\npglayout: hint: Try \"pglayout migrate --help\" for more "
            "information.\n");
}

}  // namespace
}  // namespace pglayout
