// The online copy's swap: once no prepared transaction holds the table and
// every snapshot older than the copy has ended, one short transaction under
// ACCESS EXCLUSIVE locks checks the table's definition and capture trigger
// are unchanged, replays and verifies the rest of the log, and renames the
// shadow into the table's place (the old table kept as pglayout.old_<oid>).
// Why: docs/online-migration.md#the-swap.

#ifndef PGLAYOUT_MIGRATOR_ONLINE_SWAP_H_
#define PGLAYOUT_MIGRATOR_ONLINE_SWAP_H_

#include <string>
#include <vector>

#include "migrator/facts.h"
#include "migrator/online_context.h"
#include "migrator/online_pace.h"
#include "migrator/online_verify.h"
#include "pg/sql.h"

namespace pglayout::migrator {

// Swaps the table with its shadow and records the phase "swapped".
// |detail| is the step's detail (online_detail.h), whose structure hash the
// table must still have. Lock timeouts retry with a catch-up (|pace|)
// between attempts; Aborted, changing nothing, when the table changed, its
// capture stopped, or older transactions outlast old_xact_wait_s.
Status SwapShadow(const OnlineContext& c, const std::string& detail,
                  OnlinePace* pace, OnlineVerifier* verifier);

// The user triggers of |table| (quoted-qualified; as
// TableFacts::dependents.triggers counts them) that are not among |own| by
// name, definition and ENABLE state, as their definitions, into *foreign; the
// names of |own|'s it lacks into *missing. The swap (which rolls back on
// either) and the final check (on a foreign one) compare the new table with the
// old (docs/security.md#code-of-other-roles).
Status CompareTriggers(SqlSession* session, const std::string& table,
                       const std::vector<TriggerFacts>& own,
                       std::vector<std::string>* foreign,
                       std::vector<std::string>* missing);

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_ONLINE_SWAP_H_
