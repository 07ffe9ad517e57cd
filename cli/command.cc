#include "cli/command.h"

#include <algorithm>
#include <utility>

namespace pglayout::cli {
namespace {

std::vector<CommandInfo>& Registry() {
  static std::vector<CommandInfo> registry;  // filled before main()
  return registry;
}

std::string& RunningCommand() {
  static std::string command = "pglayout";
  return command;
}

}  // namespace

std::string HelpHint(const std::string& command) {
  return "Try \"" + command + " --help\" for more information.";
}

void SetRunningCommand(std::string command) {
  RunningCommand() = std::move(command);
}

Status UsageError(std::string message) {
  return Status::InvalidInput(std::move(message))
      .WithHint(HelpHint(RunningCommand()));
}

Status AsBadInput(const Status& status) {
  if (status.code() == Status::Code::kNotFound ||
      status.code() == Status::Code::kIoError) {
    return Status::InvalidInput(status.message()).WithHint(status.hint());
  }
  return status;
}

bool RegisterCommand(const CommandInfo& info) {
  Registry().push_back(info);
  return true;
}

std::vector<CommandInfo> RegisteredCommands() {
  std::vector<CommandInfo> sorted = Registry();
  std::sort(sorted.begin(), sorted.end(),
            [](const CommandInfo& a, const CommandInfo& b) {
              return a.order < b.order;
            });
  return sorted;
}

}  // namespace pglayout::cli
