#include "common/block_stats.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace pglayout {
namespace {

// Two devices as /proc/diskstats prints them (kernel 5.x: 17 fields after
// the name on one, the older 11 on the other).
constexpr char kDiskstats[] =
    " 259       0 nvme0n1 1201 33 3862528 900 4100 80 16482040 7000 0 5000 "
    "7900 0 0 0 0 20 4\n"
    "   7       1 loop1 512548 229 289065188 1194470 2676613 19438 89223996 "
    "1191757 0 624240 2537302\n";

TEST(BlockStats, ParsesTheNamedDevicesRequestsAndSectors) {
  BlockStats s;
  ASSERT_TRUE(ParseDiskstats(kDiskstats, "nvme0n1", &s).ok());
  EXPECT_EQ(s.reads, 1201u);
  EXPECT_EQ(s.read_sectors, 3862528u);
  EXPECT_EQ(s.writes, 4100u);
  EXPECT_EQ(s.write_sectors, 16482040u);
  ASSERT_TRUE(ParseDiskstats(kDiskstats, "loop1", &s).ok());
  EXPECT_EQ(s.reads, 512548u);
  EXPECT_EQ(s.read_ms, 1194470u);
  EXPECT_EQ(s.write_sectors, 89223996u);
}

TEST(BlockStats, AddsAndSubtractsEveryField) {
  BlockStats a{10, 20, 30, 40, 50}, b{1, 2, 3, 4, 5};
  BlockStats d = a - b;
  EXPECT_EQ(d.reads, 9u);
  EXPECT_EQ(d.read_sectors, 18u);
  EXPECT_EQ(d.read_ms, 27u);
  EXPECT_EQ(d.writes, 36u);
  EXPECT_EQ(d.write_sectors, 45u);
  d += b;
  EXPECT_EQ(d.reads, a.reads);
  EXPECT_EQ(d.read_sectors, a.read_sectors);
  EXPECT_EQ(d.read_ms, a.read_ms);
  EXPECT_EQ(d.writes, a.writes);
  EXPECT_EQ(d.write_sectors, a.write_sectors);
}

TEST(BlockStats, AMissingDeviceOrAMalformedLineIsAnError) {
  BlockStats s;
  Status st = ParseDiskstats(" 252 16 vdb 1 2 3 4 5 6 7\n", "vdc", &s);
  EXPECT_EQ(st.code(), Status::Code::kNotFound) << st.ToString();
  EXPECT_EQ(st.message(), "diskstats: no line for device vdc");
  st = ParseDiskstats(" 252 16 vdb 1 2 x 4 5 6 7\n", "vdb", &s);
  EXPECT_TRUE(st.IsInvalidInput()) << st.ToString();
  EXPECT_EQ(st.message(),
            "diskstats: the line of vdb is malformed: ' 252 16 vdb 1 2 x 4 5 "
            "6 7'");
  st = ParseDiskstats(" 252 16 vdb 1 2 3\n", "vdb", &s);
  EXPECT_TRUE(st.IsInvalidInput()) << "too few fields: " << st.ToString();
  EXPECT_TRUE(ParseBlockStat("1 2 3 4 -5 6 7", &s).IsInvalidInput());
}

TEST(BlockStats, ReadsTheStatFileOfASysfsTree) {
  const std::string root = ::testing::TempDir() + "/block_stats_sysfs";
  std::filesystem::create_directories(root + "/class/block/loop3");
  std::ofstream(root + "/class/block/loop3/stat")
      << "     459518       34 33421612   241730  1918145    10575 50370884 "
         "  540663        0   142268   797197\n";
  BlockStats s;
  ASSERT_TRUE(ReadBlockStat(root, "loop3", &s).ok());
  EXPECT_EQ(s.reads, 459518u);
  EXPECT_EQ(s.read_sectors, 33421612u);
  EXPECT_EQ(s.read_ms, 241730u);
  EXPECT_EQ(s.writes, 1918145u);
  const Status st = ReadBlockStat(root, "loop4", &s);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find(root + "/class/block/loop4/stat"),
            std::string::npos)
      << st.ToString();
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace pglayout
