// The online copy's ends: after the swap, the foreign keys validated, the
// table analyzed and the capture's log and functions dropped (the old table
// stays until migrate --finalize); or, for `migrate --abort` before the
// swap, everything the step made removed (AbortOnlineCopy, declared in
// online.h for the migrator).
// Why: docs/online-migration.md#how-an-online-copy-runs.

#ifndef PGLAYOUT_MIGRATOR_ONLINE_CLEANUP_H_
#define PGLAYOUT_MIGRATOR_ONLINE_CLEANUP_H_

#include <string>

#include "migrator/online_context.h"

namespace pglayout::migrator {

// Runs PostSwapSql on the swapped table, drops the capture and records the
// step "done". |detail| is the step's detail (online_detail.h): the names
// come from it, as c.table may be the old table by now.
Status FinishOnlineCopy(const OnlineContext& c, const std::string& detail);

// Removes what a started copy made (shadow, log, capture, slot) and puts
// its journal row back to "pending", for a fresh copy: a logical capture
// whose slot is gone may have missed changes.
Status RestartOnlineCopy(const OnlineContext& c);

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_ONLINE_CLEANUP_H_
