// The forecast of the laid-out plan: each volume's load before (where the
// data and pg_wal are now) and after, a stripe as one volume; the shared
// hardware as pools; the volumes as the report shows them; the lower bound
// and the plan's own figures beside it.
// docs/planning.md#the-phases, phase 4; docs/planning.md#the-lower-bound.

#ifndef PGLAYOUT_PLANNER_FORECAST_H_
#define PGLAYOUT_PLANNER_FORECAST_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/model.h"
#include "planner/bound.h"
#include "planner/layout.h"
#include "planner/plan_inputs.h"
#include "planner/pools.h"
#include "planner/stripes.h"
#include "planner/wal_placement.h"

namespace pglayout::planner {

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

// One entry per volume (stripe members left out), then the data stripe and
// the WAL's stripe, rounded so that plan files stay byte-stable.
// |own_after| gets each volume's own load after, its device aside.
std::vector<ForecastEntry> ForecastVolumes(
    const PlanInputs& in, const WalPlacement& wal, const Layout& layout,
    const std::optional<StripeState>& stripe, std::vector<double>* own_after);

// Each device under more than one volume (from |forecast|), what probe
// --concurrent measured, then the instance's caps.
std::vector<PoolForecast> ForecastPools(
    const PlanInputs& in, const std::vector<ForecastEntry>& forecast,
    const std::vector<double>& own_after);

// Every volume with its role, then the stripes.
std::vector<VolumeView> ViewVolumes(const PlanInputs& in,
                                    const WalPlacement& wal,
                                    const Layout& layout,
                                    const std::optional<StripeState>& stripe);

struct LayoutFigures {
  Bound bound;                 // a perfect spread over the data devices
  double mean_latency_us = 0;  // the plan's, comparable with the bound
  double max_utilization = 0;  // the plan's worst data volume
  double read_iops = 0;        // every read placed
};
LayoutFigures FiguresOf(const PlanInputs& in, const Layout& layout);

}  // namespace pglayout::planner

#endif  // PGLAYOUT_PLANNER_FORECAST_H_
