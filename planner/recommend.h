// Settings that go with a layout, each with its reason and numbers.
//
// Checkpoints (docs/checkpoints.md). PostgreSQL requests a checkpoint once
// about max_wal_size / (1 + checkpoint_completion_target) of WAL was written
// since the last one (xlog.c, CalculateCheckpointSegments). A requested
// checkpoint ignores the completion target and flushes as fast as the
// storage allows, which is what cut pgbench from 1000 to 620 TPS in
// docs/source-scenarios.md#checkpoints. So that checkpoints are timed, not
// requested, at the WAL peak R:
//   max_wal_size >= R x checkpoint_timeout x (1 + target) x 1.2 (bursts),
// bounded by 60% of the WAL volume's free space (max_wal_size is a soft
// limit; timescaledb-tune's rule leaves room to react) and by a
// crash-recovery budget (recovery replays up to max_wal_size of WAL, at an
// assumed kReplayBytesPerSecond). Without a measured rate, the rate is
// estimated from the requested checkpoints over the observation.
// checkpoint_timeout stays the server's unless the measured WAL carries
// full-page images a longer cycle would save (at least 10% of it): then the
// longest of 10/15/20/30 min whose max_wal_size stays within the same
// bounds, and max_wal_size is sized for it
// (docs/checkpoints.md#checkpoint_timeout-and-checkpoint_completion_target).
// checkpoint_completion_target 0.9 when the server has less, with the write
// rate each gives.
//
// I/O per tablespace (docs/device-model.md#per-tablespace-io-settings).
// seq_page_cost is relative to the volume of pg_default (slower sequential
// reads cost more);
// random_page_cost = seq_page_cost x (sequential pages/s / random IOPS),
// within [1.1, 4]: the throughput ratio the planner's costs stand for;
// effective_io_concurrency and maintenance_io_concurrency = the requests in
// flight the volume needs to reach its IOPS (Little's law). pg_default's own
// values go to the global settings.
//
// Backup readers (docs/device-model.md#backup-readers): wal-g direct reads
// that span the whole stripe, sized by ChooseBackupReadSize; reader
// concurrency vCPU/2, or all vCPUs on dense-NVMe families and tiny hosts;
// CPUWeight=25.

#ifndef PGLAYOUT_PLANNER_RECOMMEND_H_
#define PGLAYOUT_PLANNER_RECOMMEND_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/model.h"
#include "planner/device_model.h"

namespace pglayout::planner {

// Redo replays WAL single-threaded and mostly waits on random data-page
// reads; tens of MB/s is typical for OLTP WAL, so 50 MB/s is conservative.
inline constexpr double kReplayBytesPerSecond = 50e6;
inline constexpr double kCheckpointCompletionTarget = 0.9;
inline constexpr double kWalBurstMargin = 1.2;
inline constexpr double kWalVolumeShare = 0.6;

// The workload's checkpoint_timeout in seconds, or PostgreSQL's default
// (5 min) when it is missing or unreadable.
double CheckpointTimeoutSeconds(const Workload& workload);

struct CheckpointInput {
  const Workload* workload = nullptr;
  double wal_bytes_per_second = 0;  // peak, 0 = unknown
  uint64_t wal_volume_free = 0;     // bytes the WAL may use on its volume
  double recovery_budget_seconds = 900;
};

// checkpoint_timeout, max_wal_size, min_wal_size,
// checkpoint_completion_target, log_checkpoints: only the ones that differ
// from the current values.
std::vector<SettingChange> RecommendCheckpoints(const CheckpointInput& in);

// ALTER TABLESPACE ... SET (...) options for a tablespace on |volume|,
// relative to |reference| (pg_default's volume; nullptr = |volume|).
std::map<std::string, std::string> TablespaceOptions(
    const DeviceModel& volume, const DeviceModel* reference,
    int server_version_num);

struct IoInput {
  int server_version_num = 0;
  const Workload* workload = nullptr;
  // pg_default's volume, for the global page costs; may be nullptr.
  const DeviceModel* default_volume = nullptr;
  double read_iops = 0;        // total peak reads of the plan
  double read_latency_us = 0;  // their mean predicted latency
  // Largest read that still helps: chunk x members of a striped data
  // volume, 0 when none is striped.
  uint64_t stripe_width = 0;
};

// Global I/O settings: page costs and concurrency of pg_default, and where
// the version has them io_combine_limit (17+), io_workers (18+).
std::vector<SettingChange> RecommendIo(const IoInput& in);

// How large each direct read of a backup is, and where that came from.
struct BackupReadSize {
  uint64_t bytes = 0;
  // "measured" (or "declared", a stripe_read_size written by hand),
  // "geometry" or "rule".
  std::string source;
  std::string volume;        // the volume the backup reads most from
  std::string why;           // for people, with the figures
  uint64_t measured = 0;     // its stripe_read_size; 0 = none
  uint64_t full_stripe = 0;  // chunk x data members; 0 = not known
};

// The backup read size for |volume| (the one holding the data directory,
// or a stripe the plan builds, declared with its members and chunk):
//   - measured (or declared): its stripe_read_size when
//     CheckStripeReadSize trusts it, rounded up to whole stripes when the
//     geometry is known;
//   - geometry: else, when the full stripe is known, the fewest whole
//     stripes that give each member at least 1 MiB;
//   - rule: else 1 MiB (256 blocks of 4 KiB) per member disk.
BackupReadSize ChooseBackupReadSize(const Volume& volume);

struct BackupAdvice {
  std::map<std::string, std::string> walg;
  std::map<std::string, std::string> pgbackrest;
  std::vector<std::string> reasons;  // one line per decision
  BackupReadSize read_size;
};

// |read_size|: ChooseBackupReadSize of the volume holding the data.
BackupAdvice RecommendBackup(const Host& host, const BackupReadSize& read_size);

// "i8ge" for "i8ge.12xlarge".
std::string InstanceFamily(const std::string& instance_type);

}  // namespace pglayout::planner

#endif  // PGLAYOUT_PLANNER_RECOMMEND_H_
