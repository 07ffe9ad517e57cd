// Test helpers for the tests that run the real pglayout binary (its path is
// the PGLAYOUT_BINARY compile definition of the test target).

#ifndef PGLAYOUT_TESTS_RUN_PGLAYOUT_H_
#define PGLAYOUT_TESTS_RUN_PGLAYOUT_H_

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "common/files.h"
#include "testing/pg_cluster.h"
#include "testing/subprocess.h"

namespace pglayout {

// Runs `pglayout ARGS...` to completion (stdout and stderr together), with
// |env| ("NAME=value") added to its environment.
inline Completion RunPglayout(const std::vector<std::string>& args,
                              const std::vector<std::string>& env = {}) {
  Command command;
  command.argv = {PGLAYOUT_BINARY};
  command.argv.insert(command.argv.end(), args.begin(), args.end());
  command.env = env;
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

// Writes to |path| a volumes file of a WAL volume and three data volumes
// ("v1".."v3") of |data_iops| reads and writes per second each (the WAL
// volume 100 times that), as directories under |dir| of |pg|'s files.
// Their capacities differ (20 to 23 GB), so no stripe can be built.
inline Status WriteTestVolumes(PgCluster* pg, const std::string& dir,
                               int data_iops, const std::string& path) {
  std::string text = "[host]\nvcpus = 2\nmemory = \"4GB\"\n";
  int capacity_gb = 20;
  for (const char* name : {"wal", "v1", "v2", "v3"}) {
    const bool wal = std::string(name) == "wal";
    std::string directory;
    PGLAYOUT_RETURN_IF_ERROR(pg->MakeDirectory(dir + "/" + name, &directory));
    text += fmt::format(
        "[[volume]]\nname = \"{}\"\npath = \"{}\"\ncapacity = "
        "\"{}GB\"\nread_iops = {}\nwrite_iops = {}\nread_mbps = 200\n"
        "write_mbps = 200\nread_latency_us = 500\n"
        "sync_write_latency_us = {}\nmembers = 1\n",
        name, directory, capacity_gb++, wal ? 100 * data_iops : data_iops,
        wal ? 100 * data_iops : data_iops, wal ? 100 : 900);
  }
  return WriteTextFile(path, text);
}

}  // namespace pglayout

#endif  // PGLAYOUT_TESTS_RUN_PGLAYOUT_H_
