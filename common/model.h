// The model shared by every stage of the pipeline: the host and its volumes
// (what `probe` measures or a person declares), the workload (what `observe`
// captures or a person imports), and the plan (what `plan` proposes and
// `migrate` executes).
//
// These are plain structs. Their field names are the keys of the TOML files
// (see common/files.h); keep them stable, people write these files by hand.
// Units: sizes in bytes, durations in seconds, rates per second, latencies in
// microseconds, bandwidth in MB/s where 1 MB = 10^6 bytes (as fio and every
// cloud provider quote it). IOPS are 8 KiB I/Os.
//
// Ranges, as the readers enforce them (common/toml_reader.h): every number
// is finite, 0 or normal (no subnormals), not negative and at most 1e15
// (kMaxFigure) unless its reader states another range; sizes are at most
// 1 EiB, durations at most 1e10 s; integer fields have their ranges in
// their readers' calls. Text is UTF-8 (TOML requires it) and a volume's
// path is absolute.

#ifndef PGLAYOUT_COMMON_MODEL_H_
#define PGLAYOUT_COMMON_MODEL_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/relation_traits.h"

namespace pglayout {

// ---------------------------------------------------------------- volumes --

struct Host {
  int vcpus = 0;                  // 0 = unknown
  uint64_t memory = 0;            // bytes; 0 = unknown
  std::string instance_type;      // e.g. "i8ge.12xlarge"; empty = unknown
  double bandwidth_cap_mbps = 0;  // instance-wide storage cap; 0 = none known
  double iops_cap = 0;            // instance-wide IOPS cap; 0 = none known
};

// One step of the random 8 KiB read curve, at a fixed queue depth.
struct RandomReadPoint {
  int queue_depth = 1;
  double iops = 0;
  double mbps = 0;
  double p50_us = 0;
  double p90_us = 0;
  double p99_us = 0;
  double p999_us = 0;
  double max_us = 0;
  double cpu_us_per_io = 0;  // user + sys CPU microseconds per completed I/O
};

// One step of the paced random 8 KiB read curve: reads issued open-loop, on
// a schedule at a fixed offered rate below the saturated IOPS, whatever
// completes (as fio's rate_iops). On a rate-capped volume this is the only
// way to see the latency below the cap: a closed-loop step at depth 1
// already saturates the cap and measures 1 / IOPS
// (docs/device-model.md#latency-below-the-cap).
struct PacedReadPoint {
  double offered_iops = 0;  // the schedule's rate
  double iops = 0;          // reads completed per second (achieved)
  double mean_us = 0;       // submission to completion, mean
  double p50_us = 0;
  double p99_us = 0;
};

// One point of the sequential read curve.
struct SequentialReadPoint {
  uint64_t request_size = 0;  // bytes per read
  int queue_depth = 1;
  double mbps = 0;
};

// One step of the random 8 KiB write curve (durable: fdatasync included).
struct RandomWritePoint {
  int queue_depth = 1;
  double iops = 0;
  double p50_us = 0;
  double p99_us = 0;
};

// One WAL-style write test: appends of request_size at depth 1 through a
// pre-written region, each made durable before the next (commit latency).
struct SyncWritePoint {
  std::string method;         // wal_sync_method: "fdatasync", "open_datasync"
  uint64_t request_size = 0;  // bytes per write (8 KiB, or a group commit)
  double iops = 0;            // durable writes per second
  double p50_us = 0;
  double p99_us = 0;
};

// What sysfs says about the block device behind a volume's directory.
struct Topology {
  std::string device;  // kernel name: "md0", "nvme1n1", "vdb1"
  // The filesystem's st_dev as "major:minor" and its mount point: what the
  // planner matches the server's directories against
  // (docs/where-data-lives.md). Empty in files from older probes and in
  // hand-written files.
  std::string dev;
  std::string mount_point;
  std::string disk;                  // whole disk of a partition: "vdb"
  std::string kind;                  // see VolumeKind names in probes/
  std::string model;                 // NVMe/SCSI model string
  std::string raid_level;            // "raid0", "linear", "" if not md
  std::string dm_target;             // "striped", "linear", "" if not dm
  std::vector<std::string> members;  // member disks of md/dm, else empty
  uint64_t chunk = 0;                // stripe chunk in bytes, 0 = none
  int raid_disks = 0;                // md: devices the array should have
  int degraded = 0;                  // md: devices missing from it
  std::string sync_action;           // md: "idle", "resync", "recover", ...
  uint64_t partition_start = 0;      // bytes from the disk's start, or 0
  // What distorts or endangers the measurements, for people: a degraded or
  // resyncing array, members missing from slaves/, a misaligned partition.
  std::vector<std::string> warnings;
  uint32_t logical_block_size = 0;
  uint32_t physical_block_size = 0;
  uint64_t minimum_io_size = 0;
  uint64_t optimal_io_size = 0;
  bool rotational = false;
  int nr_requests = 0;
  int max_sectors_kb = 0;
  std::string write_cache;  // "write back" / "write through"
  std::string filesystem;   // "ext4", "xfs"
  std::string mount_options;
};

// One sequential write of a whole file, timed until the data is durable:
// the closing fdatasync and close are counted in
// (docs/device-model.md#durable-writes).
struct DurableWrite {
  uint64_t bytes = 0;             // written, in 1 MiB requests
  double mbps = 0;                // amortised: bytes / seconds_to_durable
  double seconds_to_durable = 0;  // first write to the end of fdatasync/close
  double sync_seconds = 0;        // the fdatasync/close part of it
  double user_cpu_seconds = 0;    // this process only: kernel flusher
  double system_cpu_seconds = 0;  // threads are not counted
};

// `probe --compare-buffered`: the same sequential write through the page
// cache and with O_DIRECT. A buffered write is a loan: write() returns at
// memory speed and the device is paid at fdatasync.
struct BufferedVsDirect {
  DurableWrite buffered;  // write() of 1 MiB chunks, then fdatasync + close
  DurableWrite direct;    // O_DIRECT 1 MiB writes, then fdatasync
};

struct Volume {
  // -- The fields a person writes by hand (foundation contract). --
  std::string name;                  // unique within the file
  std::string path;                  // directory where a tablespace would live
  uint64_t capacity = 0;             // bytes
  double read_iops = 0;              // 8 KiB random reads/s at saturation
  double write_iops = 0;             // 8 KiB random writes/s at saturation
  double read_mbps = 0;              // sequential read MB/s
  double write_mbps = 0;             // sequential write MB/s
  double read_latency_us = 0;        // 8 KiB random read, depth 1, median
  double sync_write_latency_us = 0;  // 8 KiB write + fdatasync, depth 1, p50
  int members = 1;                   // disks under the volume
  uint64_t chunk = 0;                // stripe chunk in bytes; 0 = not striped

  // -- Optional: declared by a person or filled by `probe`. --
  std::string kind;  // "aws-ebs", "aws-instance-store", "local-nvme", ...
  // Whether reads and writes draw on one IOPS budget, as cloud volumes sell
  // IOPS (gp3, io2: read_iops = write_iops = the one budget), or each on its
  // own, as a kernel throttle with separate read and write limits (the
  // volume lab's). "" (as "combined") or "separate"; the probe cannot tell
  // and leaves it empty (docs/device-model.md#capacity-and-utilisation).
  std::string iops_budget;
  double read_latency_p99_us = 0;
  double sync_write_latency_p99_us = 0;
  uint64_t free_bytes = 0;  // free space when probed; 0 = unknown
  // The stripe-wide read size: the smallest depth-1 read from which on the
  // median MB/s of the repeated sweeps stays at 90% of the best, and the
  // smallest and largest knee of the single sweeps (their spread). 0 =
  // unknown; repeats 0 = declared by hand or probed before the repeats.
  uint64_t stripe_read_size = 0;
  uint64_t stripe_read_size_min = 0;
  uint64_t stripe_read_size_max = 0;
  int stripe_read_repeats = 0;
  // The full stripe, chunk x data members, from sysfs (probe) or declared;
  // 0 = not striped or not known (common/stripe_read.h).
  uint64_t stripe_width = 0;
  int readers_to_saturate = 0;  // depth at the knee of the read curve
  std::vector<std::string> shares_device_with;  // other volumes, same device
  std::optional<Topology> topology;
  std::vector<RandomReadPoint> randread;
  // Latency against offered load (volumes.toml [[volume.paced_read]]),
  // increasing offered_iops; empty in files from older probes and in
  // declared volumes.
  std::vector<PacedReadPoint> paced_read;
  std::vector<SequentialReadPoint> seqread;
  std::vector<RandomWritePoint> randwrite;
  std::vector<SyncWritePoint> syncwrite;
  std::optional<BufferedVsDirect> buffered_vs_direct;
  // How `probe` measured: "io_uring", or "pread-threads" when io_uring was
  // unavailable (more CPU per I/O, slightly higher latencies). Empty when
  // declared by hand.
  std::string probe_engine;
};

// One volume in `probe --concurrent`: the same read mix (random 8 KiB at
// its knee depth plus sequential 1 MiB reads) alone and with every other
// volume running it at the same time.
struct ConcurrentVolume {
  std::string name;
  double alone_read_iops = 0;
  double alone_read_mbps = 0;
  double together_read_iops = 0;
  double together_read_mbps = 0;
};

// `probe --concurrent`: whether "separate" volumes are independent. Ratios
// are together / the sum of alone; well below 1 means the volumes share a
// device, a controller or an instance bandwidth cap.
struct Concurrent {
  double seconds = 0;    // measured time of each run
  double read_iops = 0;  // aggregate random 8 KiB read IOPS, together
  double read_mbps = 0;  // aggregate sequential read MB/s, together
  double sum_alone_read_iops = 0;
  double sum_alone_read_mbps = 0;
  double iops_ratio = 0;
  double mbps_ratio = 0;
  std::string verdict;  // for people, e.g. "a and b share device vda; ..."
  std::vector<ConcurrentVolume> volumes;
};

struct VolumeSet {
  Host host;
  std::vector<Volume> volumes;
  std::optional<Concurrent> concurrent;  // only from probe --concurrent

  const Volume* Find(const std::string& name) const;
};

// --------------------------------------------------------------- workload --

// kMaterializedView: a materialized view has storage of its own and is
// placed like a table, but moves only offline (ALTER MATERIALIZED VIEW).
enum class RelationKind {
  kTable,
  kIndex,
  kToast,
  kPartitioned,
  kMaterializedView
};

const char* RelationKindName(RelationKind kind);  // "table", "index", ...

struct Relation {
  std::string name;  // schema-qualified, unquoted: "public.orders"
  RelationKind kind = RelationKind::kTable;
  std::string table;  // owning table of an index or TOAST relation
  // Bytes on disk of the relation's own storage: every fork (main, free
  // space map, visibility map; the init fork of unlogged relations), as
  // they all move with ALTER ... SET TABLESPACE. A table's TOAST relation
  // and its indexes are relations of their own and not included.
  uint64_t size = 0;
  double read_iops = 0;   // 8 KiB blocks/s read from outside shared_buffers,
                          // at the peak (95th percentile of intervals)
  double write_iops = 0;  // 8 KiB blocks/s written, peak (estimated)
  double read_iops_avg = 0;
  double write_iops_avg = 0;
  double hits_per_second = 0;  // shared_buffers hits
  double inserts_per_second = 0;
  double updates_per_second = 0;
  double deletes_per_second = 0;
  double growth_bytes_per_second = 0;
  std::string tablespace;  // "" = the database default (pg_default)

  // Facts the planner and the migrator need to judge hash partitioning.
  std::vector<std::string> primary_key;
  std::vector<std::vector<std::string>> unique_keys;
  // "constraint (col, ...) -> table (col, ...)", columns quoted as
  // quote_ident does; older files have "constraint -> table".
  std::vector<std::string> foreign_keys_out;
  std::vector<std::string> foreign_keys_in;  // "table.constraint"
  std::vector<std::string> dependent_views;
  std::vector<std::string> triggers;
  std::vector<std::string> identity_columns;
  std::vector<std::string> publications;
  // The type of each column a primary key, unique index or foreign key
  // holds, {column, type} as format_type prints it ("bigint"); empty = not
  // recorded (older files). Citus co-locates by the distribution column's
  // type.
  std::vector<std::vector<std::string>> column_types;
  // The facts of the shared hash and online-copy rule (common/hash_rule.h)
  // beyond the above; |rule_facts| says observe recorded them (older
  // workload files do not, and the plan says so).
  bool rule_facts = false;
  // Each primary key, unique index and exclusion constraint: its kind
  // ("primary", "unique", "exclusion", with "_expressions" when it
  // indexes an expression), its index's name, then its plain key columns.
  std::vector<std::vector<std::string>> key_constraints;
  std::vector<std::string> no_inherit_checks;        // CHECK ... NO INHERIT
  std::vector<std::string> before_row_triggers;      // BEFORE ... FOR EACH ROW
  std::vector<std::string> transition_row_triggers;  // row, REFERENCING
  // Foreign keys of partitioned tables to it: {constraint, table quoted}.
  std::vector<std::vector<std::string>> referenced_by_partitioned;
  // The online copy's row key: the primary key, else the first valid,
  // non-partial unique index over NOT NULL plain columns; empty = none.
  std::vector<std::string> row_key;
  // Unset where the workload file does not record them (an older file, or
  // one written by hand).
  std::optional<ReplicaIdentity> replica_identity;
  std::optional<Persistence> persistence;
  bool row_security = false;
  bool partitioned = false;  // already a partitioned table or a partition
  // A partition: the root of its partition tree (pg_partition_root), named
  // as Relation::name; "" = not a partition, or not recorded (older files).
  std::string partition_of = "";
  // A partition: its parent (pg_inherits), whose key its bound belongs to;
  // the same as partition_of one level down. "" = not recorded (older
  // files): PartitionParent() takes the root then.
  std::string partition_parent = "";
  // A partitioned table: its partition key as pg_get_partkeydef prints it
  // ("HASH (id)"); "" = not partitioned, or not recorded (older files).
  // A hash partition of it can be split (docs/planning.md#growth).
  std::string partition_key = "";
};

// The parent whose key |r|'s bound belongs to: partition_parent, else
// (an older file) partition_of.
const std::string& PartitionParent(const Relation& r);

struct Checkpoints {
  int64_t timed = 0;
  int64_t requested = 0;
  double write_time_ms = 0;
  double sync_time_ms = 0;
  int64_t buffers_written = 0;
};

struct TablespaceInfo {
  std::string name;
  std::string location;  // "" for pg_default / pg_global
};

// Where a directory lives on the host's storage, as stat() and the mount
// table say (common/locate.h).
struct DeviceLocation {
  std::string resolved;     // the path with every symlink followed
  std::string dev;          // st_dev, "major:minor"
  std::string mount_point;  // the mount holding it
  std::string device;       // block device, "nvme1n1"; "" = none (tmpfs...)
};

// One directory of the server: the data directory, pg_wal, or a
// tablespace's location. |on| is unset when it was not resolved (observed
// from another host, or a file written before pglayout recorded it).
struct DataLocation {
  std::string role;        // "data_directory", "pg_wal" or "tablespace"
  std::string tablespace;  // role "tablespace": its name
  std::string path;        // as the server reports it
  std::optional<DeviceLocation> on;
};

// One row of pg_stat_io (PostgreSQL 16+), as average rates over the
// observation. Operations are counted in the row's own unit (op_bytes, 8 KiB
// for relations), as pg_stat_io counts them.
struct IoRate {
  std::string backend_type;  // "client backend", "checkpointer", ...
  std::string object;        // "relation", "temp relation", "wal" (18+)
  std::string context;       // "normal", "vacuum", "bulkread", "bulkwrite"
  double reads_per_second = 0;
  double writes_per_second = 0;
  double extends_per_second = 0;
  double hits_per_second = 0;
  double fsyncs_per_second = 0;
};

// What one device holding the data directory or a tablespace delivered
// over a live observation on the database host, against what the server
// read there (docs/workload-model.md#page-cache). The server counts a block
// read whenever it is not in shared_buffers; only the blocks the OS page
// cache did not have reach the device.
struct DeviceReads {
  std::string device;  // block device name, "loop0"
  std::string dev;     // "major:minor", as DeviceLocation::dev
  // 8 KiB blocks/s the server read (blks_read) for the relations on this
  // device, on average over the observation.
  double server_block_reads = 0;
  // Read requests/s the device completed (/sys/class/block/<device>/stat):
  // what an IOPS cap counts, whatever their size.
  double device_reads = 0;

  // device / server, at most 1; 1 when the server read nothing.
  double Share() const;
};

struct Workload {
  // GUC name -> value as postgresql.conf accepts it ("1GB", "0.9", "on"),
  // plus data_directory and server_version_num.
  std::map<std::string, std::string> settings;
  double duration = 0;  // seconds observed; 0 = declared by hand
  std::string source;   // "live", "log", "oracle-segments", "hand"
  // Observed on a standby (pg_is_in_recovery()): reads are the standby's
  // own, WAL is the rate replayed from the primary, tuple changes (and so
  // the write estimates) miss the replayed ones, and checkpoints are
  // restartpoints. Written as [server] in_recovery = true.
  bool in_recovery = false;
  // How write_iops was obtained, e.g. "estimated from tuple changes: ...";
  // "" = measured or declared. Written so nobody mistakes an estimate for a
  // measurement.
  std::string write_method;
  // Average WAL rate; unset when unknown (a log without checkpoint
  // distances, a hand-written file without [wal] bytes_per_second): unknown
  // is not zero, and the plan says which forecasts lack it.
  std::optional<double> wal_bytes_per_second;
  double wal_bytes_per_second_peak = 0;  // 95th percentile; 0 = not measured
  double commits_per_second = 0;
  // WAL flushes to disk per second, as the server counts them (14+); unset
  // when not counted. The WAL volume serves these, not the commits (most
  // of which may be read-only).
  std::optional<double> wal_syncs_per_second;
  Checkpoints checkpoints;
  std::vector<TablespaceInfo> tablespaces;
  // Where the data directory, pg_wal and each tablespace live; empty =
  // unknown (an older file, a log or an import). |locations_note| says in
  // one line how they were found, e.g. that the paths could not be
  // resolved on the observing host.
  std::vector<DataLocation> locations;
  std::string locations_note;
  std::vector<DeviceReads> device_reads;  // measured; empty = unknown
  std::vector<IoRate> io;  // pg_stat_io, 16+; rows with no activity omitted
  std::vector<Relation> relations;

  const Relation* Find(const std::string& name) const;
  std::optional<std::string> Setting(const std::string& name) const;
  // The location of |role| ("pg_wal", ...; for "tablespace", the one named
  // |tablespace|), or nullptr.
  const DataLocation* FindLocation(const std::string& role,
                                   const std::string& tablespace = "") const;
  // The location holding the relations of |tablespace|: the data directory
  // for "", "pg_default" and "pg_global", else the tablespace's own; nullptr
  // when the workload records none.
  const DataLocation* TablespaceLocation(const std::string& tablespace) const;
  // The share of the server's reads at |location| that reached its device
  // (DeviceReads::Share of the entry with its dev); 1 when not measured.
  double DeviceReadShare(const DataLocation& location) const;
};

// ------------------------------------------------------------------- plan --

enum class Strategy { kStay, kMove, kHashPartition };

const char* StrategyName(Strategy strategy);  // "stay", "move", ...

struct TablespaceSpec {
  std::string name;
  std::string path;    // directory (must exist, owned by postgres)
  std::string volume;  // the volume it lives on, for people and reports
  // ALTER TABLESPACE ... SET (random_page_cost = ..., ...)
  std::map<std::string, std::string> options;
};

struct Placement {
  std::string relation;  // schema-qualified
  Strategy strategy = Strategy::kStay;
  std::vector<std::string> tablespaces;  // one for move; k for partitions
  int partitions = 0;                    // hash_partition only
  std::vector<std::string> key;          // partition key columns
  bool online = true;  // false allows ALTER ... SET TABLESPACE (locks)
  std::string reason;
};

struct Stripe {
  std::string name;                  // e.g. "pgdata_stripe"
  std::vector<std::string> members;  // volume names
  uint64_t chunk = 0;
  std::string tool;  // "mdadm" or "lvm"
  std::string reason;
};

struct ForecastEntry {
  std::string volume;
  double utilization_before = 0;  // 0..1 (may exceed 1 when overloaded)
  double utilization_after = 0;
  double read_latency_us_before = 0;
  double read_latency_us_after = 0;
  // What makes up utilization_after, at the peak (a stripe member shows its
  // share of the stripe's): 8 KiB random reads/s; data block writes/s as
  // the workload gives them; the same writes as the checkpointer issues
  // them (each block once per checkpoint cycle, spread over
  // checkpoint_timeout x checkpoint_completion_target), which is what the
  // utilisation counts; WAL flushes/s and MB/s; sequential backup reads.
  double read_iops = 0;
  double write_iops = 0;
  double checkpoint_write_iops = 0;
  double wal_write_iops = 0;
  double wal_write_mbps = 0;
  double backup_read_mbps = 0;
};

struct SettingChange {
  std::string name;
  std::string value;
  std::string previous;  // "" when unknown
  std::string reason;
};

// Moving pg_wal to the plan's WAL volume: a step for a person, run with
// the server stopped. `migrate` never does it (docs/where-data-lives.md).
struct WalMove {
  std::string from_volume;  // "" = on no declared volume
  std::string from_path;    // where pg_wal resolves now
  std::string to_path;      // the new pg_wal directory
  std::string data_directory;
  // The forecast until it is done: the WAL's load stays on from_volume.
  double from_utilization_until_moved = 0;
};

// The shell commands that move pg_wal as |move| says, with the server
// stopped: stop, move, symlink, start. Uncommented; callers comment them
// (stripe.sh, plan.sql) or show them (the plan's text, the report).
std::vector<std::string> WalMoveCommands(const WalMove& move);
// Single-quoted for the shell: nothing inside is interpreted.
std::string ShellQuote(const std::string& text);

struct Plan {
  double target_utilization = 0.7;
  std::string prefer = "auto";  // "partition", "stripe", "auto"
  std::string wal_volume;
  std::string wal_reason;
  // The volume holding pg_wal now: a name, "" when unknown; see
  // wal_now_note for how it was found or why it is unknown.
  std::string wal_now;
  std::string wal_now_note;
  std::optional<WalMove> wal_move;  // set when pg_wal must move
  // What the plan could not attribute (a directory on no declared volume):
  // for people, shown before anything else.
  std::vector<std::string> warnings;
  std::vector<TablespaceSpec> tablespaces;
  std::vector<Placement> placements;
  std::vector<SettingChange> settings;
  std::vector<Stripe> stripes;
  std::vector<ForecastEntry> forecast;
  std::map<std::string, std::string> backup_walg;
  std::map<std::string, std::string> backup_pgbackrest;
  std::vector<std::string> verdicts;  // plain-language conclusions

  const TablespaceSpec* FindTablespace(const std::string& name) const;
};

}  // namespace pglayout

#endif  // PGLAYOUT_COMMON_MODEL_H_
