// Compiled into every test executable (pglayout_test in CMakeLists.txt):
// gives the process a directory of its own as ::testing::TempDir(), which
// googletest takes from TEST_TMPDIR. ctest runs the cases of one binary as
// parallel processes, and two checkouts' suites may share a machine; files
// of fixed names in one shared /tmp overwrote each other's (a plan file
// rewritten under a killed and resumed migration made it refuse to resume).
// Mode 1777 like /tmp, for the server account; removed when the process
// that made it exits normally (not by a forked child that exits).

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace {

class UniqueTempDir {
 public:
  UniqueTempDir() : owner_(getpid()) {
    const char* base = std::getenv("TEST_TMPDIR");
    if (base == nullptr || *base == '\0') base = std::getenv("TMPDIR");
    std::string pattern =
        std::string(base && *base ? base : "/tmp") + "/pglayout-test-XXXXXX";
    std::vector<char> path(pattern.begin(), pattern.end());
    path.push_back('\0');
    if (mkdtemp(path.data()) == nullptr) return;  // TempDir() stays as it was
    dir_ = path.data();
    chmod(dir_.c_str(), 01777);
    setenv("TEST_TMPDIR", dir_.c_str(), 1);
  }
  ~UniqueTempDir() {
    if (dir_.empty() || getpid() != owner_) return;
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

 private:
  pid_t owner_;
  std::string dir_;
};

const UniqueTempDir kUniqueTempDir;

}  // namespace
