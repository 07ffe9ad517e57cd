#include "probes/device_counters.h"

#include <gtest/gtest.h>

#include "common/files.h"
#include "common/units.h"

namespace pglayout::probes {
namespace {

DiskCounters Read(const std::string& snapshot, const std::string& device) {
  DiskCounters c;
  DiskstatsCounters counters(device, "probes/testdata/diskstats/" + snapshot);
  const Status st = counters.Read(&c);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return c;
}

// Two snapshots of /proc/diskstats around one point (probes/testdata):
// nvme0n1 read 983,040 sectors = 480 MiB, all of them the probe's; vdb1
// (the probed partition) read 1 GiB, its disk vdb 4 GiB: another partition
// of the disk read 3 GiB meanwhile.
TEST(Diskstats, ParsesSectorsOfTheNamedDevice) {
  const DiskCounters before = Read("before", "nvme0n1");
  EXPECT_EQ(before.read_bytes, 3862528ull * 512);
  EXPECT_EQ(before.write_bytes, 16482040ull * 512);
  const DiskCounters after = Read("after", "nvme0n1");
  EXPECT_EQ(after.read_bytes - before.read_bytes, 480 * kMiB);
  EXPECT_EQ(after.write_bytes, before.write_bytes);
}

TEST(Diskstats, AMissingDeviceIsAnError) {
  DiskCounters c;
  DiskstatsCounters missing("vdb", "probes/testdata/diskstats/none");
  EXPECT_FALSE(missing.Read(&c).ok());
  DiskstatsCounters other("vdc", "probes/testdata/diskstats/before");
  const Status st = other.Read(&c);
  EXPECT_EQ(st.code(), Status::Code::kNotFound) << st.ToString();
}

TEST(ForeignIo, TheProbesOwnReadsAreNotForeign) {
  const ForeignIo f =
      JudgeForeignIo(Read("before", "nvme0n1"), Read("after", "nvme0n1"),
                     OwnIo{480 * kMiB, 0});
  EXPECT_FALSE(f.found);
  EXPECT_EQ(f.read_bytes, 0u);
}

TEST(ForeignIo, ReadsBeyondTheProbesOnTheDiskAreFound) {
  const ForeignIo f = JudgeForeignIo(Read("before", "vdb"),
                                     Read("after", "vdb"), OwnIo{kGiB, 0});
  EXPECT_TRUE(f.found);
  EXPECT_EQ(f.read_bytes, 3 * kGiB);
  EXPECT_DOUBLE_EQ(f.share, 3.0);
  EXPECT_EQ(DescribeForeignIo(f), "3 GiB of reads (+300% on the probe's own)");
  // The partition alone does not see its neighbour.
  EXPECT_FALSE(JudgeForeignIo(Read("before", "vdb1"), Read("after", "vdb1"),
                              OwnIo{kGiB, 0})
                   .found);
}

// Writes count as foreign only in a point that issued none; small amounts
// (metadata, atime) are below kForeignMinBytes or kForeignShare.
TEST(ForeignIo, WritesAreJudgedInReadPointsAndSmallAmountsAreNoise) {
  const DiskCounters before{0, 0};
  EXPECT_TRUE(
      JudgeForeignIo(before, {100 * kMiB, 20 * kMiB}, OwnIo{100 * kMiB, 0})
          .found);
  EXPECT_FALSE(
      JudgeForeignIo(before, {0, 300 * kMiB}, OwnIo{0, 100 * kMiB}).found)
      << "a write point's journal is not told from another writer";
  EXPECT_FALSE(
      JudgeForeignIo(before, {100 * kMiB + 3 * kMiB, 0}, OwnIo{100 * kMiB, 0})
          .found)
      << "3 MiB is under kForeignMinBytes";
  EXPECT_FALSE(
      JudgeForeignIo(before, {10 * kGiB + 100 * kMiB, 0}, OwnIo{10 * kGiB, 0})
          .found)
      << "1% is under kForeignShare";
}

}  // namespace
}  // namespace pglayout::probes
