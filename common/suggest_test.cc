#include "common/suggest.h"

#include <gtest/gtest.h>

namespace pglayout {
namespace {

TEST(EditDistance, CountsEdits) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("read_iops", "read_iops"), 0u);
  EXPECT_EQ(EditDistance("read_iop", "read_iops"), 1u);
  EXPECT_EQ(EditDistance("raed_iops", "read_iops"), 2u);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
}

TEST(NearestName, SuggestsPlausibleTypos) {
  std::vector<std::string_view> keys = {"read_iops", "write_iops", "read_mbps",
                                        "capacity"};
  EXPECT_EQ(NearestName("read_iop", keys), "read_iops");
  EXPECT_EQ(NearestName("capacty", keys), "capacity");
  EXPECT_EQ(NearestName("wrte_iops", keys), "write_iops");
}

TEST(NearestName, StaysSilentWhenNothingIsClose) {
  std::vector<std::string_view> keys = {"read_iops", "capacity"};
  EXPECT_EQ(NearestName("colour", keys), "");
  EXPECT_EQ(NearestName("x", {}), "");
}

}  // namespace
}  // namespace pglayout
