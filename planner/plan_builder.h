// `pglayout plan` as a library call: volumes + workload -> plan (the WAL's
// volume, the placement of table groups, remedies for tables too hot for
// one volume, the forecast before and after, settings and verdicts).
// Pure computation: no I/O, no clock, no randomness; the same inputs give
// the same plan (and the same bytes once written).
// The phases, each its own unit called in order by BuildPlan: plan_inputs.h
// (options, models, demand, where things are now), wal_placement.h,
// remedy_search.h over layout.h, then plan_placements.h, forecast.h,
// plan_settings.h and plan_verdicts.h. docs/planning.md#the-phases.

#ifndef PGLAYOUT_PLANNER_PLAN_BUILDER_H_
#define PGLAYOUT_PLANNER_PLAN_BUILDER_H_

#include <optional>
#include <string>
#include <vector>

#include "common/model.h"
#include "common/status.h"
#include "planner/bound.h"
#include "planner/forecast.h"
#include "planner/plan_inputs.h"
#include "planner/plan_sql.h"
#include "planner/pools.h"
#include "planner/recommend.h"
#include "planner/remedy_search.h"

namespace pglayout::planner {

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
