// What a migration left behind, checked on the live server: each table's
// rows (a count and a checksum, before and after), where each relation the
// plan moves now lives, the migrator's own verification at its swaps, and
// where a running migration's copy stands (to kill it halfway).
//
//   std::vector<TableCheck> tables;
//   ListTables(session, {{"events", "id"}}, &tables);   // before
//   ChecksumTables(session, /*after=*/false, &tables);
//   ... pglayout migrate --apply ...
//   ChecksumTables(session, /*after=*/true, &tables);  // each Same()
//
// The fidelity scenario (testing/fidelity_scenario.h) runs them for the demo
// and the fidelity test.

#ifndef PGLAYOUT_TESTING_MIGRATION_CHECK_H_
#define PGLAYOUT_TESTING_MIGRATION_CHECK_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/model.h"
#include "common/status.h"
#include "pg/sql.h"

namespace pglayout {

// The kill and the resume of the migration (FidelitySpec::kill_and_resume).
struct KillResume {
  bool killed = false;      // false: the run ended before it could be killed
  std::string step;         // the journal's step being copied at the kill
  std::string phase;        // and its phase ("copy")
  int64_t rows_copied = 0;  // by then
  int64_t rows_total = 0;   // the source's rows (pg_class.reltuples)
  bool resumed = false;     // the second run said "run N resumed"
  std::string run_state;    // the journal's run at the end: "done"
};

// One table before the migration and at the end (FidelitySpec::check_rows).
// Tables the workload inserts into are compared on the rows they held
// before the migration (|rows_filter|); rows_now counts all of them.
struct TableCheck {
  std::string table;
  std::string rows_filter;  // "" = every row
  int64_t rows_before = 0, rows_after = 0;
  std::string checksum_before, checksum_after;  // sum of hashes of each row
  int64_t rows_now = 0;
  bool Same() const {
    return rows_before == rows_after && checksum_before == checksum_after;
  }
};

// Where a relation of the plan lives after the migration.
struct PlacementCheck {
  std::string relation;
  std::string strategy;              // "move", "hash_partition"
  std::vector<std::string> planned;  // tablespaces, sorted
  std::vector<std::string> found;    // the table's or its partitions'
  std::string reason;                // the plan's
};

// The migrator's own verification at each swap (pglayout.verification).
struct StepVerification {
  std::string step;
  int64_t source_rows = 0, new_rows = 0;
  bool sums_equal = false;
};

// The tables of schema public (partitioned tables whole, not their
// partitions), sorted. A table named in |growing| (table -> a column that
// only grows: an identity, a timestamp of insertion) is compared on the rows
// it held now: rows_filter becomes "<column> <= <its maximum now>".
Status ListTables(SqlSession* session,
                  const std::map<std::string, std::string>& growing,
                  std::vector<TableCheck>* tables);

// Counts and checksums each table (the rows its filter keeps; the checksum
// is the sum of hashtextextended(row::text, 0)) into its _before or _after
// fields; after, rows_now counts every row.
Status ChecksumTables(SqlSession* session, bool after,
                      std::vector<TableCheck>* tables);

// Where each relation of |plan| that moves or is partitioned lives now: the
// tablespaces of the table itself, or of its partitions.
Status CheckPlacements(SqlSession* session, const Plan& plan,
                       std::vector<PlacementCheck>* placements);

// The last run's pglayout.verification rows.
Status ReadVerifications(SqlSession* session,
                         std::vector<StepVerification>* verifications);

// The running run's step that is copying rows, if any (*found): its key,
// phase, rows copied so far and the source's rows, into *progress.
Status ReadCopyProgress(SqlSession* session, KillResume* progress, bool* found);

// The state of the journal's last run ("done"), "" when there is none.
Status ReadLastRunState(SqlSession* session, std::string* state);

}  // namespace pglayout

#endif  // PGLAYOUT_TESTING_MIGRATION_CHECK_H_
