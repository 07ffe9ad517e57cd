// The plan's tablespaces and placements from the laid-out plan: a
// tablespace per data volume the plan uses (an existing one on it, else a
// new one; pg_default for the data directory's volume), and per table group
// whether it stays, moves (online, or offline with the reason) or is hash
// partitioned, each with its reason.

#ifndef PGLAYOUT_PLANNER_PLAN_PLACEMENTS_H_
#define PGLAYOUT_PLANNER_PLAN_PLACEMENTS_H_

#include <vector>

#include "common/model.h"
#include "planner/layout.h"
#include "planner/plan_inputs.h"
#include "planner/remedy_search.h"

namespace pglayout::planner {

struct TablePlacements {
  std::vector<TablespaceSpec> tablespaces;  // those a placement uses
  // Tables that stay and load their volume less than 1% are left out.
  std::vector<Placement> placements;
  int moves = 0;
  int partitioned = 0;
};

// |layout| is |remedies| laid out.
TablePlacements PlaceTables(const PlanInputs& in, const Layout& layout,
                            const RemedyPlan& remedies);

}  // namespace pglayout::planner

#endif  // PGLAYOUT_PLANNER_PLAN_PLACEMENTS_H_
