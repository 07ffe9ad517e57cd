// The plan report for people (stdout of `pglayout plan`): the device model
// of each volume, where the WAL goes and why, the hot relations and the
// remedies weighed for them, every placement with its reason, the forecast
// before and after, the bound, the settings with their reasons, backup
// advice and the verdicts.

#ifndef PGLAYOUT_PLANNER_PLAN_TEXT_H_
#define PGLAYOUT_PLANNER_PLAN_TEXT_H_

#include <string>

#include "common/json.h"
#include "planner/plan_builder.h"

namespace pglayout::planner {

std::string RenderPlanText(const PlanOutcome& outcome);

// plan.json: ToJson(plan) plus "analysis" (the bound, the plan's own
// figures and the hot relations with both remedies weighed).
Json PlanJson(const PlanOutcome& outcome);

}  // namespace pglayout::planner

#endif  // PGLAYOUT_PLANNER_PLAN_TEXT_H_
