// The plan's verdicts, its conclusions in plain words, once everything else
// is assembled: the WAL's volume (and its move), shared hardware, each hot
// relation and the remedies side by side, the fit (with what it would take),
// headroom, the instance's caps, growth, the bound and the capacity.
// docs/planning.md#the-phases, phase 5; the judgements: planner/verdicts.h.

#ifndef PGLAYOUT_PLANNER_PLAN_VERDICTS_H_
#define PGLAYOUT_PLANNER_PLAN_VERDICTS_H_

#include <string>
#include <vector>

#include "common/model.h"
#include "planner/forecast.h"
#include "planner/layout.h"
#include "planner/plan_inputs.h"
#include "planner/pools.h"
#include "planner/remedy_search.h"
#include "planner/wal_placement.h"

namespace pglayout::planner {

// What the verdicts read of the assembled plan.
struct AssembledPlan {
  const Plan& plan;  // its forecast, wal_volume, wal_now_note, wal_move
  const std::vector<PoolForecast>& pools;
  const std::vector<double>& own_after;  // per volume, ForecastVolumes'
  const LayoutFigures& figures;
};

// The verdicts in the order the plan prints them.
std::vector<std::string> PlanVerdicts(const PlanInputs& in,
                                      const WalPlacement& wal,
                                      const Layout& layout,
                                      const RemedyPlan& remedies,
                                      const AssembledPlan& assembled);

}  // namespace pglayout::planner

#endif  // PGLAYOUT_PLANNER_PLAN_VERDICTS_H_
