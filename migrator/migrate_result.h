// What `pglayout migrate` returns (MigrateResult): the preflight's
// findings, the steps, the lines for people and the settings still away
// from their original. Shared by migrator.h and executor.h.

#ifndef PGLAYOUT_MIGRATOR_MIGRATE_RESULT_H_
#define PGLAYOUT_MIGRATOR_MIGRATE_RESULT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "migrator/preflight.h"
#include "migrator/steps.h"

namespace pglayout::migrator {

// A setting an earlier run left away from its original (kStatus).
struct SettingStatus {
  int64_t run_id = 0;
  std::string name;
  // "pending" or "applied" (raised by an unfinished run), "deferred",
  // "left"
  std::string state;
  std::string original;  // the value it goes back to
  std::string raised;    // the value the run set
  std::string since;     // when it got that state (timestamptz text)
};

struct MigrateResult {
  std::vector<Finding> findings;
  std::vector<Step> steps;
  int64_t run_id = 0;
  bool resumed = false;
  std::vector<std::string> lines;  // what was done, for people
  int64_t checkpoints_timed = -1;  // during the run; -1 = not measured
  int64_t checkpoints_requested = -1;
  std::vector<SettingStatus> settings;  // kStatus: not yet restored
  // The run's final comparison of online copies (--verify, or what a
  // resumed run was started with): "full" or "off"; "" = no plan was run.
  std::string verify;
};

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_MIGRATE_RESULT_H_
