// The arithmetic of `pglayout observe`: cumulative counters sampled from a
// server at intervals become per-second rates, averaged and at the peak.
//
// Pure functions over plain structs, so the delta and percentile maths is
// tested with scripted samples and no server (observe_test.cc). The SQL that
// fills these structs lives in observe_pg.cc.
//
// Conventions: every counter is the cumulative value PostgreSQL reports
// (since the last statistics reset). A counter that goes down between two
// samples was reset (pg_stat_reset*), so the delta is its new value.
// Times are seconds (the server's clock_timestamp()), sizes bytes, blocks
// 8 KiB.

#ifndef PGLAYOUT_OBSERVE_WORKLOAD_STATS_H_
#define PGLAYOUT_OBSERVE_WORKLOAD_STATS_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/model.h"
#include "common/status.h"

namespace pglayout {

// What the system catalogs say about one relation; read at the start and the
// end of an observation (names and kinds do not change meanwhile).
struct RelationInfo {
  uint32_t oid = 0;
  std::string name;  // schema-qualified as PostgreSQL prints it
  RelationKind kind = RelationKind::kTable;
  std::string table;       // owning table of an index or TOAST relation
  uint32_t table_oid = 0;  // its oid; 0 for tables
  std::string tablespace;  // resolved: the database default when 0
  double reltuples = 0;    // planner estimate; <= 0 when never analysed
  double relpages = 0;
  Persistence persistence = Persistence::kPermanent;
  bool is_partition = false;          // a partition of a partitioned table
  std::string partition_of = "";      // its root partitioned table, when one
  std::string partition_parent = "";  // its parent (pg_inherits), when one
};

// The cumulative counters of one relation in one sample.
struct RelationCounters {
  int64_t blocks_read = 0;  // misses of shared_buffers
  int64_t blocks_hit = 0;
  int64_t tuples_inserted = 0;  // tables and TOAST only
  int64_t tuples_updated = 0;
  int64_t tuples_hot_updated = 0;
  int64_t tuples_deleted = 0;
  uint64_t size = 0;  // bytes of all forks (Relation::size), at the sample
};

// Cumulative checkpoint counters (pg_stat_checkpointer on 17+,
// pg_stat_bgwriter before).
struct CheckpointCounters {
  int64_t timed = 0;
  int64_t requested = 0;
  double write_time_ms = 0;
  double sync_time_ms = 0;
  int64_t buffers_written = 0;
};

// One row of pg_stat_io (16+); NULL counters (operations a backend type
// never performs) are read as 0.
struct IoCounters {
  std::string backend_type;
  std::string object;
  std::string context;
  double reads = 0;
  double writes = 0;
  double extends = 0;
  double hits = 0;
  double fsyncs = 0;
};

struct ServerCounters {
  double time = 0;      // server clock, seconds since the epoch
  double wal_lsn = 0;   // bytes: current LSN (replay LSN on a replica)
  int64_t commits = 0;  // pg_stat_database, all databases
  CheckpointCounters checkpoints;
  int64_t buffers_clean = 0;   // written by the background writer
  bool has_wal_stats = false;  // pg_stat_wal (14+)
  int64_t wal_records = 0;
  int64_t wal_fpi = 0;  // full-page images
  double wal_bytes = 0;
  // WAL flushes to disk (fsync/fdatasync of WAL files): pg_stat_wal's
  // wal_sync on 14-17, the fsyncs of pg_stat_io's "wal" rows on 18; -1 =
  // not counted (12, 13).
  int64_t wal_syncs = -1;
  std::vector<IoCounters> io;  // empty before 16
};

struct Sample {
  ServerCounters server;
  std::unordered_map<uint32_t, RelationCounters> relations;  // by oid
};

// 95th percentile of |values| with linear interpolation between the two
// nearest ranks (rank 0.95 * (n - 1) of the sorted values); 0 when empty.
// With few intervals this lies between the largest and the second largest.
double Percentile95(std::vector<double> values);

// Counter delta with reset detection: |now| - |before|, or |now| when the
// counter went down (it was reset in between).
double CounterDelta(double before, double now);

// Per-interval estimate of the 8 KiB blocks a relation dirtied, which the
// checkpointer, the background writer or backends must write sooner or
// later; see kWriteEstimateMethod. |parent| holds the owning table's
// counter deltas for an index (nullptr otherwise).
struct IntervalDelta {
  double blocks_read = 0;
  double blocks_hit = 0;
  double inserted = 0;
  double updated = 0;
  double hot_updated = 0;
  double deleted = 0;
  double size = 0;  // bytes, may be negative (truncate, vacuum)
};
double EstimateBlocksWritten(const RelationInfo& info, const IntervalDelta& own,
                             const IntervalDelta* parent, uint64_t size_now);

// How write_iops is estimated; written into workload.toml
// ([observation] write_method) and printed in the diagnosis.
extern const char kWriteEstimateMethod[];

// Everything BuildWorkloadFromSamples needs.
struct ObservedData {
  std::vector<RelationInfo> reported;  // relations to report (the end's)
  std::vector<Sample> samples;         // at least two, in time order
};

// Server-wide figures the diagnosis prints beside the workload.
struct ServerRates {
  double duration = 0;  // seconds between the first and last sample
  int intervals = 0;
  double wal_bytes_per_second = 0;
  double wal_bytes_per_second_peak = 0;
  double commits_per_second = 0;
  double wal_syncs_per_second = -1;  // -1 = not counted
  double fpi_share = -1;    // full-page images / WAL records; -1 = unknown
  Checkpoints checkpoints;  // deltas over the observation
  double buffers_clean = 0;
  double estimated_blocks_written_per_second = 0;  // sum over relations
  // Blocks written by checkpointer, bgwriter and backends over the
  // observation, per second, from pg_stat_io (16+) or the checkpoint and
  // bgwriter counters; -1 = unknown.
  double measured_blocks_written_per_second = -1;
};

// Turns samples into the workload's rates: per relation averages and peaks
// (Percentile95 over intervals), growth, the write estimate; server-wide
// WAL, commits, checkpoints and pg_stat_io rates. Relations are sorted
// hottest first (read_iops + write_iops at the peak, then name). Settings,
// tablespaces and facts are not touched. InvalidInput when there are fewer
// than two samples or the clock does not advance.
Status BuildWorkloadFromSamples(const ObservedData& data, Workload* workload,
                                ServerRates* rates);

// InvalidInput naming the first relation, tablespace or setting whose text is
// not UTF-8, with its bad bytes as \xE9: an SQL_ASCII database hands names
// over as raw bytes, and workload.toml (TOML) holds only UTF-8.
Status CheckWorkloadText(const Workload& workload);

}  // namespace pglayout

#endif  // PGLAYOUT_OBSERVE_WORKLOAD_STATS_H_
