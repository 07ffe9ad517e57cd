#include "cli/command.h"

#include <algorithm>
#include <mutex>
#include <set>

namespace pglayout::cli {
namespace {

std::vector<CommandInfo>& Registry() {
  static std::vector<CommandInfo> registry;  // filled before main()
  return registry;
}

// The messages of the usage errors made so far: a command returns one
// Status, main tells a usage error by its message.
std::set<std::string>& UsageMessages() {
  static std::set<std::string> messages;
  return messages;
}
std::mutex usage_mutex;

}  // namespace

Status UsageError(std::string message) {
  std::lock_guard<std::mutex> lock(usage_mutex);
  UsageMessages().insert(message);
  return Status::InvalidInput(std::move(message));
}

bool IsUsageError(const Status& status) {
  std::lock_guard<std::mutex> lock(usage_mutex);
  return status.IsInvalidInput() && UsageMessages().count(status.message());
}

Status AsBadInput(const Status& status) {
  if (status.code() == Status::Code::kNotFound ||
      status.code() == Status::Code::kIoError) {
    return Status::InvalidInput(status.message());
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
