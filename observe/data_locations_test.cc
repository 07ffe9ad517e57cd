#include "observe/data_locations.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

namespace pglayout {
namespace {

namespace fs = std::filesystem;

class DataLocationsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::canonical(fs::temp_directory_path()) /
            ("pglayout-locations-" + std::to_string(::getpid()));
    fs::create_directories(root_ / "data");
    fs::create_directories(root_ / "elsewhere" / "wal");
    fs::create_directories(root_ / "ts");
    std::ofstream(root_ / "data" / "PG_VERSION") << "18\n";
    fs::create_directory_symlink(root_ / "elsewhere" / "wal",
                                 root_ / "data" / "pg_wal");
  }
  void TearDown() override { fs::remove_all(root_); }

  std::map<std::string, std::string> Settings() const {
    return {{"data_directory", (root_ / "data").string()}};
  }

  fs::path root_;
};

std::string DevOf(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(::stat(p.c_str(), &st), 0);
  return DeviceNumber(st.st_dev);
}

TEST_F(DataLocationsTest, ResolvesPgWalThroughItsSymlinkToItsDevice) {
  LocatedDirectories got = LocateServerDirectories(
      SystemPaths{}, Settings(), {{"pg_default", ""}, {"ts", (root_ / "ts")}});
  ASSERT_EQ(got.locations.size(), 3u);
  const DataLocation& wal = got.locations[1];
  EXPECT_EQ(wal.role, "pg_wal");
  EXPECT_EQ(wal.path, (root_ / "data" / "pg_wal").string());
  ASSERT_TRUE(wal.on.has_value());
  EXPECT_EQ(wal.on->resolved, (root_ / "elsewhere" / "wal").string());
  EXPECT_EQ(wal.on->dev, DevOf(root_ / "elsewhere" / "wal"));
  EXPECT_FALSE(wal.on->mount_point.empty());
  EXPECT_EQ(got.locations[2].tablespace, "ts");
  ASSERT_TRUE(got.locations[2].on.has_value());
  EXPECT_EQ(got.note,
            "resolved on this host: symlinks followed, st_dev, mount point "
            "and block device");
}

TEST_F(DataLocationsTest, ARemoteServerIsRecordedAsPathsOnly) {
  LocatedDirectories got = LocateServerDirectories(
      SystemPaths{}, {{"data_directory", "/nonexistent/pgdata"}},
      {{"ts", "/nonexistent/ts"}});
  ASSERT_EQ(got.locations.size(), 3u);
  for (const DataLocation& l : got.locations) EXPECT_FALSE(l.on.has_value());
  EXPECT_EQ(got.locations[1].path, "/nonexistent/pgdata/pg_wal");
  EXPECT_EQ(got.note,
            "/nonexistent/pgdata is no data directory on this host (observed "
            "from another host): paths recorded only, devices unknown");
}

TEST_F(DataLocationsTest, ADirectoryWithoutPgVersionIsNotThisServers) {
  fs::remove(root_ / "data" / "PG_VERSION");
  LocatedDirectories got =
      LocateServerDirectories(SystemPaths{}, Settings(), {});
  EXPECT_FALSE(got.locations[0].on.has_value());
  EXPECT_NE(got.note.find("is no data directory on this host"),
            std::string::npos);
}

TEST_F(DataLocationsTest, WithoutDataDirectoryTheWalIsUnknown) {
  LocatedDirectories got = LocateServerDirectories(SystemPaths{}, {}, {});
  EXPECT_TRUE(got.locations.empty());
  EXPECT_NE(got.note.find("where the data directory and pg_wal live is "
                          "unknown"),
            std::string::npos);
}

}  // namespace
}  // namespace pglayout
