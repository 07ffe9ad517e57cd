// The subcommands of `pglayout`. Each lives in its own cli/*_command.cc,
// adds its options to CLI11 and calls into the libraries; commands hold no
// logic of their own beyond turning options into library calls and results
// into output.
//
// Output contract: results go to stdout (a table for people, or JSON with
// --json), logs and progress to stderr, each message as PostgreSQL's tools
// print theirs ("pglayout: error: ...", "pglayout: hint: ..."). Exit codes:
// 0 success, 1 failure, 2 bad usage or bad input (nothing was changed).

#ifndef PGLAYOUT_CLI_COMMAND_H_
#define PGLAYOUT_CLI_COMMAND_H_

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "common/progress.h"
#include "common/status.h"

namespace pglayout::cli {

// Options shared by every subcommand.
struct GlobalOptions {
  int verbosity = 0;  // -v: debug, -vv: trace
  bool quiet = false;
};

// The environment a command runs in: global options and the progress display
// (a live line on a terminal, sparse lines otherwise, nothing with --quiet).
struct CommandContext {
  GlobalOptions global;
  ProgressSink* progress = nullptr;
};

class Command {
 public:
  virtual ~Command() = default;
  // Adds the command's options and positional arguments to |app|, which is
  // the subcommand's own CLI11 app (name and description already set).
  virtual void Configure(CLI::App* app) = 0;
  // Runs after a successful parse.
  virtual Status Run(const CommandContext& context) = 0;
};

// A bad option value or a bad combination of options: InvalidInput
// (exit 2) whose hint is to read the running command's --help
// ("Try \"pglayout migrate --help\" for more information.").
Status UsageError(std::string message);
// That hint for |command| ("pglayout migrate").
std::string HelpHint(const std::string& command);
// Names the command main runs, once, before its Run: UsageError's hint.
void SetRunningCommand(std::string command);

// A file the user named that is missing or unreadable is bad input like
// one that does not parse: exit 2 (NotFound and IoError become
// InvalidInput, with the same message and hint).
Status AsBadInput(const Status& status);

struct CommandInfo {
  int order;  // position in --help
  const char* name;
  const char* description;  // one line for the list of commands
  std::unique_ptr<Command> (*make)();
};

// Registers a command at static-initialisation time. Use
//   PGLAYOUT_REGISTER_COMMAND(20, "probe", "Measure volumes ...",
//   ProbeCommand);
bool RegisterCommand(const CommandInfo& info);
// The registered commands, sorted by order.
std::vector<CommandInfo> RegisteredCommands();

#define PGLAYOUT_REGISTER_COMMAND(order, name, description, Class) \
  namespace {                                                      \
  std::unique_ptr<::pglayout::cli::Command> Make##Class() {        \
    return std::make_unique<Class>();                              \
  }                                                                \
  [[maybe_unused]] const bool kRegistered##Class =                 \
      ::pglayout::cli::RegisterCommand(                            \
          {order, name, description, Make##Class});                \
  }

}  // namespace pglayout::cli

#endif  // PGLAYOUT_CLI_COMMAND_H_
