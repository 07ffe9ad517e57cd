// Reading the report's inputs. Volumes and workload files are read by
// common/files.h; a plan may be plan.toml or the plan.json that `pglayout
// plan` writes beside it, told apart by the file's extension.

#ifndef PGLAYOUT_REPORT_INPUTS_H_
#define PGLAYOUT_REPORT_INPUTS_H_

#include <string>
#include <string_view>

#include "common/model.h"
#include "common/status.h"
#include "report/report.h"

namespace pglayout::report {

// Parses the JSON form of a plan (common/json.h ToJson(Plan)). Keys that
// are absent take the model's defaults; a key of the wrong type or text
// that is not JSON is InvalidInput naming |source_name| and the key.
// With |details|, also what the page shows beyond the Plan (report.h
// PlanDetails), each part left empty when the file has none.
Status ParsePlanJson(std::string_view text, const std::string& source_name,
                     Plan* out, PlanDetails* details = nullptr);

// Reads |path| as JSON when it ends in ".json", otherwise as TOML
// (ReadPlanFile). Errors name the path.
// |details| is filled from JSON only (plan.toml has none: left empty).
Status ReadPlanAnyFormat(const std::string& path, Plan* out,
                         PlanDetails* details = nullptr);

}  // namespace pglayout::report

#endif  // PGLAYOUT_REPORT_INPUTS_H_
