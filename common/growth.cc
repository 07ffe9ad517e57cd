#include "common/growth.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace pglayout {

DoublingMoves MovesForDoubling(const std::vector<std::string>& volume_of) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<int>> on;
  for (size_t j = 0; j < volume_of.size(); ++j) {
    const std::string& v = volume_of[j];
    if (on.find(v) == on.end()) order.push_back(v);
    on[v].push_back(static_cast<int>(j));
  }
  DoublingMoves moves;
  for (const std::string& v : order) {
    const std::vector<int>& parts = on[v];
    const size_t keep = parts.size() - parts.size() / 2;
    if (keep == parts.size()) continue;
    moves.like.push_back(v);
    moves.partitions.insert(moves.partitions.end(), parts.begin() + keep,
                            parts.end());
  }
  std::sort(moves.partitions.begin(), moves.partitions.end());
  return moves;
}

namespace {

// "a", "a and b", "a, b and c".
std::string Listed(const std::vector<std::string>& items) {
  std::string text;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) text += i + 1 == items.size() ? " and " : ", ";
    text += items[i];
  }
  return text;
}

// Ascending numbers as runs: {1, 3, 4, 5} -> {"1", "3-5"}.
std::vector<std::string> Runs(const std::vector<int>& numbers) {
  std::vector<std::string> runs;
  size_t i = 0;
  while (i < numbers.size()) {
    size_t end = i;
    while (end + 1 < numbers.size() && numbers[end + 1] == numbers[end] + 1) {
      ++end;
    }
    runs.push_back(end == i ? fmt::format("{}", numbers[i])
                            : fmt::format("{}-{}", numbers[i], numbers[end]));
    i = end + 1;
  }
  return runs;
}

}  // namespace

std::string DoublingMovesText(const DoublingMoves& moves) {
  if (moves.partitions.empty()) return "";
  const bool one = moves.partitions.size() == 1;
  return fmt::format("adding {} volume{} like {} moves partition{} {} there",
                     moves.like.size(), moves.like.size() == 1 ? "" : "s",
                     Listed(moves.like), one ? "" : "s",
                     Listed(Runs(moves.partitions)));
}

}  // namespace pglayout
