// pglayout report: one self-contained HTML page from any of the pipeline's
// files and the migration journal.

#include <fmt/chrono.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <ctime>
#include <iostream>

#include "cli/command.h"
#include "cli/help_format.h"
#include "cli/options.h"
#include "common/files.h"
#include "pg/sql.h"
#include "planner/plan_builder.h"
#include "report/inputs.h"
#include "report/journal_sql.h"
#include "report/report.h"

namespace pglayout::cli {
namespace {

// "2024-05-01 12:34 UTC": minutes are precise enough for a change request.
std::string NowUtc() {
  std::time_t now =
      std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  return fmt::format("{:%Y-%m-%d %H:%M} UTC", fmt::gmtime(now));
}

class ReportCommand : public Command {
 public:
  void Configure(CLI::App* app) override {
    AddConnectionOptions(app, "Show the migration journal of this database",
                         "--journal", &connection_);
    app->add_option("--volumes", volumes_path_,
                    "volumes.toml (from probe or written by hand)")
        ->type_name("FILE")
        ->group(kGroupInput);
    app->add_option("--workload", workload_path_,
                    "workload.toml (from observe or written by hand)")
        ->type_name("FILE")
        ->group(kGroupInput);
    app->add_option("--plan", plan_path_,
                    "plan.toml or plan.json (from plan; .json is read as "
                    "JSON, anything else as TOML)")
        ->type_name("FILE")
        ->group(kGroupInput);
    app->add_option("--after", after_path_,
                    "workload.toml observed after the migration: the plan's "
                    "forecast against it (needs --volumes, --plan)")
        ->type_name("FILE")
        ->group(kGroupInput);
    app->add_option("-o,--output", output_path_, "The HTML file to write")
        ->type_name("FILE")
        ->group(kGroupOutput)
        ->required();
    app->footer(
        "Any subset of inputs; each section appears when its input is given.\n"
        "The page is self-contained (inline SVG and CSS, no script, no "
        "network).");
  }

  Status Run(const CommandContext&) override {
    report::ReportInput input;
    input.generated_at = NowUtc();
    input.version = PGLAYOUT_VERSION;
    VolumeSet volumes;
    Workload workload;
    Plan plan;
    report::PlanDetails plan_details;
    report::MigrationJournal journal;
    if (!volumes_path_.empty()) {
      PGLAYOUT_RETURN_IF_ERROR(
          AsBadInput(ReadVolumesFile(volumes_path_, &volumes)));
      input.volumes = &volumes;
      input.volumes_source = volumes_path_;
    }
    if (!workload_path_.empty()) {
      PGLAYOUT_RETURN_IF_ERROR(
          AsBadInput(ReadWorkloadFile(workload_path_, &workload)));
      input.workload = &workload;
      input.workload_source = workload_path_;
    }
    if (!plan_path_.empty()) {
      PGLAYOUT_RETURN_IF_ERROR(AsBadInput(
          report::ReadPlanAnyFormat(plan_path_, &plan, &plan_details)));
      input.plan = &plan;
      input.plan_details = &plan_details;
      input.plan_source = plan_path_;
    }
    std::vector<ForecastEntry> measured_after;
    if (!after_path_.empty()) {
      if (volumes_path_.empty() || plan_path_.empty()) {
        return UsageError(
            "--after " + after_path_ +
            " needs --volumes and --plan: the forecast to compare with and "
            "the volumes to place the observed load on");
      }
      Workload after;
      PGLAYOUT_RETURN_IF_ERROR(
          AsBadInput(ReadWorkloadFile(after_path_, &after)));
      PGLAYOUT_RETURN_IF_ERROR(
          AsBadInput(planner::LoadWhereItIs(volumes, after, &measured_after)
                         .WithContext(after_path_)));
      input.measured_after = &measured_after;
      input.after_source = after_path_;
    }
    if (Given(connection_)) {
      std::string conninfo;
      PGLAYOUT_RETURN_IF_ERROR(ComposeConninfo(connection_, &conninfo));
      PGLAYOUT_RETURN_IF_ERROR(ReadJournal(conninfo, &journal, &input));
    }
    PGLAYOUT_RETURN_IF_ERROR(
        WriteTextFile(output_path_, report::RenderPage(input)));
    std::cout << output_path_ << "\n";
    return Status::Ok();
  }

 private:
  // A database that cannot be reached is an error; one without a readable
  // journal still gets its report, with the reason in the migration
  // section and on stderr.
  static Status ReadJournal(const std::string& dsn,
                            report::MigrationJournal* journal,
                            report::ReportInput* input) {
    std::unique_ptr<SqlSession> session;
    PGLAYOUT_RETURN_IF_ERROR(OpenPgSession(dsn, "pglayout report", &session));
    input->journal_source = session->Describe();
    Status st = report::MakeSqlJournalSource(session.get())->Read(journal);
    if (st.ok()) {
      input->journal = journal;
      return Status::Ok();
    }
    if (st.code() != Status::Code::kNotFound) return st;
    spdlog::warn("{}", st.message());
    input->journal_problem = st.message();
    return Status::Ok();
  }

  std::string volumes_path_;
  std::string workload_path_;
  std::string plan_path_;
  ConnectionOptions connection_;
  std::string after_path_;
  std::string output_path_;
};

}  // namespace

PGLAYOUT_REGISTER_COMMAND(60, "report",
                          "Write one self-contained HTML page showing the "
                          "volumes, workload, plan and migration",
                          ReportCommand)

}  // namespace pglayout::cli
