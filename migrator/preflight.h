// Preflight: everything that must hold before `migrate` changes anything.
//
// Pure: it judges a plan against facts read beforehand (server_facts.h) and the
// free space of the target directories (free_space.h), so every rule is
// unit-tested with hand-made facts (a replica, a non-superuser, a table
// without a primary key...). A refusal names the object and the reason;
// warnings are printed and do not stop the run.

#ifndef PGLAYOUT_MIGRATOR_PREFLIGHT_H_
#define PGLAYOUT_MIGRATOR_PREFLIGHT_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/model.h"
#include "migrator/facts.h"

namespace pglayout::migrator {

struct Finding {
  enum class Severity { kRefusal, kWarning };
  Severity severity = Severity::kRefusal;
  std::string object;  // "server", "tablespace fast1", "public.orders"
  std::string reason;

  // "public.orders: has no primary key ...", one line: control characters
  // in names escaped (DisplayName).
  std::string ToString() const;
};

struct PreflightInput {
  const Plan* plan = nullptr;
  const ServerFacts* server = nullptr;
  // Facts for each placement's relation, keyed by Placement::relation.
  const std::map<std::string, TableFacts>* tables = nullptr;
  // Free bytes of each directory (tablespace paths and the data directory)
  // as seen from this host; a path that is absent is unknown.
  std::map<std::string, uint64_t> free_bytes;
  // Placements (by relation) and tablespaces (by name) whose steps already
  // started in a journaled run: their checks were passed then, and the
  // system catalogs have moved on since (a swapped table is partitioned now).
  std::set<std::string> started_relations;
  std::set<std::string> started_tablespaces;
  double space_margin = 1.2;  // copies need size x margin free
  // The copy rate assumed for an offline move's lock time (MB/s of 10^6),
  // which a refused online move's message forecasts.
  double offline_rate_mbps = 200;
  // The memory an online index build sorts in (maintenance_work_mem as the
  // migrator raises it); a larger sort spills to temp files in
  // ServerFacts::temp_tablespaces. 0 = not counted.
  uint64_t sort_memory = 0;
  // Started placements (by relation) whose index builds are still ahead:
  // a resumed copy.
  std::set<std::string> sorts_ahead;
  // The user made each new tablespace's directory on every standby.
  bool standby_dirs_ready = false;
  // Free bytes of the volume holding pg_wal as seen from this host; 0 =
  // unknown.
  uint64_t wal_free_bytes = 0;
};

// Runs every check and returns all findings (refusals first). Never stops
// at the first problem: a person fixes a plan in one round.
std::vector<Finding> RunPreflight(const PreflightInput& input);

// True if any finding is a refusal.
bool HasRefusal(const std::vector<Finding>& findings);

// The bytes a placement writes into each target tablespace: the whole
// relation (heap, TOAST, indexes) for a move; 1/k per partition for hash
// partitioning.
std::map<std::string, uint64_t> BytesPerTablespace(const Placement& placement,
                                                   const TableFacts& table);

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_PREFLIGHT_H_
