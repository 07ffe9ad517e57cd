// pglayout-demo, run by scripts/demo: the fidelity scenario
// (testing/fidelity_scenario.h) with every demo option on, ending with a
// summary of the plan, the kill and resume, the rows, and the forecast
// against the measurement. Refuses with one line where the volume lab cannot
// be built. What it shows and why there is no fallback: README.md, "The demo".

#include <fmt/format.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>

#include "common/files.h"
#include "testing/fidelity_scenario.h"
#include "testing/volume_lab.h"

namespace pglayout {
namespace {

constexpr char kUsage[] =
    "usage: pglayout-demo [--pg15] [--scale N] [--rate TPS] [--keep] "
    "[--out DIR]\n"
    "  Builds a volume lab (root: loop devices capped by the kernel), runs\n"
    "  PostgreSQL 18 (--pg15: 15) on it with pgbench at --scale (10 to 100,\n"
    "  default 16) and a fixed rate (--rate, default 540 tps), then probe,\n"
    "  observe, plan, migrate (killed halfway and resumed), observe again\n"
    "  and report.\n"
    "  --keep  leave the server and the lab up at the end until Enter\n"
    "  --out   the files of the run (default demo-out; emptied first)\n";

// Below scale 10 the hot table fits the page cache the probe needs.
constexpr int kMinScale = 10;
constexpr int kMaxScale = 100;

// Marks a directory the demo made, so that a later run may empty it.
constexpr char kMarker[] = ".pglayout-demo";

struct Options {
  FidelitySpec spec;
  bool keep = false;
};

bool ParseArgs(int argc, char** argv, Options* options) {
  FidelitySpec& spec = options->spec;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    bool has_value = i + 1 < argc;
    if (arg == "--pg15") {
      spec.version = PgVersion::k15;
    } else if (arg == "--keep") {
      options->keep = true;
    } else if (arg == "--scale" && has_value) {
      spec.scale = std::atoi(argv[++i]);
    } else if (arg == "--rate" && has_value) {
      spec.rate_tps = std::atof(argv[++i]);
    } else if (arg == "--out" && has_value) {
      spec.out_dir = argv[++i];
    } else {
      return false;
    }
  }
  return spec.scale >= kMinScale && spec.scale <= kMaxScale &&
         spec.rate_tps > 0;
}

// The demo's sizes follow the scale in bench/fidelity's proportions (scale
// 16: a 205 MiB hot table, a 110 MiB lookup table, a 160 MiB page cache), so
// that the hot table always reads from its volume. The memory cgroup holds
// the probe too: below 112 MiB (scale 10, the test's) the kernel killed it.
void ScaleSizes(FidelitySpec* spec) {
  spec->lookup_rows = 37500 * spec->scale;
  spec->page_cache_bytes =
      std::max<uint64_t>(112ull << 20, spec->scale * (10ull << 20));
  spec->volume_size =
      std::max<uint64_t>(1536ull << 20, spec->scale * (80ull << 20));
}

// Empties |dir| if the demo made it (or makes it), and marks it.
Status PrepareOutDir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_empty(dir, ec) &&
      !fs::exists(fs::path(dir) / kMarker, ec)) {
    return Status::InvalidInput(
        fmt::format("{} is not empty and was not made by the demo; choose "
                    "another --out",
                    dir));
  }
  fs::remove_all(dir, ec);
  fs::create_directories(dir, ec);
  if (ec)
    return Status::IoError("could not create directory " + dir + ": " +
                           ec.message());
  return WriteTextFile((fs::path(dir) / kMarker).string(),
                       "made by pglayout-demo; emptied by its next run\n");
}

std::string Percent(double share) {
  return fmt::format("{:.0f}%", 100 * share);
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

void PrintSummary(const Options& options, const FidelityResult& r,
                  double seconds) {
  const FidelitySpec& spec = options.spec;
  fmt::print("\n== summary\n");
  fmt::print(
      "ran       {} on a volume lab: base (data directory) and v1-v{} at "
      "{} IOPS, wal (pg_wal) at {}; pgbench scale {} at {:.0f} tps\n",
      PgVersionName(spec.version), spec.spare_volumes, spec.data_iops,
      spec.wal_iops, spec.scale, spec.rate_tps);
  fmt::print(
      "probe     volume  read IOPS  write IOPS  (the kernel's caps)  "
      "8 KiB write + fdatasync\n");
  for (const VolumeFidelity& v : r.volumes) {
    fmt::print(
        "          {:<6} {:>10.0f} {:>11.0f}  ({:.0f} / {:.0f}) {:>16.0f} us\n",
        v.volume, v.described_read_iops, v.described_write_iops,
        v.cap_read_iops, v.cap_write_iops, v.described_sync_write_latency_us);
  }
  fmt::print("plan      target utilisation {}\n", Percent(r.target));
  for (const PlacementCheck& p : r.placements) {
    fmt::print("          {} {} -> {}\n", p.strategy, p.relation,
               Join(p.planned));
    if (!p.reason.empty()) fmt::print("            ({})\n", p.reason);
  }
  if (r.placements.empty()) fmt::print("          nothing moves\n");
  if (!r.wal_volume.empty()) {
    fmt::print("          WAL on {}{}\n", r.wal_volume,
               r.wal_reason.empty() ? "" : ": " + r.wal_reason);
  }
  if (!r.wal_now.empty() && !r.wal_volume.empty() &&
      r.wal_now != r.wal_volume) {
    fmt::print(
        "          pg_wal is on {} now: moving it is a step by hand with a "
        "restart, which the demo does not take; below, {} carries the WAL "
        "and {} does not\n",
        r.wal_now, r.wal_now, r.wal_volume);
  }
  const KillResume& m = r.migration;
  if (m.killed) {
    fmt::print(
        "migrate   killed with SIGKILL in {} ({} phase, {} of {} rows "
        "copied); {}; journal: run {}\n",
        m.step, m.phase, m.rows_copied, m.rows_total,
        m.resumed ? "the second run resumed it"
                  : "the second run did NOT "
                    "say it resumed",
        m.run_state);
  } else {
    fmt::print(
        "migrate   ended before it could be killed (no kill to resume from); "
        "journal: run {}\n",
        m.run_state);
  }
  int same = 0;
  for (const TableCheck& t : r.tables) same += t.Same() ? 1 : 0;
  fmt::print(
      "rows      {} of {} tables: the same count and checksum before "
      "and after\n",
      same, r.tables.size());
  for (const TableCheck& t : r.tables) {
    fmt::print("          {:<18} {:>9} rows {}{}\n", t.table, t.rows_after,
               t.Same() ? "same" : "DIFFERENT",
               t.rows_filter.empty()
                   ? ""
                   : fmt::format(" (those before; {} now: the load's inserts)",
                                 t.rows_now));
  }
  for (const StepVerification& v : r.verifications) {
    fmt::print(
        "          migrate's own check at the swap of {}: {} rows, {} "
        "rows, sums {}\n",
        v.step, v.source_rows, v.new_rows,
        v.sums_equal ? "equal" : "DIFFERENT");
  }
  for (const PlacementCheck& p : r.placements) {
    fmt::print("placed    {} in {} ({})\n", p.relation, Join(p.found),
               p.found == p.planned ? "as planned" : "NOT as planned");
  }
  fmt::print(
      "\nforecast against measured, per volume (utilisation = "
      "reads / read cap + writes / write cap):\n{}",
      FormatFidelity(r));
  fmt::print(
      "\nfiles     {}/: volumes.toml, workload.toml, plan/, "
      "workload-after.toml, report.html, *.log\n",
      spec.out_dir);
  fmt::print("took      {:.0f} min {:02.0f} s\n", std::floor(seconds / 60),
             std::fmod(seconds, 60));
}

// Ctrl-C and SIGTERM end the demo at once; the server's and the lab's
// watchdogs (testing/pg_cluster.h, testing/volume_lab.h) see it go and
// remove what they made. Say so, then die of the signal.
void OnSignal(int sig) {
  constexpr char kLine[] =
      "\npglayout-demo: interrupted; the server and the lab are being "
      "removed\n";
  ssize_t ignored = write(STDERR_FILENO, kLine, sizeof(kLine) - 1);
  (void)ignored;
  signal(sig, SIG_DFL);
  raise(sig);
}

int Run(int argc, char** argv) {
  Options options;
  options.spec.pglayout = PGLAYOUT_BINARY;
  options.spec.out_dir = "demo-out";
  if (!ParseArgs(argc, argv, &options)) {
    fmt::print(stderr, "{}", kUsage);
    return 2;
  }
  FidelitySpec& spec = options.spec;
  ScaleSizes(&spec);
  spec.probe = true;
  spec.kill_and_resume = true;
  spec.check_rows = true;
  spec.report = true;
  Status s = VolumeLab::CheckPrerequisites(LabHost{}, /*memory_cgroup=*/true);
  if (!s.ok()) {
    fmt::print(stderr,
               "pglayout-demo: {}\npglayout-demo: the demo needs volumes that "
               "really differ; on directories of one disk a plan has nothing "
               "to move and nothing to measure\n",
               s.message());
    return 2;
  }
  s = PrepareOutDir(spec.out_dir);
  if (!s.ok()) {
    fmt::print(stderr, "pglayout-demo: {}\n", s.ToString());
    return 2;
  }
  spec.out_dir = std::filesystem::absolute(spec.out_dir).string();
  signal(SIGINT, OnSignal);
  signal(SIGTERM, OnSignal);
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  FidelityResult result;
  // The summary comes while the server still runs: --keep then waits.
  spec.before_teardown = [&](const std::string& conninfo) {
    PrintSummary(options, result, elapsed());
    if (!options.keep) return;
    fmt::print(
        "\n--keep: the server and the lab are up.\n  connect: "
        "/usr/lib/postgresql/15/bin/psql \"{}\"\n  press Enter to stop "
        "them\n",
        conninfo);
    std::fflush(stdout);
    std::string line;
    std::getline(std::cin, line);
  };
  s = RunFidelityScenario(spec, &result, [&](const std::string& line) {
    double t = elapsed();
    fmt::print("[{:2.0f}:{:02.0f}] {}\n", std::floor(t / 60), std::fmod(t, 60),
               line);
    std::fflush(stdout);
  });
  if (!s.ok()) {
    fmt::print(stderr, "pglayout-demo: {}\n(files of the run in {})\n",
               s.ToString(), spec.out_dir);
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace pglayout

int main(int argc, char** argv) { return pglayout::Run(argc, argv); }
