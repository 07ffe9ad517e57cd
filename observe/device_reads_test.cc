#include "observe/device_reads.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace pglayout {
namespace {

namespace fs = std::filesystem;

DataLocation On(const std::string& role, const std::string& device,
                const std::string& tablespace = "") {
  DataLocation l;
  l.role = role;
  l.tablespace = tablespace;
  l.path = "/srv/" + device;
  l.on.emplace();
  l.on->resolved = l.path;
  l.on->dev = "7:" + device.substr(4);
  l.on->device = device;
  return l;
}

Relation Reading(const std::string& name, const std::string& tablespace,
                 double reads) {
  Relation r;
  r.name = name;
  r.tablespace = tablespace;
  r.read_iops_avg = reads;
  r.read_iops = reads * 1.1;
  return r;
}

class DeviceReadsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    paths_.sysfs_root = (fs::temp_directory_path() /
                         ("pglayout-sysfs-" + std::to_string(::getpid())))
                            .string();
  }
  void TearDown() override { fs::remove_all(paths_.sysfs_root); }

  // A /sys/class/block/<device>/stat line with |reads| completed.
  void Stat(const std::string& device, uint64_t reads) {
    fs::path dir = fs::path(paths_.sysfs_root) / "class" / "block" / device;
    fs::create_directories(dir);
    std::ofstream(dir / "stat") << "    " << reads << "   30 " << reads * 64
                                << "   900  500 0 4000 800 0 700 1700 0 0 0 0"
                                << "\n";
  }

  SystemPaths paths_;
};

TEST_F(DeviceReadsTest, RecordsTheShareOfTheServersReadsEachDeviceServed) {
  Workload w;
  w.locations = {On("data_directory", "loop0"), On("pg_wal", "loop1"),
                 On("tablespace", "loop2", "fast")};
  w.relations = {Reading("public.a", "pg_default", 300),
                 Reading("public.a_pkey", "pg_default", 100),
                 Reading("public.b", "fast", 50)};
  Stat("loop0", 1000);
  Stat("loop1", 5000);
  Stat("loop2", 2000);
  DeviceReadCounts before = ReadDeviceReadCounts(paths_, w.locations);
  // pg_wal's device is not counted: the WAL is written, not read.
  EXPECT_EQ(before, (DeviceReadCounts{{"loop0", 1000}, {"loop2", 2000}}));
  // 10 s later.
  Stat("loop0", 1000 + 10 * 280);  // 280 reads/s
  Stat("loop2", 2000 + 10 * 80);   // 80/s, more than the server's 50
  DeviceReadCounts after = ReadDeviceReadCounts(paths_, w.locations);
  RecordDeviceReads(before, after, 10, &w);

  ASSERT_EQ(w.device_reads.size(), 2u);
  const DeviceReads& data = w.device_reads[0];
  EXPECT_EQ(data.device, "loop0");
  EXPECT_EQ(data.dev, "7:0");                      // as the location records it
  EXPECT_DOUBLE_EQ(data.server_block_reads, 400);  // averages, not peaks
  EXPECT_DOUBLE_EQ(data.device_reads, 280);
  EXPECT_DOUBLE_EQ(data.Share(), 0.7);
  EXPECT_DOUBLE_EQ(w.DeviceReadShare(w.locations[0]), 0.7);
  EXPECT_EQ(w.device_reads[1].device, "loop2");
  EXPECT_DOUBLE_EQ(w.device_reads[1].server_block_reads, 50);
  EXPECT_DOUBLE_EQ(w.device_reads[1].Share(), 1);  // readahead: capped
}

TEST_F(DeviceReadsTest, LeavesOutWhatItCouldNotCount) {
  Workload w;
  w.locations = {On("data_directory", "loop0"), On("tablespace", "gone", "t")};
  w.locations.push_back(On("tablespace", "remote", "remote"));
  w.locations.back().on.reset();  // observed from another host
  w.relations = {Reading("public.a", "pg_default", 10)};
  Stat("loop0", 100);
  DeviceReadCounts before = ReadDeviceReadCounts(paths_, w.locations);
  EXPECT_EQ(before.size(), 1u);
  // The counter went backwards (the device was re-attached): not measured.
  Stat("loop0", 50);
  RecordDeviceReads(before, ReadDeviceReadCounts(paths_, w.locations), 10, &w);
  EXPECT_TRUE(w.device_reads.empty());
  for (const DataLocation& l : w.locations) {
    EXPECT_DOUBLE_EQ(w.DeviceReadShare(l), 1) << l.path;
  }
}

}  // namespace
}  // namespace pglayout
