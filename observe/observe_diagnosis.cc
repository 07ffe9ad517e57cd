#include "observe/observe_diagnosis.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "common/units.h"

namespace pglayout {

double RequestedShare(int64_t timed, int64_t requested) {
  int64_t all = timed + requested;
  return all > 0 ? static_cast<double>(requested) / static_cast<double>(all)
                 : -1;
}

namespace {

// Above this share of requested checkpoints the diagnosis warns: on a
// healthy server nearly every checkpoint is timed (docs/checkpoints.md).
constexpr double kRequestedShareWarning = 0.1;
// Mean sync phase per checkpoint above which storage looks slow to flush.
constexpr double kSlowSyncMs = 1000;

std::string Percent(double share) {
  return fmt::format("{:.0f}%", share * 100);
}

// |what| is "checkpoints", or "restartpoints" on a standby.
std::string CheckpointLine(const char* what, const char* when, int64_t timed,
                           int64_t requested) {
  double share = RequestedShare(timed, requested);
  std::string line = fmt::format("{} {}: {} timed, {} requested", what, when,
                                 timed, requested);
  if (share >= 0) line += fmt::format(" ({} requested)", Percent(share));
  return line;
}

// The WAL a checkpoint cycle may produce before WAL volume forces the next
// one: max_wal_size / (1 + checkpoint_completion_target), as in
// xlog.c::CalculateCheckpointSegments.
bool WalBudget(const Workload& w, double* budget, double* timeout) {
  uint64_t max_wal = 0;
  double cct = 0.9;
  auto max_wal_size = w.Setting("max_wal_size");
  auto checkpoint_timeout = w.Setting("checkpoint_timeout");
  if (!max_wal_size || !checkpoint_timeout ||
      !ParseSize(*max_wal_size, &max_wal).ok() ||
      !ParseDuration(*checkpoint_timeout, timeout).ok()) {
    return false;
  }
  if (auto c = w.Setting("checkpoint_completion_target")) {
    char* end = nullptr;
    cct = std::strtod(c->c_str(), &end);
    // Text that is not a fraction judges nothing, as an unparsable
    // max_wal_size does.
    if (end == c->c_str() || *end != '\0' || cct < 0 || cct > 1) return false;
  }
  *budget = static_cast<double>(max_wal) / (1.0 + cct);
  return true;
}

void AddWalPressure(const Workload& w, std::vector<std::string>* out) {
  double budget = 0, timeout = 0;
  double peak =
      std::max(w.wal_bytes_per_second_peak, w.wal_bytes_per_second.value_or(0));
  if (peak <= 0 || !WalBudget(w, &budget, &timeout)) return;
  double per_cycle = peak * timeout;
  std::string line = fmt::format(
      "at the peak WAL rate ({}/s) one checkpoint_timeout ({}) writes {} of "
      "WAL; max_wal_size {} allows about {} per checkpoint cycle",
      HumanSize(peak), FormatDuration(timeout), HumanSize(per_cycle),
      w.Setting("max_wal_size").value_or("?"), HumanSize(budget));
  if (per_cycle > budget) {
    line += fmt::format(
        ": WAL volume, not time, will start checkpoints (requested, "
        "unthrottled) every ~{}",
        FormatDuration(std::max(1.0, std::round(budget / peak))));
  }
  out->push_back(line);
}

void AddCheckpointTimings(const Checkpoints& c, std::vector<std::string>* out) {
  int64_t n = c.timed + c.requested;
  if (n <= 0) return;
  double sync = c.sync_time_ms / static_cast<double>(n);
  std::string line = fmt::format(
      "per checkpoint: {:.0f} buffers written, write phase {:.1f} s, sync "
      "phase {:.2f} s",
      static_cast<double>(c.buffers_written) / static_cast<double>(n),
      c.write_time_ms / 1000 / static_cast<double>(n), sync / 1000);
  if (sync > kSlowSyncMs) line += ": long syncs mean the storage struggles";
  out->push_back(line);
}

// Advice on requested checkpoints, from the counts of one window (|when|:
// "during the observation", "in the log").
void AddRequestedWarning(const char* when, int64_t timed, int64_t requested,
                         const Workload& w, std::vector<std::string>* out) {
  double share = RequestedShare(timed, requested);
  if (share < kRequestedShareWarning) return;
  auto max_wal = w.Setting("max_wal_size");
  auto timeout = w.Setting("checkpoint_timeout");
  out->push_back(fmt::format(
      "requested checkpoints are {} of all {} (healthy is near 0%): WAL "
      "reaches max_wal_size{} before checkpoint_timeout{}, and each such "
      "checkpoint flushes dirty buffers as fast as the storage allows; raise "
      "max_wal_size (a CHECKPOINT command or a base backup also counts as "
      "requested)",
      Percent(share), when, max_wal ? " (" + *max_wal + ")" : "",
      timeout ? " (" + *timeout + ")" : ""));
}

// The counters since the last statistics reset are history: they may
// predate today's settings and workload. They only speak when the
// observation saw no checkpoint of its own, and then as a question.
void AddHistoryNote(const Checkpoints& observed,
                    const CheckpointCounters& total,
                    std::vector<std::string>* out) {
  if (observed.timed + observed.requested > 0) return;
  double share = RequestedShare(total.timed, total.requested);
  if (share < kRequestedShareWarning) return;
  out->push_back(fmt::format(
      "no checkpoint happened during the observation; since the last "
      "statistics reset {} of checkpoints were requested, which may predate "
      "today's settings: observe for longer than checkpoint_timeout (or read "
      "the server log with --from-log) before changing max_wal_size",
      Percent(share)));
}

void AddServerLine(const ObserveResult& r, std::vector<std::string>* out) {
  const ServerInfo& s = r.server;
  out->push_back(fmt::format(
      "observed {} (PostgreSQL {}{}) for {} in {} intervals: WAL {}/s "
      "average, {}/s peak{}; {:.0f} commits/s",
      s.description, FormatServerVersion(s.version_num),
      s.in_recovery ? ", standby: WAL is the replay rate" : "",
      FormatDuration(std::round(r.rates.duration)), r.rates.intervals,
      HumanSize(r.rates.wal_bytes_per_second),
      HumanSize(r.rates.wal_bytes_per_second_peak),
      r.rates.fpi_share >= 0
          ? fmt::format(" ({} of WAL records are full-page images)",
                        Percent(r.rates.fpi_share))
          : "",
      r.rates.commits_per_second));
}

// What differs on a standby, so that nobody plans a primary's volumes from
// it without knowing.
void AddStandbyNote(const ServerInfo& s, std::vector<std::string>* out) {
  if (!s.in_recovery) return;
  out->push_back(fmt::format(
      "observed on a standby (in recovery): WAL is the rate replayed from the "
      "primary; checkpoints on a standby are restartpoints, which can only "
      "happen where the primary wrote a checkpoint into the WAL ({}); reads "
      "are the standby's own, but replayed changes do not count as tuple "
      "changes, so write rates are underestimated: observe the primary for "
      "them",
      s.version_num >= 170000
          ? "pg_stat_checkpointer's restartpoints_timed and restartpoints_req"
          : "pg_stat_bgwriter counts them as checkpoints"));
}

void AddWriteEstimate(const ServerRates& rates, std::vector<std::string>* out) {
  std::string line = fmt::format(
      "write rates are estimated from tuple changes ({:.0f} blocks/s in all, "
      "on average)",
      rates.estimated_blocks_written_per_second);
  if (rates.measured_blocks_written_per_second >= 0) {
    line += fmt::format(
        "; the server actually wrote {:.0f} blocks/s of relations meanwhile "
        "(checkpointer, bgwriter and backends), which lags behind the "
        "dirtying until the next checkpoint",
        rates.measured_blocks_written_per_second);
  }
  out->push_back(line);
}

std::string Location(const Workload& w, const std::string& tablespace) {
  for (const TablespaceInfo& t : w.tablespaces) {
    if (t.name != tablespace) continue;
    return t.location.empty() ? tablespace + " (data directory)"
                              : tablespace + " (" + t.location + ")";
  }
  return tablespace.empty() ? "-" : tablespace;
}

}  // namespace

std::vector<std::string> DiagnoseLive(const ObserveResult& r) {
  std::vector<std::string> out;
  const Workload& w = r.workload;
  AddServerLine(r, &out);
  AddStandbyNote(r.server, &out);
  const char* what = r.server.in_recovery ? "restartpoints" : "checkpoints";
  const Checkpoints& c = r.rates.checkpoints;
  out.push_back(
      CheckpointLine(what, "during the observation", c.timed, c.requested));
  const CheckpointCounters& total = r.server.checkpoints_since_reset;
  out.push_back(
      CheckpointLine(what,
                     ("since " + (r.server.checkpoints_reset_at.empty()
                                      ? std::string("the last statistics reset")
                                      : r.server.checkpoints_reset_at))
                         .c_str(),
                     total.timed, total.requested));
  AddRequestedWarning("during the observation", c.timed, c.requested, w, &out);
  AddHistoryNote(c, total, &out);
  AddCheckpointTimings(c, &out);
  AddWalPressure(w, &out);
  AddWriteEstimate(r.rates, &out);
  if (r.skipped_samples > 0) {
    out.push_back(
        fmt::format("{} sample(s) skipped: a relation was locked exclusively",
                    r.skipped_samples));
  }
  auto block = w.Setting("block_size");
  if (block && *block != "8192") {
    out.push_back("block_size is " + *block +
                  ", not 8192: IOPS figures count the server's blocks");
  }
  return out;
}

std::vector<std::string> DiagnoseLog(const CheckpointLogSummary& report,
                                     const Workload& w) {
  std::vector<std::string> out;
  out.push_back(fmt::format(
      "{} checkpoint message(s) in {} file(s), {} lines, spanning {}",
      report.totals.checkpoints, report.files, report.lines,
      FormatDuration(std::round(report.Span()))));
  // What the reader had to assume or leave out (a syslog year, a file
  // without checkpoints, a completion without its start).
  out.insert(out.end(), report.notes.begin(), report.notes.end());
  out.push_back(CheckpointLine("checkpoints", "in the log", w.checkpoints.timed,
                               w.checkpoints.requested));
  if (report.WalTriggered() > 0) {
    out.push_back(fmt::format(
        "{} \"checkpoint starting: wal\": forced because WAL reached "
        "max_wal_size",
        report.WalTriggered()));
  }
  if (report.too_frequent_warnings > 0) {
    double shortest = std::max(0.0, report.totals.too_frequent_shortest);
    out.push_back(fmt::format(
        "{} \"checkpoints are occurring too frequently\" warning(s), as "
        "little as {:.0f} s apart",
        report.too_frequent_warnings, shortest));
  }
  AddRequestedWarning("in the log", w.checkpoints.timed,
                      w.checkpoints.requested, w, &out);
  AddCheckpointTimings(w.checkpoints, &out);
  if (w.wal_bytes_per_second) {
    out.push_back(fmt::format(
        "WAL {}/s average, {}/s peak, estimated from checkpoint distances",
        HumanSize(*w.wal_bytes_per_second),
        HumanSize(w.wal_bytes_per_second_peak)));
  } else {
    out.push_back(
        "WAL rate unknown: no two consecutive checkpoints with times and "
        "\"distance=\" (PostgreSQL 9.6+) in the log; the plan will say "
        "which forecasts lack it");
  }
  return out;
}

std::vector<std::string> DiagnoseSegments(const SegmentImportSummary& report,
                                          const Workload& w) {
  std::vector<std::string> out;
  out.push_back(fmt::format(
      "{} row(s), {} snapshot(s) covering {}: {} relation(s)", report.rows,
      report.snapshots, FormatDuration(std::round(report.seconds)),
      w.relations.size()));
  for (const auto& [type, rows] : report.skipped) {
    out.push_back(fmt::format("skipped {} row(s) of segment type {}", rows,
                              type.empty() ? "(empty)" : type));
  }
  if (report.lobs_without_table > 0) {
    out.push_back(fmt::format(
        "skipped {} LOB row(s) without table_name: their I/O belongs to a "
        "table the CSV does not name",
        report.lobs_without_table));
  }
  out.push_back(
      "write rates are Oracle's measured physical writes (DBWR), not "
      "PostgreSQL's; PostgreSQL adds WAL and checkpoint writes of its own");
  return out;
}

std::string HotRelationsTable(const Workload& w, int limit) {
  std::string out =
      fmt::format("{:<4} {:<40} {:<11} {:<28} {:>10} {:>10} {:>10} {:>10}\n",
                  "rank", "relation", "kind", "tablespace", "size", "read/s",
                  "read avg", "write/s");
  int rank = 0;
  for (const Relation& r : w.relations) {
    if (rank >= limit) break;
    out += fmt::format(
        "{:<4} {:<40} {:<11} {:<28} {:>10} {:>10.1f} {:>10.1f} {:>10.1f}\n",
        ++rank, r.name, RelationKindName(r.kind), Location(w, r.tablespace),
        HumanSize(static_cast<double>(r.size)), r.read_iops, r.read_iops_avg,
        r.write_iops);
  }
  return out;
}

std::string FormatDiagnosis(const std::vector<std::string>& findings,
                            const Workload& w, int limit) {
  std::string out;
  for (const std::string& f : findings) out += "- " + f + "\n";
  if (!w.relations.empty() && limit > 0) {
    out +=
        "\nhottest relations (8 KiB blocks per second at the peak, 95th "
        "percentile of intervals; write/s " +
        std::string(w.write_method.empty() ? "as given" : "estimated") + "):\n";
    out += HotRelationsTable(w, limit);
  }
  return out;
}

}  // namespace pglayout
