// pglayout: plans where a PostgreSQL database's data and I/O should live
// across a host's volumes, and moves it there safely.
//
// This file wires CLI11, spdlog and the registered subcommands together and
// maps a Status to the exit code. It holds no logic of its own.

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cctype>
#include <cstdio>
#include <exception>
#include <iostream>
#include <mutex>

#include "cli/command.h"
#include "cli/help_format.h"
#include "cli/terminal_progress.h"
#include "common/text.h"
#include "pg/conninfo_mask.h"
#include "pglayout_commit.h"  // PGLAYOUT_COMMIT, written at build time

namespace pglayout::cli {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitBadInput = 2;

constexpr char kFooter[] = R"(
The pipeline: probe -> volumes.toml; observe -> workload.toml;
plan (volumes + workload) -> plan.toml/.json/.sql, stripe.sh; migrate plan.toml.
Every file can be written by hand; `pglayout check FILE` validates it.
Sizes: kB, MB, GB, TB are powers of 1024 as in postgresql.conf (KiB..TiB too).
Exit codes: 0 success, 1 failure, 2 bad usage or bad input (nothing changed).
`pglayout COMMAND --help` shows a command's options; the full reference:
man pglayout-COMMAND, or docs/ref/pglayout-COMMAND.md.)";

// Passes each message through TerminalText to the colour sink on stderr:
// names in messages never reach the terminal with their control bytes.
class TerminalTextSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  TerminalTextSink()
      : inner_(std::make_shared<spdlog::sinks::stderr_color_sink_mt>()) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    const std::string safe =
        TerminalText(std::string_view(msg.payload.data(), msg.payload.size()));
    spdlog::details::log_msg copy = msg;
    copy.payload = safe;
    inner_->log(copy);
  }
  void flush_() override { inner_->flush(); }
  void set_pattern_(const std::string& pattern) override {
    inner_->set_pattern(pattern);
  }
  void set_formatter_(std::unique_ptr<spdlog::formatter> f) override {
    inner_->set_formatter(std::move(f));
  }

 private:
  std::shared_ptr<spdlog::sinks::stderr_color_sink_mt> inner_;
};

// "warning: ", "error: ", "debug: "...; nothing for info, as PostgreSQL's
// tools print their progress messages ("pglayout: wrote plan.toml").
class LevelFlag : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    if (msg.level == spdlog::level::info) return;
    const spdlog::string_view_t name = spdlog::level::to_string_view(msg.level);
    dest.append(name.data(), name.data() + name.size());
    dest.append(std::string_view(": "));
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<LevelFlag>();
  }
};

void SetUpLogging(const GlobalOptions& options) {
  auto logger = std::make_shared<spdlog::logger>(
      "pglayout", std::make_shared<TerminalTextSink>());
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  formatter->add_flag<LevelFlag>('*').set_pattern("pglayout: %^%*%$%v");
  logger->set_formatter(std::move(formatter));
  spdlog::level::level_enum level = spdlog::level::info;
  if (options.quiet) level = spdlog::level::warn;
  if (options.verbosity == 1) level = spdlog::level::debug;
  if (options.verbosity >= 2) level = spdlog::level::trace;
  logger->set_level(level);
  spdlog::set_default_logger(logger);
}

// Before logging is set up (CLI11's errors) and for the last word of a
// run: "pglayout: error: ..." for each line of |message| that is not an
// indented detail, then "pglayout: hint: |hint|".
void PrintError(const std::string& message, const std::string& hint) {
  std::string out;
  size_t start = 0;
  while (start <= message.size()) {
    size_t end = message.find('\n', start);
    if (end == std::string::npos) end = message.size();
    const std::string line = message.substr(start, end - start);
    const bool detail = !line.empty() && (line[0] == ' ' || line[0] == '\t');
    out += (detail ? "" : "pglayout: error: ") + line + "\n";
    start = end + 1;
  }
  if (!hint.empty()) out += "pglayout: hint: " + hint + "\n";
  std::cout.flush();
  std::fputs(TerminalText(out).c_str(), stderr);
}

// CLI11's messages as pglayout words its own: "The following argument was
// not expected: x" -> "the following argument was not expected: x".
std::string ParseErrorText(const CLI::ParseError& e) {
  std::string text = e.what();
  if (text.size() > 1 && std::isupper(static_cast<unsigned char>(text[0])) &&
      std::islower(static_cast<unsigned char>(text[1]))) {
    text[0] =
        static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  }
  return text;
}

int ExitCodeFor(const Status& status) {
  if (status.ok()) return kExitOk;
  return status.IsInvalidInput() ? kExitBadInput : kExitFailure;
}

int Run(int argc, char** argv) {
  CLI::App app{
      "pglayout: plan where a PostgreSQL database's data and I/O should live "
      "across a host's volumes, and move it there safely."};
  app.formatter(std::make_shared<HelpFormatter>());
  app.footer(kFooter);
  app.set_help_flag("-h,--help", "Show this help, then exit");
  // "pglayout 0.1.0 (commit ddf06cb)", or "(unknown commit)" when built
  // outside a git checkout (packaging/commit.cmake).
  app.set_version_flag("--version",
                       "pglayout " PGLAYOUT_VERSION " (" PGLAYOUT_COMMIT ")",
                       "Show the version and commit, then exit");
  app.require_subcommand(1);
  GlobalOptions global;
  app.add_flag("-v,--verbose", global.verbosity,
               "More detail on stderr (-vv for trace)");
  app.add_flag("-q,--quiet", global.quiet,
               "Only warnings and errors on stderr; no progress line");

  std::vector<std::pair<CLI::App*, std::unique_ptr<Command>>> commands;
  for (const CommandInfo& info : RegisteredCommands()) {
    CLI::App* sub = app.add_subcommand(info.name, info.description);
    // -h is --host in the commands that connect, as in psql.
    sub->set_help_flag("--help", "Show this help, then exit");
    auto command = info.make();
    command->Configure(sub);
    commands.emplace_back(sub, std::move(command));
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::string where = "pglayout";
    for (auto& [sub, command] : commands) {
      if (sub->parsed()) where = CommandPath(sub);
    }
    PrintError(ParseErrorText(e), HelpHint(where));
    return kExitBadInput;
  }
  // The options hold their own copies now: hide a password given in
  // --dbname from ps (docs/security.md#files-for-people-and-secrets).
  MaskPasswordsInArgv(argc, argv);

  SetUpLogging(global);
  TerminalProgress terminal(isatty(STDERR_FILENO) == 1);
  NullProgress silent;
  CommandContext context{
      global, global.quiet ? static_cast<ProgressSink*>(&silent) : &terminal};
  for (auto& [sub, command] : commands) {
    if (!sub->parsed()) continue;
    SetRunningCommand(CommandPath(sub));
    Status status = command->Run(context);
    if (!status.ok()) PrintError(status.message(), status.hint());
    return ExitCodeFor(status);
  }
  return kExitBadInput;
}

// Every line on stdout goes through TerminalText, and an exception that
// escaped a command (a bug: errors are Status) becomes "internal error"
// with exit 1 instead of an abort.
int Main(int argc, char** argv) {
  TerminalTextBuf safe_stdout(std::cout.rdbuf());
  std::streambuf* plain_stdout = std::cout.rdbuf(&safe_stdout);
  int code = kExitFailure;
  try {
    code = Run(argc, argv);
  } catch (const std::exception& e) {
    std::cout.flush();
    std::fprintf(stderr, "pglayout: error: internal error: %s\n",
                 TerminalText(e.what()).c_str());
  } catch (...) {
    std::cout.flush();
    std::fprintf(stderr,
                 "pglayout: error: internal error: an unknown exception\n");
  }
  std::cout.flush();
  std::cout.rdbuf(plain_stdout);
  return code;
}

}  // namespace
}  // namespace pglayout::cli

int main(int argc, char** argv) { return pglayout::cli::Main(argc, argv); }
