#include "common/growth.h"

#include <gtest/gtest.h>

namespace pglayout {
namespace {

// The shape: seven partitions placed 2/2/3; each volume keeps its
// first half, a new volume like it takes the rest.
TEST(MovesForDoubling, EachVolumeGivesItsLaterHalf) {
  const DoublingMoves m =
      MovesForDoubling({"v1", "v2", "v3", "v1", "v2", "v3", "v3"});
  EXPECT_EQ(m.like, (std::vector<std::string>{"v1", "v2", "v3"}));
  EXPECT_EQ(m.partitions, (std::vector<int>{3, 4, 6}));
  EXPECT_EQ(DoublingMovesText(m),
            "adding 3 volumes like v1, v2 and v3 moves partitions 3-4 "
            "and 6 there");
}

TEST(MovesForDoubling, RunsOfPartitionsAreJoined) {
  const DoublingMoves m =
      MovesForDoubling({"a", "a", "a", "a", "b", "b", "b", "b"});
  EXPECT_EQ(m.partitions, (std::vector<int>{2, 3, 6, 7}));
  EXPECT_EQ(DoublingMovesText(m),
            "adding 2 volumes like a and b moves partitions 2-3 and "
            "6-7 there");
}

// A volume with one partition keeps it: nothing of it moves, and a plan of
// one partition per volume names no move at all.
TEST(MovesForDoubling, OnePartitionToAVolumeMovesNothing) {
  DoublingMoves m = MovesForDoubling({"a", "b", "b"});
  EXPECT_EQ(m.like, std::vector<std::string>{"b"});
  EXPECT_EQ(DoublingMovesText(m),
            "adding 1 volume like b moves partition 2 there");
  m = MovesForDoubling({"a", "b", "c"});
  EXPECT_TRUE(m.partitions.empty());
  EXPECT_EQ(DoublingMovesText(m), "");
  EXPECT_EQ(DoublingMovesText(MovesForDoubling({})), "");
}

}  // namespace
}  // namespace pglayout
