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
