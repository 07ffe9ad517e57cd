// Beyond one host: a Citus distribution plan (`pglayout plan --hosts
// auto|N`), pure computation over the workload. BuildDistribution gives
// every table group a role (reference, distributed on one column, or local,
// with the why) and the co-location groups; PlanCitus sizes the workers
// (each planned like a host, with its share of the load) and the shard
// count; citus_sql.cc writes it out. The model and its rules:
// docs/citus.md.

#ifndef PGLAYOUT_PLANNER_CITUS_PLAN_H_
#define PGLAYOUT_PLANNER_CITUS_PLAN_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/model.h"
#include "common/status.h"
#include "common/volume_catalog.h"
#include "planner/capacity.h"
#include "planner/plan_builder.h"

namespace pglayout::planner {

// A foreign key as Relation::foreign_keys_out records it:
// "name (col, ...) -> schema.table (col, ...)", columns quoted as
// quote_ident does; files written before the columns were recorded have
// "name -> schema.table" (columns then empty).
struct ForeignKey {
  std::string name;
  std::vector<std::string> columns;  // of the referencing table, raw names
  std::string table;                 // referenced, as a regclass prints
  std::vector<std::string> ref_columns;
};
// False when |text| is not of either form.
bool ParseForeignKey(const std::string& text, ForeignKey* out);

struct CitusOptions {
  // Worker hosts (the coordinator is one more); 0 = the fewest that carry
  // the workload at the target.
  int workers = 0;
  int max_workers = 64;  // the search for the fewest stops here
  int shard_count = 0;   // 0 = chosen (ShardCount)
  // A reference table is copied whole to every worker and every write to it
  // is applied on each: only small, read-mostly tables qualify.
  uint64_t reference_max_bytes = 1ull << 30;  // with growth, at the horizon
  double reference_max_changes = 10;  // row changes per second at the peak
  // Distribution columns given by the user (--key TABLE=COLUMN).
  std::map<std::string, std::vector<std::string>> keys;
};

enum class CitusRole { kDistributed, kReference, kLocal };
const char* CitusRoleName(CitusRole role);  // "distributed", ...

struct CitusTable {
  std::string table;
  CitusRole role = CitusRole::kLocal;
  std::string column;         // distributed: the distribution column
  int group = -1;             // distributed: index into Distribution::groups
  std::string colocate_with;  // distributed: "none" or the group's anchor
  std::string why;            // why this role (and column)
  std::vector<std::string> cautions;  // what to check before running it
  // The tables its foreign keys lead to (itself left out), for the
  // report's diagram of the groups.
  std::vector<std::string> references;
  uint64_t bytes = 0;         // with indexes and TOAST, now
  uint64_t bytes_needed = 0;  // with growth over the horizon
  double read_iops = 0;
  double write_iops = 0;          // as the volumes receive them (checkpoints)
  double changes_per_second = 0;  // row inserts + updates + deletes
};

struct ColocationGroup {
  std::string anchor;               // created first, colocate_with 'none'
  std::vector<std::string> tables;  // in creation order, anchor first
  std::string column_note;          // "customer_id / id", for people
  uint64_t bytes_needed = 0;
  // The foreign keys that make it one group (both distribution columns in
  // one position): the edges of its graph, self-references included.
  struct Edge {
    std::string from;  // the referencing table
    std::string to;    // the referenced one
    std::string constraint;
  };
  std::vector<Edge> edges;
  // Why its tables are one group, one line each: "foreign key c (a -> b)",
  // or "a and b are both distributed by order_id bigint" (the same key
  // name and type).
  std::vector<std::string> evidence;
};

struct Distribution {
  // In the order citus.sql creates them: reference tables (referenced ones
  // first), then distributed tables (parents before children); local ones
  // last (they have no statement).
  std::vector<CitusTable> tables;
  std::vector<ColocationGroup> groups;
  // "table: why it cannot follow its parent's group", one line each.
  std::vector<std::string> not_following;
  // Foreign keys Citus would refuse, with why and what to do; citus.sql
  // carries the DROP CONSTRAINT commented out for a person to decide.
  struct DroppedKey {
    std::string table;
    std::string constraint;
    std::string why;
  };
  std::vector<DroppedKey> dropped_keys;

  const CitusTable* Find(const std::string& table) const;
};

// Phase 1. InvalidInput for the workload errors BuildDemand reports, and for
// a --key naming a table that is not in the workload.
Status BuildDistribution(const Workload& workload, const PlanOptions& options,
                         const CitusOptions& citus, Distribution* out);

// The shard count for |workers| workers: workers x 2^m with m >= 3 (8
// shards per worker: the cluster can double twice and keep at least 2 per
// worker, spread evenly by citus_rebalance_start), at least 32 (Citus's
// default citus.shard_count), and doubled while a shard of the largest
// distributed table would exceed 50 GiB at the horizon (a shard moves
// whole: smaller shards move and rebalance faster). |why| says which rule
// decided.
int ShardCount(int workers, uint64_t largest_table_bytes, std::string* why);

// What one node carries and how the planner forecasts it.
struct NodeForecast {
  std::string name;  // "coordinator", "worker1", ...
  uint64_t bytes = 0;
  double read_iops = 0;
  double write_iops = 0;
  double max_utilization = 0;  // the node's worst data volume
  // The same before the distribution: the coordinator is today's host,
  // carrying the whole workload where it is now (0 when its volumes are
  // not known); a worker is a new host, 0.
  double max_utilization_before = 0;
  bool fits = false;
  std::string note;  // the node plan's headline or why it failed
  std::vector<ForecastEntry> volumes;
  double price = 0;  // per month, catalog sizing only
};

// Where the workers' volumes come from: a VolumeSet (--worker-volumes, or
// the host's own), or a catalog to buy the cheapest set from per worker.
struct WorkerVolumes {
  const VolumeSet* volumes = nullptr;
  const Catalog* catalog = nullptr;
  CapacityOptions capacity;  // with a catalog
  std::string description;   // "--worker-volumes w.toml", for people
};

struct CitusPlan {
  std::string reason;  // why a distribution is proposed
  Distribution distribution;
  int workers = 0;
  std::string workers_why;
  int shard_count = 0;
  std::string shard_count_why;
  std::string worker_volumes;                 // WorkerVolumes::description
  std::vector<NodeForecast> worker_forecast;  // one per worker
  NodeForecast coordinator;
  uint64_t reference_max_bytes = 0;
  double reference_max_changes = 0;
  std::vector<std::string> verdicts;
};

// The workload one worker of |workers| carries (docs/citus.md#sizing).
Workload WorkerWorkload(const Workload& workload, const Distribution& d,
                        int workers);
// The coordinator's: the local tables and their share of the WAL.
Workload CoordinatorWorkload(const Workload& workload, const Distribution& d);

// Phases 1 and 2. |coordinator| holds the coordinator's volumes (the host
// planned for; null or empty: sized like a worker, from |workers|).
// InvalidInput for bad options (workers 1 or fewer than 0, no worker volumes)
// and for the errors BuildDistribution reports. A workload no count of workers
// carries is not an error: the verdicts say so.
Status PlanCitus(const Workload& workload, const PlanOptions& options,
                 const CitusOptions& citus, const WorkerVolumes& workers,
                 const VolumeSet* coordinator, const std::string& reason,
                 CitusPlan* out);

// Whether the single-host plan misses the target, judged as its fit
// verdict judges it: a data volume over it, or a pool (the instance's
// storage caps, volumes measured together). |why| says which, for
// CitusPlan::reason.
bool SingleHostFallsShort(const PlanOutcome& outcome,
                          const PlanOptions& options, std::string* why);

// Output (citus_sql.cc). citus.sql: CREATE EXTENSION, citus_add_node
// placeholders, the foreign keys to drop (commented out), reference tables,
// distributed tables, each with what it locks and copies.
std::string CitusSql(const CitusPlan& plan);
// The [citus] section appended to plan.toml (migrate does not execute it).
std::string CitusToml(const CitusPlan& plan);
Json CitusJson(const CitusPlan& plan);
// The distribution for people, for the plan's text.
std::string RenderCitusText(const CitusPlan& plan);

}  // namespace pglayout::planner

#endif  // PGLAYOUT_PLANNER_CITUS_PLAN_H_
