// The online copy's replay: the keys the capture trigger logged are
// resynchronised in the shadow (delete, then insert the source's current
// rows), in rounds until the log is small (catch-up), or all of it under the
// swap's lock. Idempotent: a round killed midway is redone whole.
// Why: docs/online-migration.md#replay-by-key.

#ifndef PGLAYOUT_MIGRATOR_ONLINE_REPLAY_H_
#define PGLAYOUT_MIGRATOR_ONLINE_REPLAY_H_

#include <cstdint>
#include <vector>

#include "migrator/online_context.h"
#include "migrator/online_pace.h"
#include "migrator/online_sql.h"

namespace pglayout::migrator {

// Replays up to |limit| log rows in the caller's transaction and counts
// them in the journal; *log_rows receives how many, *keys (if given) the
// arrays of the distinct keys replayed, as the replay's statements take
// them.
Status ReplayLogRows(const OnlineContext& c, const ReplaySql& sql,
                     int64_t limit, int64_t* log_rows,
                     std::vector<SqlValue>* keys = nullptr);

// Replays in rounds, one transaction each and |pace|'s pause between them,
// until a round takes fewer than switch_threshold log rows; Aborted once
// that takes longer than catchup_timeout_s.
Status CatchUp(const OnlineContext& c, OnlinePace* pace);

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_ONLINE_REPLAY_H_
