// `pglayout observe --from-log`: checkpoint evidence from PostgreSQL server
// logs (the English messages of log_checkpoints), for when the server
// itself cannot be reached. Plain, gzip or bzip2 files are read as streams,
// in any order, in the stderr, csvlog, jsonlog, syslog, Cloud Logging and
// CloudNativePG formats; each "complete" is paired with its "starting".
// Why: docs/server-logs.md.

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
  double time = -1;    // seconds since the epoch (UTC when the log names its
                       // zone, else the wall clock); -1 = no time
  bool restartpoint = false;
  std::vector<std::string> flags;  // "wal", "time", "immediate", "force", ...
  bool completed = false;
  int64_t buffers = 0;  // from the complete message
  double write_s = 0, sync_s = 0, total_s = 0;
  // WAL since the previous checkpoint's redo; -1 when the message has no
  // distance= (servers before 9.6).
  int64_t distance_kb = -1;
  int64_t estimate_kb = 0;

  bool HasFlag(std::string_view flag) const;
  // Shutdown and end-of-recovery checkpoints say nothing about the workload:
  // they are left out of every count, average and rate.
  bool Counted() const;
};

// What one input held.
struct LogFileSummary {
  std::string path;
  std::string compression;  // "", "gzip" or "bzip2"
  std::string format;       // "stderr", "csvlog", "jsonlog", "syslog", "cloud
                            // logging", "cloudnativepg", "json"; "" = none
  int64_t lines = 0;        // lines (entries of a JSON array)
  int64_t messages = 0;     // checkpoint messages
};

// Per counted checkpoint with a complete message.
struct CheckpointAverages {
  int64_t checkpoints = 0;  // the divisor: counted and completed
  double buffers = 0;
  double write_s = 0, sync_s = 0, total_s = 0;
};

// What every checkpoint of the logs adds up to: the report keeps these, not
// a list of every checkpoint, so that memory does not grow with the logs.
struct CheckpointLogTotals {
  int64_t checkpoints = 0;  // starting messages, counted or not
  int64_t timed = 0, requested = 0, wal_triggered = 0, completed = 0;
  CheckpointAverages sums;  // sums (not averages) over counted + completed
  double first_start = -1, last_start = -1;  // counted starts with a time
  double too_frequent_shortest = -1;         // -1: no "N seconds" read
  // Consecutive counted checkpoints with a distance: WAL bytes, seconds
  // between their starts, and the 95th percentile of their rates (exact up
  // to 65,536 intervals, then from a histogram of 0.1 % wide bins).
  double wal_bytes = 0, wal_seconds = 0, wal_peak_rate = 0;
};

struct CheckpointLogSummary {
  // The first kEventSample checkpoints by starting time, for people and
  // tests; every count and figure below covers all of them.
  static constexpr size_t kEventSample = 1000;
  std::vector<CheckpointLogEvent> events;
  CheckpointLogTotals totals;
  int too_frequent_warnings = 0;
  std::vector<double> too_frequent_seconds;  // "N seconds apart", by time;
                                             // the first kEventSample
  int64_t lines = 0;
  int files = 0;
  std::vector<LogFileSummary> inputs;  // in the order given
  int64_t unpaired_completions = 0;    // "complete" without its "starting"
  // For people, one line each: files without checkpoint messages, syslog
  // years assumed, files without times.
  std::vector<std::string> notes;

  // Counting as the statistics views do: a pure "time" is timed, any other
  // cause (a "wal time" too) is requested. Counted() events only.
  int64_t Timed() const { return totals.timed; }
  int64_t Requested() const { return totals.requested; }
  // The subset of requested caused by WAL.
  int64_t WalTriggered() const { return totals.wal_triggered; }
  // Counted events with a complete message.
  int64_t Completed() const { return totals.completed; }
  CheckpointAverages Averages() const;
  // Seconds between the first and the last counted starting message with a
  // time; 0 when fewer than two have one.
  double Span() const;
};

// A log held in memory (the text or its gzip/bzip2 bytes).
struct NamedLog {
  std::string name;
  std::string bytes;
};

// Reads and parses each file in one pass, in chunks; the checkpoint messages
// go to a temporary file (a fixed-size record each), are sorted there by
// time and paired in one more pass, so memory stays bounded whatever the
// size of the logs. A file that cannot be read fails with its
// path and the reason (NotFound for a missing file); so does a compressed
// file that is corrupt or in a format other than gzip and bzip2, and a file
// with lines in no log format. When no checkpoint message is found in any
// file the result is InvalidInput naming each file and what was looked for
// (log_checkpoints, lc_messages); a file without them among others that
// have some is a note.
Status ReadCheckpointLogs(const std::vector<std::string>& paths,
                          CheckpointLogSummary* report);

// The same for logs held in memory (tests, callers holding the text).
Status ParseCheckpointLogs(const std::vector<NamedLog>& logs,
                           CheckpointLogSummary* report);

// The workload the planner can use from a log (source = "log"): counted
// checkpoints timed and requested; duration = Span(); write, sync and
// buffer totals are Averages() times the counted checkpoints, so that a
// total over timed + requested is the average of those with a complete
// message. WAL rate from the distances of consecutive counted checkpoints
// over the time between their starts (average, and the 95th percentile of
// intervals as the peak).
Workload LogSummaryToWorkload(const CheckpointLogSummary& report);

}  // namespace pglayout

#endif  // PGLAYOUT_OBSERVE_LOG_PARSER_H_
