// The groups of checks RunPreflight (preflight.h) makes, each on the facts
// it needs, each returning its findings in the order found. Internal to
// the migrator. What each refuses and why:
// docs/online-migration.md#before-anything-changes.

#ifndef PGLAYOUT_MIGRATOR_PREFLIGHT_CHECKS_H_
#define PGLAYOUT_MIGRATOR_PREFLIGHT_CHECKS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/model.h"
#include "migrator/facts.h"
#include "migrator/preflight.h"

namespace pglayout::migrator {

// Findings as a check makes them.
struct Findings {
  std::vector<Finding> list;

  void Refuse(const std::string& object, const std::string& reason) {
    list.push_back({Finding::Severity::kRefusal, object, reason});
  }
  void Warn(const std::string& object, const std::string& reason) {
    list.push_back({Finding::Severity::kWarning, object, reason});
  }
};

// The server: its version, recovery, another run, the journal's privilege.
std::vector<Finding> CheckServer(const ServerFacts& server);

// A tablespace the plan creates (or finds in place): its directory, the
// standbys that replay its creation, the privilege.
std::vector<Finding> CheckTablespace(const TablespaceSpec& ts,
                                     const ServerFacts& server,
                                     bool standby_dirs_ready);

// The structure of existing relation |t| against what placement |p| does
// to it (an offline or online move, a hash-partition conversion). A
// refused online move says what the offline one would lock, at
// |offline_rate_mbps|.
std::vector<Finding> CheckRelation(const Placement& p, const TableFacts& t,
                                   const ServerFacts& server,
                                   double offline_rate_mbps);

// What a role that is not a superuser needs to carry out placement |p| of
// relation |t|: the owner's privileges, CREATE on each target tablespace
// that exists (one the plan creates needs a superuser: CheckTablespace).
std::vector<Finding> CheckPrivileges(const Placement& p, const TableFacts& t,
                                     const ServerFacts& server);

// A placement still to carry out, with its relation's facts.
struct PlacementWork {
  const Placement* placement = nullptr;
  const TableFacts* table = nullptr;
};

// Bytes each target tablespace receives from |pending|.
std::map<std::string, uint64_t> BytesToCopy(
    const std::vector<PlacementWork>& pending);

// The temp-file bytes of the largest index build among |builds|
// (docs/online-migration.md#sort-spill): a copy's builds sort in
// |sort_memory| or the server's maintenance_work_mem if larger, REINDEX
// CONCURRENTLY in the server's. 0 when |sort_memory| is 0 (not counted).
uint64_t SortSpill(const std::vector<PlacementWork>& builds,
                   uint64_t sort_memory, const ServerFacts& server);

// Room for |copies| (bytes by tablespace) and |spill| (in each of the
// server's temp_tablespaces) with |margin|, in the directories' free bytes
// |free_bytes| as seen from this host.
std::vector<Finding> CheckFreeSpace(
    const Plan& plan, const ServerFacts& server,
    std::map<std::string, uint64_t> copies, uint64_t spill,
    const std::map<std::string, uint64_t>& free_bytes, double margin);

// Inactive replication slots and a failing archiver that would keep the
// WAL of |bulk_bytes| of copies, on a WAL volume with |wal_free_bytes|
// (0 = unknown) free (docs/online-migration.md#wal-retention).
std::vector<Finding> CheckWalRetention(const ServerFacts& server,
                                       uint64_t bulk_bytes,
                                       uint64_t wal_free_bytes);

// The plan's [settings] against the server's settings and privileges.
std::vector<Finding> CheckSettings(const std::vector<SettingChange>& settings,
                                   const ServerFacts& server);

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_PREFLIGHT_CHECKS_H_
