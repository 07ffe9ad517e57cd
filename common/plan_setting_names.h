// The server settings a plan may change: exactly those the planner
// recommends (planner/recommend.cc; planner/recommend_test.cc keeps the two
// equal). The plan reader (common/files_plan.cc) refuses any other name, so
// `migrate` never runs ALTER SYSTEM for archive_command,
// shared_preload_libraries or anything else a plan file was edited to hold.
// Why: docs/security.md#files-for-people-and-secrets.

#ifndef PGLAYOUT_COMMON_PLAN_SETTING_NAMES_H_
#define PGLAYOUT_COMMON_PLAN_SETTING_NAMES_H_

#include <string>
#include <vector>

namespace pglayout {

const std::vector<std::string>& PlanSettingNames();
bool IsPlanSetting(const std::string& name);

}  // namespace pglayout

#endif  // PGLAYOUT_COMMON_PLAN_SETTING_NAMES_H_
