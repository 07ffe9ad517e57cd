// The fidelity scenario: the plan's forecast against what a migrated layout
// really measures, on a volume lab (testing/volume_lab.h).
//
//   FidelitySpec spec;            // defaults: a short run on PostgreSQL 18
//   spec.pglayout = PGLAYOUT_BINARY;
//   FidelityResult result;
//   Status s = RunFidelityScenario(spec, &result, [](const std::string& line) {
//     fprintf(stderr, "%s\n", line.c_str());
//   });
//
// Returns, per volume, the forecast and the measurement before and after
// the migration, under the same fixed-rate workload; the demo's options add
// a kill and resume, a rows check and the report. Everything it made is
// removed when it returns, also on failure. The steps: docs/fidelity.md.

#ifndef PGLAYOUT_TESTING_FIDELITY_SCENARIO_H_
#define PGLAYOUT_TESTING_FIDELITY_SCENARIO_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/status.h"
#include "testing/migration_check.h"
#include "testing/pg_cluster.h"

namespace pglayout {

struct FidelitySpec {
  PgVersion version = PgVersion::k18;
  std::string pglayout;      // the pglayout binary
  int scale = 16;            // pgbench scale: pgbench_accounts is the hot table
  int lookup_rows = 600000;  // the second read table (~110 MB)
  double rate_tps = 540;     // pgbench -R: transactions per second offered
  int clients = 4;
  double warmup_s = 15;   // workload before each observation starts
  double observe_s = 30;  // the observation window, before and after
  uint64_t page_cache_bytes = 160ull << 20;  // memory cgroup of the lab
  uint64_t volume_size = 1536ull << 20;
  // Kernel caps (8 KiB-page I/Os per second, reads and writes alike).
  uint64_t data_iops = 600;  // base and each spare volume
  uint64_t wal_iops = 4000;
  int spare_volumes = 3;
  bool probe = false;  // measure the volumes with `pglayout probe --quick`
  // Added to `pglayout migrate --apply`, e.g. {"--throttle", "off"}.
  std::vector<std::string> migrate_options;
  // Added to `pglayout plan`, e.g. {"--prefer", "stripe", "--target", "0.4"}.
  // When the plan builds a stripe, the scenario builds it in the lab before
  // the migration, as the plan's stripe.sh would with mdadm: a btrfs raid0
  // of the member volumes, mounted where the plan's tablespace lives
  // (VolumeLab::Stripe).
  std::vector<std::string> plan_options;
  std::string out_dir;  // where volumes.toml, workload*.toml, plan/ go
  // Run `migrate --apply` in the background, SIGKILL it once its journal
  // shows a copy at least half done (or past its copy), then run it again:
  // the second run resumes the journal's run to the end.
  bool kill_and_resume = false;
  // Count and checksum each table before the migration and at the end, and
  // look up where each relation the plan moves lives afterwards.
  bool check_rows = false;
  // `pglayout report ... --journal --after` -> <out_dir>/report.html.
  bool report = false;
  // Called at the end of a successful run, the server still up, with its
  // conninfo (the demo's --keep waits there); the lab goes when it returns.
  std::function<void(const std::string& conninfo)> before_teardown;
};

// One volume, before and after the migration.
struct VolumeFidelity {
  std::string volume;
  std::vector<std::string> members;  // a stripe's lab volumes; else empty
  double cap_read_iops = 0;          // the lab's caps
  double cap_write_iops = 0;
  // Utilisation as the device model counts it (MeasuredUtilisation),
  // forecast by the plan and measured from /proc/diskstats.
  bool separate_budgets = false;  // volumes.toml's iops_budget
  double forecast_before = 0;
  double forecast_after = 0;
  double measured_before = 0;
  double measured_after = 0;
  // Completed requests per second over each observation window.
  double reads_before = 0, writes_before = 0;
  double reads_after = 0, writes_after = 0;
  double forecast_read_iops_after = 0;  // the plan's 8 KiB reads/s
  // The device's own time per completed read (/proc/diskstats ms reading
  // / reads): a throttle's wait is not in it, the server's read time is.
  double device_read_latency_before_us = 0;
  double device_read_latency_after_us = 0;
  // KiB per completed read request: above 8 the device merged blocks
  // (readahead), so one request served several of the server's reads.
  double read_kib_before = 0, read_kib_after = 0;
  double forecast_read_latency_before_us = 0;
  double forecast_read_latency_after_us = 0;
  // volumes.toml's figures: the caps when declared, the probe's when
  // FidelitySpec::probe.
  double described_read_iops = 0, described_write_iops = 0;
  double described_sync_write_latency_us = 0;
};

// The workload as the server saw it over one observation window.
struct WindowFigures {
  double tps = 0;         // pgbench's, over its whole run
  double latency_ms = 0;  // pgbench's mean transaction latency
  // pg_stat_database blk_read_time / blks_read: page-cache hits included.
  double read_latency_us = 0;
  double blocks_read_per_s = 0;
  // Read requests the lab's volumes completed (/proc/diskstats), per second.
  double device_reads_per_s = 0;
  // blk_read_time / those reads: the latency of a read that reached a
  // volume, which is what the forecast's read latency is
  // (ReadLatencyPerDeviceReadUs).
  double device_read_latency_us = 0;
};

// A volume's utilisation as the device model counts it: reads / read cap
// + writes / write cap on one combined budget, the larger of the two on
// separate budgets (the lab's throttle; Volume::iops_budget).
double MeasuredUtilisation(double reads, double writes, double read_cap,
                           double write_cap, bool separate_budgets);

// The server's read time per read that reached a volume, in us:
// |read_time_ms| (blk_read_time over a window) / |device_reads| (the
// volumes' completed read requests over the same window); 0 without reads.
// The page cache's hits add their few us each to the numerator, so this
// overstates the device's latency by hits x a few us / device reads.
double ReadLatencyPerDeviceReadUs(double read_time_ms, double device_reads);

// The mean of |latency_us| weighted by |reads| (same length); 0 without
// reads. The forecast's read latency over several volumes.
double ReadWeightedLatencyUs(const std::vector<double>& reads,
                             const std::vector<double>& latency_us);

struct FidelityResult {
  // base, wal, then the spares; a stripe the plan built replaces its
  // members, its caps and counters their sums.
  std::vector<VolumeFidelity> volumes;
  // The plan's stripes, as "name (member+member+...)".
  std::vector<std::string> stripes;
  double target = 0;  // the plan's target utilisation
  WindowFigures before, after;
  // The plan's read latency per read that reaches a volume: after, weighted
  // by the plan's reads per volume; before, by the reads each volume
  // completed in the window before (the forecast has no reads before).
  // Compared with WindowFigures::device_read_latency_us.
  double forecast_read_latency_before_us = 0;
  double forecast_read_latency_after_us = 0;
  std::vector<std::string> verdicts;  // the plan's
  // The plan's WAL decision, and where pg_wal is now: where they differ,
  // moving it is a step by hand with a restart that the scenario does not
  // take, so the plan's WAL volume is measured without the WAL.
  std::string wal_volume, wal_reason, wal_now;
  // Set by the options of FidelitySpec that ask for them.
  KillResume migration;
  std::vector<TableCheck> tables;
  std::vector<PlacementCheck> placements;
  std::vector<StepVerification> verifications;
  std::string report_path;
};

// Runs the scenario; |say| gets a line per step (progress). Fails naming
// the step and the command's output tail.
Status RunFidelityScenario(const FidelitySpec& spec, FidelityResult* result,
                           const std::function<void(const std::string&)>& say);

// The result as a table for people: one line per volume, then the
// workload's figures.
std::string FormatFidelity(const FidelityResult& result);

}  // namespace pglayout

#endif  // PGLAYOUT_TESTING_FIDELITY_SCENARIO_H_
