// `pglayout observe` against a live server: sample the statistics views at
// intervals, turn the counters into a workload (workload_stats.h), and add
// the settings, tablespaces and the facts the migrator needs.
//
// The observer only reads. The real source (observe_pg.h) runs every
// statement read-only and works on a streaming replica too. Two seams make
// the loop testable without a server or a wall clock: StatsSource (what is
// read) and Clock (when).

#ifndef PGLAYOUT_OBSERVE_OBSERVE_H_
#define PGLAYOUT_OBSERVE_OBSERVE_H_

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/locate.h"
#include "common/model.h"
#include "common/progress.h"
#include "common/status.h"
#include "observe/workload_stats.h"

namespace pglayout {

// What is read once per observation.
struct ServerInfo {
  int version_num = 0;  // server_version_num, e.g. 150020
  // A standby: the WAL rate is the replay rate (pg_last_wal_replay_lsn(),
  // pg_current_wal_lsn() fails there) and checkpoints are restartpoints.
  bool in_recovery = false;
  std::string description;  // "host:port/db as user", never a password
  std::map<std::string, std::string> settings;  // as Workload::settings
  std::vector<TablespaceInfo> tablespaces;
  // Cumulative checkpoint counters since the last reset of the view, for
  // the diagnosis: a short observation rarely sees a checkpoint.
  CheckpointCounters checkpoints_since_reset;
  std::string checkpoints_reset_at;  // stats_reset as the server prints it
};

// Everything observe reads from a server. Implementations return SqlError
// or Unavailable with the server's message; a missing privilege names the
// role that grants it.
class StatsSource {
 public:
  virtual ~StatsSource() = default;
  virtual Status ReadServer(ServerInfo* info) = 0;
  // One sample of every counter. When |skipped| is set on success the
  // sample could not be taken consistently (a relation was locked) and
  // should be dropped; the next one covers its interval.
  virtual Status ReadSample(Sample* sample, bool* skipped) = 0;
  // The user relations (not the system catalogs, not temporary tables).
  virtual Status ReadRelations(std::vector<RelationInfo>* relations) = 0;
  // Fills the hash-partitioning facts of |table| (a table or a partitioned
  // table) into *relation: keys, foreign keys, views, triggers, ...
  virtual Status ReadFacts(const RelationInfo& table, Relation* relation) = 0;
};

// Time for the sampling loop, in seconds on a monotonic clock.
// When: the sampling loop's clock is common/clock.h's (SystemClock() for
// real runs).

struct ObserveOptions {
  double duration = 300;  // seconds; at least two intervals
  double interval = 10;   // seconds between samples
  int facts_for = 20;     // hottest tables whose facts are collected
  int top = 0;            // relations written, hottest first; 0 = all
  // Set (by a signal handler) to stop early: the samples taken so far are
  // used if there are at least two.
  const std::atomic<bool>* cancel = nullptr;
  // Where the server's directories are resolved to devices
  // (observe/data_locations.h); tests point it at fixtures.
  SystemPaths system_paths;
  // Count the read requests of the data devices while sampling
  // (observe/device_reads.h). Off where the device is shared with busy
  // programs other than the server: the share would count their reads too.
  bool count_device_reads = true;
};

// InvalidInput when the interval is not positive or the duration holds
// fewer than two intervals.
Status ValidateObserveOptions(const ObserveOptions& options);

struct ObserveResult {
  Workload workload;
  ServerRates rates;
  ServerInfo server;
  int skipped_samples = 0;
};

// Runs the observation: ReadServer, a first sample, then one sample every
// interval until the duration has passed, then the relations and the facts of
// the hottest tables. Progress goes to |progress| as task "observe".
Status Observe(StatsSource* source, Clock* clock, ProgressSink* progress,
               const ObserveOptions& options, ObserveResult* result);

}  // namespace pglayout

#endif  // PGLAYOUT_OBSERVE_OBSERVE_H_
