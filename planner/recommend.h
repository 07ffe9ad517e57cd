// Settings that go with a layout, each with its reason and numbers:
// checkpoint settings so that checkpoints stay timed at the WAL peak,
// within the WAL volume's free space and a recovery budget
// (docs/checkpoints.md); I/O settings per tablespace from its volume
// (docs/device-model.md#per-tablespace-io-settings); and backup readers
// whose direct reads span the whole stripe
// (docs/device-model.md#backup-readers).

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
