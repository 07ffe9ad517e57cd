// The online copy's index phase: the shadow's indexes, built after the
// copy (the row key's first: replay finds rows by it), and, when a partition
// moves, the constraints that spare ATTACH PARTITION its scan under the
// swap's lock. A resumed run skips what the catalogs show built.
// Why: docs/online-migration.md#how-an-online-copy-runs,
// docs/online-migration.md#moving-a-partition.

#ifndef PGLAYOUT_MIGRATOR_ONLINE_INDEXES_H_
#define PGLAYOUT_MIGRATOR_ONLINE_INDEXES_H_

#include "migrator/online_context.h"

namespace pglayout::migrator {

// Builds what is missing, one transaction each, and records the phase
// "catchup".
Status BuildShadowIndexes(const OnlineContext& c);

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_ONLINE_INDEXES_H_
