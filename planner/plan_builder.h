// `pglayout plan` as a library call: volumes + workload -> plan (the WAL's
// volume, the placement of table groups, remedies for tables too hot for
// one volume, the forecast before and after, settings and verdicts).
// Pure computation: no I/O, no clock, no randomness; the same inputs give
// the same plan (and the same bytes once written).
// The steps: docs/planning.md#the-steps.

#ifndef PGLAYOUT_PLANNER_PLAN_BUILDER_H_
#define PGLAYOUT_PLANNER_PLAN_BUILDER_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/model.h"
#include "common/status.h"
#include "common/units.h"
#include "planner/bound.h"
#include "planner/demand.h"
#include "planner/plan_sql.h"
#include "planner/pools.h"
#include "planner/recommend.h"
#include "planner/remedy.h"

namespace pglayout::planner {

struct PlanOptions {
  double target_utilization = 0.7;         // 0 < target <= 1
  std::string prefer = "auto";             // "partition", "stripe" or "auto"
  double headroom = 0.2;                   // fraction of each volume kept free
  double horizon_seconds = 180 * 86400.0;  // growth projected this far
  // A declared growth rate (--growth), used in place of each relation's
  // observed growth, and even when the observation was too short to
  // project it; nullopt = the observed growth.
  std::optional<GrowthRate> growth;
  // A base backup reads the whole database within this window during the
  // peak (--backup-window); 0 = no backup counted.
  double backup_window_seconds = 0;
  double recovery_budget_seconds = 900;
  // Hash keys given by the user: table -> columns. Default: primary key.
  std::map<std::string, std::vector<std::string>> keys;
  // The WAL's volume when the caller sized one for it (capacity planning,
  // planner/capacity.h); "" = the lowest fdatasync latency.
  std::string wal_volume;
};

// One remedy as the plan forecast it: the complete plan that remedies what
// is too hot with hash partitions only ("hash_partition"), or with a stripe
// first ("stripe"; partitions for what else stays too hot).
struct RemedyForecast {
  std::string remedy;     // "hash_partition" or "stripe"
  std::string summary;    // what the plan does, in words
  bool possible = false;  // it can be built here (see blocker)
  std::string blocker;    // why not, when !possible
  int width = 0;          // stripe members (or, for one table, its partitions)
  std::vector<std::string> members;  // the stripe's volumes
  double worst_utilization = 0;      // the plan's worst data volume
  double mean_read_latency_us = 0;   // the plan's, over every read
  bool meets_target = false;         // worst not above the target
  bool helps = false;  // lowers the worst utilisation (or the table needs it)
};

// Which remedy, and why, from the two forecasts (pure; unit-tested):
//  1. one possible: that one; neither: "none";
//  2. --prefer partition|stripe: the preferred one, unless it does not meet
//     the target and the other does (or both miss and the other is lower
//     by more than kRemedyTolerance): then the other, saying why;
//  3. auto: the one that meets the target when only one does; else the
//     lower worst utilisation (by more than kRemedyTolerance), else the
//     lower mean read latency (by more than 5%), else the operational cost:
//     on a live server hash partitions (online, one table changes; a stripe
//     needs empty volumes and a rebuild, and losing one member loses every
//     object on it), for a new build a stripe (no schema change).
// A remedy that does not help is not chosen.
inline constexpr double kRemedyTolerance = 0.03;
struct RemedyChoice {
  std::string chosen;  // "hash_partition", "stripe" or "none"
  std::string reason;  // why, and why the other lost
};
RemedyChoice ChooseRemedy(const RemedyForecast& partition,
                          const RemedyForecast& stripe,
                          const std::string& prefer, bool live, double target);

// One relation that needed more than one volume, and what the plan did.
struct HotRelation {
  std::string table;
  double best_single_utilization = 0;  // on the best volume, alone
  bool must = false;                   // too hot for any one volume
  PartitionCheck partition;            // feasibility of hash partitioning
  int partitions = 0;                  // chosen k, 0 when not partitioned
  std::string stripe;                  // stripe name when striped instead
  std::vector<std::string> stripe_members;
  std::string stripe_blocker;     // why a stripe was not possible
  std::string partition_blocker;  // why partitioning was not, when "none"
  std::string chosen;             // "hash_partition", "stripe", "none"
  std::string why;                // the trade-off in one sentence
};

// The two complete plans side by side, and the choice between them.
struct RemedyComparison {
  RemedyForecast partition;
  RemedyForecast stripe;
  RemedyChoice choice;
};

struct VolumeView {  // one volume (or stripe) as the report shows it
  std::string name;
  std::string model;  // DeviceModel::Describe()
  double read_capacity = 0;
  double write_capacity = 0;
  uint64_t capacity = 0;
  uint64_t bytes_after = 0;
  // "wal", "data", "wal+data", "stripe member", "stripe", or "wal's
  // device" (on the WAL's device: no data)
  std::string role;
};

struct PlanOutcome {
  Plan plan;
  std::vector<HotRelation> hot;
  // Set when some table needed a remedy: both remedies' plans forecast.
  std::optional<RemedyComparison> remedies;
  std::vector<VolumeView> volumes;
  // Hardware the volumes share (planner/pools.h): each device under more
  // than one volume, then the instance when it declares storage caps.
  std::vector<PoolForecast> pools;
  Bound bound;
  double mean_latency_us = 0;  // the plan's, comparable with the bound
  double max_utilization = 0;  // the plan's worst data volume
  BackupAdvice backup;
  SqlObjects sql_objects;  // what plan.sql needs about the relations
  bool live = false;       // a running server (vs a new build)
  // Where the data directory, pg_wal and tablespaces are now and on which
  // volume, one line each, for the plan's text.
  std::vector<std::string> where_now;
  int tables = 0;  // table groups considered
  int moves = 0;
  int partitioned = 0;
};

// The demand options the plan uses for |workload|: the horizon (0 when the
// growth is observed over less than an hour: it says nothing about months),
// the declared growth, the workload's checkpoint_timeout with the
// recommended completion target, and the backup window. Capacity planning
// (capacity.h) sizes with the same.
DemandOptions DemandOptionsFor(const PlanOptions& options,
                               const Workload& workload);

// InvalidInput for bad inputs: no volumes, a relation larger than every
// volume, a --key naming a missing table or a column outside its primary
// key, bad options (a wal_volume that is not a volume), or data that does
// not fit in the volumes at all.
Status BuildPlan(const VolumeSet& volumes, const Workload& workload,
                 const PlanOptions& options, PlanOutcome* outcome);

// The load of |workload| on each volume where its data is now, through
// the same device model: a plan's "before" columns, without planning. Given
// the workload observed after a migration, it is what the layout measured,
// for holding the plan's forecast to (pglayout report --after). Entries
// carry utilization_before, read_latency_us_before and the rates; the
// "after" fields are left 0. Errors as BuildPlan's.
Status LoadWhereItIs(const VolumeSet& volumes, const Workload& workload,
                     std::vector<ForecastEntry>* load);

}  // namespace pglayout::planner

#endif  // PGLAYOUT_PLANNER_PLAN_BUILDER_H_
