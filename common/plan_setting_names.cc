#include "common/plan_setting_names.h"

#include <algorithm>

namespace pglayout {

const std::vector<std::string>& PlanSettingNames() {
  static const std::vector<std::string> kNames = {
      "checkpoint_timeout",
      "max_wal_size",
      "min_wal_size",
      "checkpoint_completion_target",
      "log_checkpoints",
      "random_page_cost",
      "effective_io_concurrency",
      "maintenance_io_concurrency",
      "io_combine_limit",
      "io_max_combine_limit",
      "io_workers"};
  return kNames;
}

bool IsPlanSetting(const std::string& name) {
  const std::vector<std::string>& names = PlanSettingNames();
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace pglayout
