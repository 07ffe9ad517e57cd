// Test helpers for the tests that run the real pglayout binary (its path is
// the PGLAYOUT_BINARY compile definition of the test target).

#ifndef PGLAYOUT_TESTS_RUN_PGLAYOUT_H_
#define PGLAYOUT_TESTS_RUN_PGLAYOUT_H_

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "testing/subprocess.h"

namespace pglayout {

// Runs `pglayout ARGS...` to completion (stdout and stderr together).
inline Completion RunPglayout(const std::vector<std::string>& args) {
  Command command;
  command.argv = {PGLAYOUT_BINARY};
  command.argv.insert(command.argv.end(), args.begin(), args.end());
  return RunToCompletion(command);
}

// The environment that makes the binary kill itself at |failpoint|
// (migrator/executor.h names the points); a test that uses it fails on a
// binary built without -DPGLAYOUT_FAILPOINTS=ON, which has none.
inline std::vector<std::string> FailpointEnv(const std::string& failpoint) {
#ifndef PGLAYOUT_BINARY_FAILPOINTS
  ADD_FAILURE() << "this test kills pglayout at a failpoint: configure the "
                   "build with -DPGLAYOUT_FAILPOINTS=ON";
#endif
  return {"PGLAYOUT_MIGRATE_FAILPOINT=" + failpoint};
}

// Writes |text| to |name| in the test's temporary directory; returns the
// path.
inline std::string WriteTempFile(const std::string& name,
                                 const std::string& text) {
  std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace pglayout

#endif  // PGLAYOUT_TESTS_RUN_PGLAYOUT_H_
