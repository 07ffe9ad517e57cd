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
#include "cli/help_format.h"
#include "cli/options.h"
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

constexpr char kFooter[] =
    R"(Sources: a live server (-d, -h, -p, -U or the PG* environment; read-only, any
role; Ctrl-C ends it early and keeps the samples), server logs (--from-log)
or Oracle segment statistics (--from-segments, docs/oracle-import.md).)";

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
    AddConnectionOptions(app, "Database to observe: a name, conninfo or URI",
                         "--dsn", &connection_);
    AddDurationOption(app, "--duration", &duration_s_,
                      "How long to observe (default 5min)", "s")
        ->group(kGroupAction);
    AddDurationOption(app, "--interval", &interval_s_,
                      "Time between samples (default 10s)", "s")
        ->group(kGroupAction);
    app->add_option("--top", top_,
                    "Write only the N hottest relations (0: all)")
        ->type_name("N")
        ->group(kGroupAction);
    app->add_option("--facts", facts_,
                    "Table facts of the N hottest tables (default 20)")
        ->type_name("N")
        ->group(kGroupAction);
    app->add_flag("--no-device-reads", no_device_reads_,
                  "Do not count the data devices' read requests")
        ->group(kGroupAction);
    app->add_option("--from-log", logs_,
                    "Parse these server logs instead of observing")
        ->type_name("FILE")
        ->group(kGroupInput);
    app->add_option("--from-segments", segments_,
                    "Import this CSV of Oracle segment statistics")
        ->type_name("FILE")
        ->group(kGroupInput);
    app->add_option("--schema-map", schema_map_,
                    "Oracle OWNER becomes schema NAME (repeatable)")
        ->type_name("OWNER=NAME")
        ->group(kGroupInput);
    app->add_option("--oracle-block-size", block_size_text_,
                    "Oracle db_block_size (default 8192)")
        ->type_name("SIZE")
        ->group(kGroupInput);
    app->add_option("--separator", separator_text_,
                    "Field separator: , ; | or tab (default: header)")
        ->type_name("CHAR")
        ->group(kGroupInput);
    app->add_option("-o,--output", output_,
                    "File to write (default workload.toml)")
        ->type_name("FILE")
        ->group(kGroupOutput);
    app->add_option("--show", show_,
                    "Relations in the printed hot list (default 10)")
        ->type_name("N")
        ->group(kGroupOutput);
    app->add_flag("--json", json_,
                  "Print the workload and the diagnosis as JSON")
        ->group(kGroupOutput);
    app->footer(kFooter);
  }

  Status Run(const CommandContext& context) override {
    PGLAYOUT_RETURN_IF_ERROR(CheckSources());
    Workload workload;
    std::vector<std::string> findings;
    if (!logs_.empty() && !Given(connection_)) {
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
  Status CheckSources() {
    PGLAYOUT_RETURN_IF_ERROR(ComposeConninfo(connection_, &dsn_));
    int sources = (logs_.empty() ? 0 : 1) + (segments_.empty() ? 0 : 1);
    if (sources > 1) {
      return UsageError("--from-log and --from-segments exclude each other");
    }
    if (!segments_.empty() && Given(connection_)) {
      return UsageError(
          "--dbname observes a live server; it cannot be combined with "
          "--from-segments");
    }
    if (segments_.empty() &&
        (!schema_map_.empty() || block_size_text_ != "8192" ||
         !separator_text_.empty())) {
      return UsageError(
          "--schema-map, --oracle-block-size and --separator apply to "
          "--from-segments");
    }
    return Status::Ok();
  }

  Status FromServer(const CommandContext& context, Workload* workload,
                    std::vector<std::string>* findings) {
    ObserveOptions options;
    options.duration = duration_s_;
    options.interval = interval_s_;
    options.top = top_;
    options.facts_for = facts_;
    options.count_device_reads = !no_device_reads_;
    options.cancel = &g_cancel;
    g_cancel.store(false);
    auto previous = std::signal(SIGINT, OnInterrupt);
    ObserveResult result;
    Status st = ObserveServer(dsn_, context.progress, options, &result);
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

  // With a live server, --from-log adds the server log's checkpoint messages to
  // the live diagnosis: they cover far more time than one observation.
  void AddLogEvidence(std::vector<std::string>* findings) const {
    CheckpointLogSummary report;
    Status st = ReadCheckpointLogs(logs_, &report);
    if (!st.ok()) {
      spdlog::warn("{}", st.message());
      return;
    }
    for (const std::string& line :
         DiagnoseLog(report, LogSummaryToWorkload(report))) {
      findings->push_back("log: " + line);
    }
  }

  Status FromLogs(Workload* workload, std::vector<std::string>* findings) {
    CheckpointLogSummary report;
    PGLAYOUT_RETURN_IF_ERROR(AsBadInput(ReadCheckpointLogs(logs_, &report)));
    *workload = LogSummaryToWorkload(report);
    *findings = DiagnoseLog(report, *workload);
    return Status::Ok();
  }

  Status FromSegments(Workload* workload, std::vector<std::string>* findings) {
    SegmentImportOptions options;
    PGLAYOUT_RETURN_IF_ERROR(ParseSchemaMap(schema_map_, &options));
    Status st = ParseSize(block_size_text_, &options.block_size);
    if (!st.ok()) return UsageError("--oracle-block-size: " + st.message());
    if (!separator_text_.empty()) {
      PGLAYOUT_RETURN_IF_ERROR(
          ParseSeparator(separator_text_, &options.separator));
    }
    SegmentImportSummary report;
    PGLAYOUT_RETURN_IF_ERROR(
        AsBadInput(ImportSegmentsFile(segments_, options, workload, &report)));
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

  ConnectionOptions connection_;
  std::string dsn_;  // composed from connection_
  double duration_s_ = 300;
  double interval_s_ = 10;
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
