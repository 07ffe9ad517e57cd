#include "pg/replication_stream.h"

#include <gtest/gtest.h>

namespace pglayout {
namespace {

TEST(ReplicationStream, ReadsWalPositions) {
  Lsn lsn = 0;
  ASSERT_TRUE(ParseLsn("16/B374D848", &lsn));
  EXPECT_EQ(lsn, (uint64_t{0x16} << 32) | 0xB374D848u);
  ASSERT_TRUE(ParseLsn("a/1b", &lsn)) << "lower case, as text may come";
  EXPECT_EQ(lsn, (uint64_t{0xa} << 32) | 0x1b);
  ASSERT_TRUE(ParseLsn("0/0", &lsn));
  EXPECT_EQ(lsn, 0u);
  ASSERT_TRUE(ParseLsn("FFFFFFFF/FFFFFFFF", &lsn));
  EXPECT_EQ(lsn, ~uint64_t{0});
  for (const char* bad : {"", "16", "16/", "/1", "16/B374D848x", "16 /1", "G/1",
                          "1/2/3", "100000000/0"}) {
    EXPECT_FALSE(ParseLsn(bad, &lsn)) << bad;
  }
}

}  // namespace
}  // namespace pglayout
