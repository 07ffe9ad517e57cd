#include "common/median.h"

#include <gtest/gtest.h>

namespace pglayout {
namespace {

TEST(MedianTest, OddCountTakesTheMiddleValueWhateverTheOrder) {
  EXPECT_DOUBLE_EQ(Median({9, 1, 4}), 4);
  EXPECT_DOUBLE_EQ(Median({7}), 7);
}

TEST(MedianTest, EvenCountAveragesTheTwoMiddleValues) {
  EXPECT_DOUBLE_EQ(Median({10, 2, 4, 100}), 7);
}

TEST(MedianTest, EmptyListIsZero) { EXPECT_DOUBLE_EQ(Median({}), 0); }

}  // namespace
}  // namespace pglayout
