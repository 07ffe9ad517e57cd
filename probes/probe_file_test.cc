#include "probes/probe_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "common/units.h"

namespace pglayout::probes {
namespace {

namespace fs = std::filesystem;

class ProbeFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/pglayout-probe-file-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  size_t Entries() const {
    return static_cast<size_t>(std::distance(fs::directory_iterator(dir_), {}));
  }

  std::string dir_;
};

TEST_F(ProbeFileTest, CreatesSizesAndRemovesItsFile) {
  std::string path;
  {
    std::unique_ptr<ProbeFile> file;
    Status st = ProbeFile::Create(dir_, 32 * kMiB, &file);
    ASSERT_TRUE(st.ok()) << st.ToString();
    path = file->path();
    EXPECT_EQ(fs::path(path).parent_path(), fs::path(dir_));
    EXPECT_EQ(fs::file_size(path), 32 * kMiB);
    struct stat st_buf;
    ASSERT_EQ(stat(path.c_str(), &st_buf), 0);
    EXPECT_EQ(st_buf.st_blocks, 0) << "sized without allocating";
    EXPECT_EQ(st_buf.st_mode & 0777, 0600u);
    int flags = fcntl(file->fd(), F_GETFL);
    EXPECT_TRUE(flags & O_DIRECT);
    EXPECT_GE(file->alignment(), 512u);
    EXPECT_EQ(Entries(), 1u);
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_EQ(Entries(), 0u);
}

TEST_F(ProbeFileTest, InspectTargetAcceptsADirectory) {
  TargetInfo info;
  ASSERT_TRUE(InspectTarget(dir_ + "/", &info).ok());
  EXPECT_EQ(info.path, fs::canonical(dir_).string());
  EXPECT_GT(info.capacity, 0u);
  EXPECT_LE(info.free_bytes, info.capacity);
}

TEST_F(ProbeFileTest, RefusesMissingPathsFilesAndDevices) {
  TargetInfo info;
  Status missing = InspectTarget(dir_ + "/nope", &info);
  EXPECT_TRUE(missing.IsInvalidInput());
  EXPECT_NE(missing.message().find("no such directory"), std::string::npos);

  std::string file = dir_ + "/plain";
  close(open(file.c_str(), O_CREAT | O_WRONLY, 0600));
  Status not_dir = InspectTarget(file, &info);
  EXPECT_TRUE(not_dir.IsInvalidInput());
  EXPECT_NE(not_dir.message().find("not a directory"), std::string::npos);

  Status chr = InspectTarget("/dev/null", &info);
  EXPECT_TRUE(chr.IsInvalidInput());
  EXPECT_NE(chr.message().find("never writes to devices"), std::string::npos);

  // A block device node of our own (loop0's numbers), so the test does not
  // depend on the machine's disks; never opened.
  std::string blk = dir_ + "/blk";
  ASSERT_EQ(mknod(blk.c_str(), S_IFBLK | 0600, makedev(7, 0)), 0)
      << "mknod needs CAP_MKNOD: " << std::strerror(errno);
  Status block = InspectTarget(blk, &info);
  EXPECT_TRUE(block.IsInvalidInput());
  EXPECT_NE(block.message().find("device node"), std::string::npos);
}

TEST_F(ProbeFileTest, RefusesADirectoryItCannotWriteInto) {
  std::string ro = dir_ + "/ro";
  ASSERT_TRUE(fs::create_directory(ro));
  // Root ignores permission bits, so the immutable flag stands in for them.
  bool immutable = false;
  if (geteuid() == 0) {
    int fd = open(ro.c_str(), O_RDONLY | O_DIRECTORY);
    int attrs = 0;
    ASSERT_EQ(ioctl(fd, FS_IOC_GETFLAGS, &attrs), 0);
    attrs |= FS_IMMUTABLE_FL;
    immutable = ioctl(fd, FS_IOC_SETFLAGS, &attrs) == 0;
    ASSERT_TRUE(immutable) << std::strerror(errno);
    close(fd);
  } else {
    ASSERT_EQ(chmod(ro.c_str(), 0555), 0);
  }
  std::unique_ptr<ProbeFile> file;
  TargetInfo info;
  Status inspect = InspectTarget(ro, &info);
  Status create =
      inspect.ok() ? ProbeFile::Create(ro, 16 * kMiB, &file) : inspect;
  EXPECT_TRUE(create.IsInvalidInput()) << create.ToString();
  EXPECT_EQ(file, nullptr);
  if (immutable) {
    int fd = open(ro.c_str(), O_RDONLY | O_DIRECTORY);
    int attrs = 0;
    ioctl(fd, FS_IOC_GETFLAGS, &attrs);
    attrs &= ~FS_IMMUTABLE_FL;
    ioctl(fd, FS_IOC_SETFLAGS, &attrs);
    close(fd);
  }
}

TEST(CheckSpace, KeepsTenPercentFree) {
  TargetInfo info;
  info.path = "/mnt/d1";
  info.capacity = 100 * kGiB;
  info.free_bytes = 20 * kGiB;
  EXPECT_TRUE(CheckSpace(info, 10 * kGiB).ok());  // leaves exactly 10%
  Status st = CheckSpace(info, 10 * kGiB + 1);
  EXPECT_TRUE(st.IsInvalidInput());
  EXPECT_NE(st.message().find("--size"), std::string::npos) << st.message();
  info.free_bytes = 1 * kGiB;
  EXPECT_TRUE(CheckSpace(info, 2 * kGiB).IsInvalidInput());
}

}  // namespace
}  // namespace pglayout::probes
