// Built only by the ctest planner_cannot_include_pg, against the planner's
// include directories: the planner does not link pg, so this include must
// fail to compile (docs/architecture.md, "Dependencies point one way").
#include "pg/sql.h"
