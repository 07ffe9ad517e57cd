// What the next doubling of a hash-partitioned table takes when its plan left
// room to grow (docs/planning.md#growth): each volume keeps the first half of
// its partitions and a new volume like it takes the rest, moved whole.

#ifndef PGLAYOUT_COMMON_GROWTH_H_
#define PGLAYOUT_COMMON_GROWTH_H_

#include <string>
#include <vector>

namespace pglayout {

struct DoublingMoves {
  std::vector<std::string> like;  // one new volume like each of these
  std::vector<int> partitions;    // the partitions that move, ascending
};

// |volume_of|[j] names the volume of partition j. A volume of n partitions
// gives its last n/2 (rounded down) to a new volume like it; volumes in the
// order their first partition appears.
DoublingMoves MovesForDoubling(const std::vector<std::string>& volume_of);

// "adding 2 volumes like v1 and v3 moves partitions 4 and 6-7 there";
// "" when nothing would move.
std::string DoublingMovesText(const DoublingMoves& moves);

}  // namespace pglayout

#endif  // PGLAYOUT_COMMON_GROWTH_H_
