// pglayout observe: capture the I/O workload of a live PostgreSQL server
// (12-18), or import it from server logs or Oracle segment statistics, and
// write workload.toml.

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <cmath>
#include <csignal>
#include <iostream>

#include "cli/command.h"
#include "common/files.h"
#include "common/json.h"
#include "common/units.h"
#include "observe/log_parser.h"
#include "observe/observe.h"
#include "observe/observe_diagnosis.h"
#include "observe/observe_pg.h"
#include "observe/oracle_segments.h"

namespace pglayout::cli {
namespace {

constexpr char kFooter[] = R"(Sources (one of):
  live server   --dsn "host=db1 port=5432 dbname=app user=monitor" or a URI,
                or nothing and the PG* environment (PGHOST, PGPORT, PGUSER,
                PGDATABASE, PGPASSWORD, ~/.pgpass). Read-only: works on a
                standby. Any role can observe; pg_monitor (or
                pg_read_all_settings) adds data_directory to the settings.
                Ctrl-C ends the observation early and keeps what was sampled.
  --from-log    PostgreSQL server logs with log_checkpoints = on: checkpoint
                counts (timed vs requested), timings, WAL from distances.
                With --dsn, the live observation is written and the log's
                checkpoint evidence is added to its diagnosis.
  --from-segments  a CSV of Oracle segment statistics (AWR), columns
                owner, segment_name, segment_type, physical_reads,
                physical_writes, bytes, interval_seconds [, partition_name,
                snap_id, table_owner, table_name]; reads and writes in Oracle
                blocks (--oracle-block-size). Names become lower case, schema
                = owner unless --schema-map OWNER=schema. Partitions add up
                into their table, LOB segments into their table.
                Oracle's column names (DBA_HIST_SEG_STAT[_OBJ], DBA_SEGMENTS,
                DBA_HIST_SNAPSHOT times) and V$SEGMENT_STATISTICS rows
                (statistic_name, value) are accepted too. The separator
                (, ; tab |) is read from the header unless --separator
                gives it; a UTF-8 byte-order mark and CRLF line ends are fine.
                Produce it in Oracle (SQL*Plus: SET MARKUP CSV ON; SPOOL
                segments.csv) with the query below; docs/oracle-import.md
                explains it.

Rates are 8 KiB blocks per second at the peak (95th percentile of
intervals), with averages beside them; live write rates are estimated from
tuple changes and marked so in the file ([observation] write_method).

Oracle query:
)";

// Ctrl-C during a live observation stops sampling; the samples so far are
// used. A second Ctrl-C is not caught (the handler is reset), so a stuck
// query can still be interrupted the usual way.
std::atomic<bool> g_cancel{false};

extern "C" void OnInterrupt(int) {
  g_cancel.store(true);
  std::signal(SIGINT, SIG_DFL);
}

class ObserveCommand : public Command {
 public:
  void Configure(CLI::App* app) override {
    app->add_option("--dsn", dsn_,
                    "libpq connection string or URI (default: PG* "
                    "environment). Keep the password out of it: use "
                    "PGPASSWORD, ~/.pgpass or PGPASSFILE (one given here "
                    "is hidden from ps once parsed)");
    app->add_option("--duration", duration_text_,
                    "How long to observe, e.g. 5min, 1h")
        ->capture_default_str();
    app->add_option("--interval", interval_text_, "Time between samples")
        ->capture_default_str();
    app->add_option("-o,--output", output_, "Where to write workload.toml")
        ->capture_default_str();
    app->add_flag("--json", json_,
                  "Print the workload and the diagnosis as JSON on stdout");
    app->add_option("--top", top_,
                    "Write only the N hottest relations (0 = all)")
        ->capture_default_str();
    app->add_option("--facts", facts_,
                    "Collect keys, foreign keys, triggers... of the N hottest "
                    "tables")
        ->capture_default_str();
    app->add_option("--show", show_, "Relations in the printed hot list")
        ->capture_default_str();
    app->add_flag("--no-device-reads", no_device_reads_,
                  "Do not count the data devices' read requests (on the "
                  "database host they tell which share of the server's reads "
                  "the OS page cache served; leave them out where other busy "
                  "programs share the device)");
    app->add_option("--from-log", logs_,
                    "Parse these server logs instead of observing a server "
                    "(with --dsn: add "
                    "their checkpoint evidence to the diagnosis)");
    app->add_option("--from-segments", segments_,
                    "Import this CSV of Oracle segment statistics");
    app->add_option("--schema-map", schema_map_,
                    "OWNER=schema for --from-segments (repeatable)");
    app->add_option("--oracle-block-size", block_size_text_,
                    "Oracle db_block_size for --from-segments")
        ->capture_default_str();
    app->add_option("--separator", separator_text_,
                    "Field separator of --from-segments: , ; | or tab "
                    "(default: read from the header)");
    app->footer(std::string(kFooter) + kOracleSegmentsQuery + ";\n");
  }

  Status Run(const CommandContext& context) override {
    PGLAYOUT_RETURN_IF_ERROR(CheckSources());
    Workload workload;
    std::vector<std::string> findings;
    if (!logs_.empty() && dsn_.empty()) {
      PGLAYOUT_RETURN_IF_ERROR(FromLogs(&workload, &findings));
    } else if (!segments_.empty()) {
      PGLAYOUT_RETURN_IF_ERROR(FromSegments(&workload, &findings));
    } else {
      PGLAYOUT_RETURN_IF_ERROR(FromServer(context, &workload, &findings));
    }
    PGLAYOUT_RETURN_IF_ERROR(WriteTextFile(output_, WorkloadToToml(workload)));
    spdlog::info("wrote {} ({} relations)", output_, workload.relations.size());
    Print(workload, findings);
    return Status::Ok();
  }

 private:
  Status CheckSources() const {
    int sources = (logs_.empty() ? 0 : 1) + (segments_.empty() ? 0 : 1);
    if (sources > 1) {
      return Status::InvalidInput(
          "--from-log and --from-segments exclude each other");
    }
    if (!segments_.empty() && !dsn_.empty()) {
      return Status::InvalidInput(
          "--dsn observes a live server; it cannot be combined with "
          "--from-segments");
    }
    if (segments_.empty() &&
        (!schema_map_.empty() || block_size_text_ != "8192" ||
         !separator_text_.empty())) {
      return Status::InvalidInput(
          "--schema-map, --oracle-block-size and --separator apply to "
          "--from-segments");
    }
    return Status::Ok();
  }

  Status FromServer(const CommandContext& context, Workload* workload,
                    std::vector<std::string>* findings) {
    ObserveOptions options;
    Status st = ParseDuration(duration_text_, &options.duration);
    if (!st.ok()) return st.WithContext("--duration");
    st = ParseDuration(interval_text_, &options.interval);
    if (!st.ok()) return st.WithContext("--interval");
    options.top = top_;
    options.facts_for = facts_;
    options.count_device_reads = !no_device_reads_;
    options.cancel = &g_cancel;
    g_cancel.store(false);
    auto previous = std::signal(SIGINT, OnInterrupt);
    ObserveResult result;
    st = ObserveServer(dsn_, context.progress, options, &result);
    std::signal(SIGINT, previous);
    PGLAYOUT_RETURN_IF_ERROR(st);
    if (g_cancel.load()) {
      spdlog::warn("interrupted: the workload covers the first {}",
                   FormatDuration(std::round(result.rates.duration)));
    }
    *findings = DiagnoseLive(result);
    *workload = std::move(result.workload);
    if (!logs_.empty()) AddLogEvidence(findings);
    return Status::Ok();
  }

  // With --dsn, --from-log adds the server log's checkpoint messages to the
  // live diagnosis: they cover far more time than one observation.
  void AddLogEvidence(std::vector<std::string>* findings) const {
    CheckpointLogReport report;
    Status st = ReadCheckpointLogs(logs_, &report);
    if (!st.ok()) {
      spdlog::warn("{}", st.message());
      return;
    }
    for (const std::string& line :
         DiagnoseLog(report, LogReportToWorkload(report))) {
      findings->push_back("log: " + line);
    }
  }

  Status FromLogs(Workload* workload, std::vector<std::string>* findings) {
    CheckpointLogReport report;
    PGLAYOUT_RETURN_IF_ERROR(ReadCheckpointLogs(logs_, &report));
    *workload = LogReportToWorkload(report);
    *findings = DiagnoseLog(report, *workload);
    return Status::Ok();
  }

  Status FromSegments(Workload* workload, std::vector<std::string>* findings) {
    SegmentImportOptions options;
    PGLAYOUT_RETURN_IF_ERROR(ParseSchemaMap(schema_map_, &options));
    Status st = ParseSize(block_size_text_, &options.block_size);
    if (!st.ok()) return st.WithContext("--oracle-block-size");
    if (!separator_text_.empty()) {
      PGLAYOUT_RETURN_IF_ERROR(
          ParseSeparator(separator_text_, &options.separator));
    }
    SegmentImportReport report;
    PGLAYOUT_RETURN_IF_ERROR(
        ImportSegmentsFile(segments_, options, workload, &report));
    if (top_ > 0 && workload->relations.size() > static_cast<size_t>(top_)) {
      workload->relations.resize(top_);
    }
    *findings = DiagnoseSegments(report, *workload);
    return Status::Ok();
  }

  void Print(const Workload& workload,
             const std::vector<std::string>& findings) const {
    if (json_) {
      Json out{{"output", output_},
               {"diagnosis", findings},
               {"workload", ToJson(workload)}};
      std::cout << JsonText(out) << "\n";
      return;
    }
    std::cout << FormatDiagnosis(findings, workload, show_);
    std::cout << fmt::format("\nwrote {}\n", output_);
  }

  std::string dsn_;
  std::string duration_text_ = "5min";
  std::string interval_text_ = "10s";
  std::string output_ = "workload.toml";
  bool json_ = false;
  bool no_device_reads_ = false;
  int top_ = 0;
  int facts_ = 20;
  int show_ = 10;
  std::vector<std::string> logs_;
  std::string segments_;
  std::vector<std::string> schema_map_;
  std::string block_size_text_ = "8192";
  std::string separator_text_;
};

}  // namespace

PGLAYOUT_REGISTER_COMMAND(30, "observe",
                          "Capture a server's I/O workload (or import it from "
                          "logs or Oracle AWR) into workload.toml",
                          ObserveCommand)

}  // namespace pglayout::cli
