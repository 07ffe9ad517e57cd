// `pglayout observe --from-log`: checkpoint evidence from PostgreSQL server
// logs, for when the server itself cannot be reached.
//
// Reads the messages log_checkpoints writes (on by default since 15):
//   checkpoint starting: wal            (forced: WAL reached max_wal_size)
//   checkpoint starting: time           (scheduled: checkpoint_timeout)
//   checkpoint starting: immediate force wait   (CHECKPOINT, base backup)
//   checkpoint complete: wrote N buffers (x%); ... write=a s, sync=b s,
//     total=c s; ... distance=d kB, estimate=e kB ...
//   checkpoints are occurring too frequently (N seconds apart)
// and the same for "restartpoint" on a standby. The messages are found
// anywhere in a line, so stderr, csvlog and jsonlog files all work, with any
// log_line_prefix. Times come from the first "YYYY-MM-DD HH:MM:SS[.fff]" in
// the line (%m or %t in log_line_prefix); the time zone is ignored, so all
// files should share one. Only English messages (lc_messages = C or en) are
// recognised.

#ifndef PGLAYOUT_OBSERVE_LOG_PARSER_H_
#define PGLAYOUT_OBSERVE_LOG_PARSER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/model.h"
#include "common/status.h"

namespace pglayout {

struct CheckpointLogEvent {
  std::string source;  // "file:line" of the starting message
  double time = -1;    // seconds (wall clock of the prefix); -1 = no time
  bool restartpoint = false;
  std::vector<std::string> flags;  // "wal", "time", "immediate", "force", ...
  bool completed = false;
  int64_t buffers = 0;  // from the complete message
  double write_s = 0, sync_s = 0, total_s = 0;
  int64_t distance_kb = 0;  // WAL since the previous checkpoint's redo
  int64_t estimate_kb = 0;

  bool HasFlag(std::string_view flag) const;
};

struct CheckpointLogReport {
  std::vector<CheckpointLogEvent> events;  // in the order read
  int too_frequent_warnings = 0;
  std::vector<double> too_frequent_seconds;  // "N seconds apart"
  int64_t lines = 0;
  int files = 0;

  // Counting as the statistics views do: "time" is timed, everything else
  // except shutdown and end-of-recovery checkpoints is requested.
  int64_t Timed() const;
  int64_t Requested() const;
  int64_t WalTriggered() const;  // the subset of requested caused by WAL
  // Seconds between the first and the last starting message with a time;
  // 0 when fewer than two have one.
  double Span() const;
};

// Adds the checkpoint messages of |text| to *report. |source_name| is used
// in event sources ("postgresql.log:120").
void ParseCheckpointLog(std::string_view text, const std::string& source_name,
                        CheckpointLogReport* report);

// Reads and parses each file. A file that cannot be read fails with its
// path and the reason; when no checkpoint message is found in any file the
// result is InvalidInput that says what to check (log_checkpoints,
// lc_messages).
Status ReadCheckpointLogs(const std::vector<std::string>& paths,
                          CheckpointLogReport* report);

// The workload the planner can use from a log: checkpoint counts and
// timings, and the WAL rate estimated from checkpoint distances over the
// span (average and 95th percentile of checkpoint intervals). source = "log".
Workload LogReportToWorkload(const CheckpointLogReport& report);

}  // namespace pglayout

#endif  // PGLAYOUT_OBSERVE_LOG_PARSER_H_
