#include "cli/command.h"

#include <algorithm>

namespace pglayout::cli {
namespace {

std::vector<CommandInfo>& Registry() {
  static std::vector<CommandInfo> registry;  // filled before main()
  return registry;
}

}  // namespace

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
