#include "planner/plan_builder.h"

#include <fmt/format.h>

#include <optional>

#include "planner/forecast.h"
#include "planner/layout.h"
#include "planner/plan_inputs.h"
#include "planner/plan_placements.h"
#include "planner/plan_settings.h"
#include "planner/plan_verdicts.h"
#include "planner/remedy_search.h"
#include "planner/stripes.h"
#include "planner/verdicts.h"
#include "planner/wal_placement.h"

namespace pglayout::planner {
namespace {

// The stripes the plan builds, for stripe.sh: the data's, then the WAL's.
std::vector<Stripe> PlanStripes(const PlanInputs& in, const WalPlacement& wal,
                                const std::optional<StripeState>& stripe) {
  std::vector<Stripe> out;
  if (stripe) {
    out.push_back(DescribeStripe(
        in, *stripe, kStripeChunk,
        fmt::format("RAID0 of {} alike, empty volumes: {:.0f} read IOPS "
                    "together; {} chunk keeps each 8 KiB read on one member "
                    "while large reads span members",
                    stripe->members.size(), stripe->model.read_capacity(),
                    HumanSize(static_cast<double>(kStripeChunk)))));
  }
  if (wal.stripe) {
    out.push_back(DescribeStripe(
        in, *wal.stripe, kWalStripeChunk,
        fmt::format("RAID0 of {} alike, empty volumes for pg_wal: {:.0f} "
                    "write IOPS{} together, the WAL at {}; {} chunk so that "
                    "a group-commit flush of a few hundred KiB spans members",
                    wal.stripe->members.size(),
                    wal.stripe->model.write_capacity(),
                    wal.stripe->model.write_mbps() > 0
                        ? fmt::format(" and {:.0f} MB/s",
                                      wal.stripe->model.write_mbps())
                        : "",
                    Percent(wal.utilization),
                    HumanSize(static_cast<double>(kWalStripeChunk)))));
  }
  return out;
}

// What plan.sql needs about the relations.
SqlObjects SqlObjectsOf(const PlanInputs& in) {
  SqlObjects objects;
  for (const TableDemand& d : in.tables) {
    if (!d.indexes.empty()) objects.indexes[d.table] = d.indexes;
    if (d.facts != nullptr && IsLeafPartition(*d.facts)) {
      objects.partition_parents[d.table] = PartitionParent(*d.facts);
    }
  }
  for (const TablespaceInfo& t : in.workload.tablespaces) {
    objects.existing_tablespaces.insert(t.name);
  }
  objects.server_version_num = in.version;
  return objects;
}

}  // namespace

// The workload through to the plan, one phase after another; each reads
// what the earlier ones returned.
Status BuildPlan(const VolumeSet& volumes, const Workload& workload,
                 const PlanOptions& options, PlanOutcome* outcome) {
  // 1. Where the data and the WAL are now, and the demand on them.
  PlanInputs in(volumes, workload, options);
  PGLAYOUT_RETURN_IF_ERROR(ReadInputs(&in));
  // 2. The WAL's volume (or stripe).
  WalPlacement wal;
  PGLAYOUT_RETURN_IF_ERROR(PlaceWal(in, &wal));
  // 3. The tables on the data volumes, with remedies for what is too hot,
  //    laid out as chosen (the layout points into |remedies|' stripe).
  RemedyPlan remedies;
  PGLAYOUT_RETURN_IF_ERROR(SearchRemedies(in, wal, &remedies));
  Layout layout;
  PGLAYOUT_RETURN_IF_ERROR(
      LayOut(in, wal, remedies.parts, remedies.stripe, &layout));
  ExplainRemedies(in, layout, &remedies);

  PlanOutcome out;
  Plan& plan = out.plan;
  plan.target_utilization = options.target_utilization;
  plan.prefer = options.prefer;
  plan.wal_volume = wal.Name(in);
  plan.wal_reason = WalReason(in, wal);
  out.live = in.live;
  out.tables = static_cast<int>(in.tables.size());
  out.hot = remedies.hot;
  out.remedies = remedies.comparison;
  // 4. The placements and the stripes that carry them.
  TablePlacements placed = PlaceTables(in, layout, remedies);
  plan.placements = std::move(placed.placements);
  plan.tablespaces = std::move(placed.tablespaces);
  out.moves = placed.moves;
  out.partitioned = placed.partitioned;
  plan.stripes = PlanStripes(in, wal, remedies.stripe);
  // 5. The forecast, before and after, and the hardware the volumes share.
  std::vector<double> own_after;
  plan.forecast = ForecastVolumes(in, wal, layout, remedies.stripe, &own_after);
  out.pools = ForecastPools(in, plan.forecast, own_after);
  WhereItIsNow now = DescribeWhereItIsNow(in, wal, plan.forecast);
  plan.warnings = std::move(now.warnings);
  out.where_now = std::move(now.where_now);
  plan.wal_now = std::move(now.wal_now);
  plan.wal_now_note = std::move(now.wal_now_note);
  plan.wal_move = std::move(now.wal_move);
  out.volumes = ViewVolumes(in, wal, layout, remedies.stripe);
  const LayoutFigures figures = FiguresOf(in, layout);
  out.bound = figures.bound;
  out.mean_latency_us = figures.mean_latency_us;
  out.max_utilization = figures.max_utilization;
  // 6. Settings.
  PlanSettings settings =
      RecommendSettings(in, wal, layout, remedies.stripe, figures);
  plan.settings = std::move(settings.settings);
  out.backup = settings.backup;
  plan.backup_walg = out.backup.walg;
  plan.backup_pgbackrest = out.backup.pgbackrest;
  // 7. Verdicts, from the plan as assembled.
  plan.verdicts = PlanVerdicts(in, wal, layout, remedies,
                               {plan, out.pools, own_after, figures});
  out.sql_objects = SqlObjectsOf(in);
  *outcome = std::move(out);
  return Status::Ok();
}

Status LoadWhereItIs(const VolumeSet& volumes, const Workload& workload,
                     std::vector<ForecastEntry>* load) {
  PlanOutcome outcome;
  PGLAYOUT_RETURN_IF_ERROR(
      BuildPlan(volumes, workload, PlanOptions{}, &outcome));
  load->clear();
  for (const ForecastEntry& f : outcome.plan.forecast) {
    if (volumes.Find(f.volume) == nullptr) continue;  // a proposed stripe
    ForecastEntry now;
    now.volume = f.volume;
    now.utilization_before = f.utilization_before;
    now.read_latency_us_before = f.read_latency_us_before;
    load->push_back(now);
  }
  return Status::Ok();
}

}  // namespace pglayout::planner
