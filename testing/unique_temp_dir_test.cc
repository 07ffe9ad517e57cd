// unique_temp_dir.cc, as every test executable gets it: TempDir() is a
// directory of this process's own, open to the server account like /tmp.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace {

TEST(UniqueTempDir, TempDirIsMadeForThisProcessAndOpenToAll) {
  const std::string dir = ::testing::TempDir();
  EXPECT_NE(dir.find("/pglayout-test-"), std::string::npos) << dir;
  struct stat st {};
  ASSERT_EQ(stat(dir.c_str(), &st), 0) << dir;
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 01777u);
  EXPECT_EQ(st.st_uid, geteuid());
}

TEST(UniqueTempDir, TempDirComesFromTheEnvironment) {
  // TempDir() is read from the environment, which the programs the tests
  // start (pglayout, pgbench) inherit too.
  const char* env = std::getenv("TEST_TMPDIR");
  ASSERT_NE(env, nullptr);
  EXPECT_EQ(::testing::TempDir(), std::string(env) + "/");
}

}  // namespace
