// The settings the laid-out plan recommends: checkpoints from the WAL's
// rate and the room on its volume, the I/O settings from the plan's reads
// and stripes, and backup readers from the volume a base backup reads most.
// docs/planning.md#the-phases, phase 4 (planner/recommend.h has the rules).

#ifndef PGLAYOUT_PLANNER_PLAN_SETTINGS_H_
#define PGLAYOUT_PLANNER_PLAN_SETTINGS_H_

#include <optional>
#include <vector>

#include "common/model.h"
#include "planner/forecast.h"
#include "planner/layout.h"
#include "planner/plan_inputs.h"
#include "planner/recommend.h"
#include "planner/stripes.h"
#include "planner/wal_placement.h"

namespace pglayout::planner {

struct PlanSettings {
  std::vector<SettingChange> settings;  // checkpoints, then I/O
  BackupAdvice backup;
};

// |layout| is the plan laid out with |stripe|; |figures| its FiguresOf.
PlanSettings RecommendSettings(const PlanInputs& in, const WalPlacement& wal,
                               const Layout& layout,
                               const std::optional<StripeState>& stripe,
                               const LayoutFigures& figures);

}  // namespace pglayout::planner

#endif  // PGLAYOUT_PLANNER_PLAN_SETTINGS_H_
