// pglayout report: one self-contained HTML page from any of the pipeline's
// files and the migration journal.

#include <fmt/chrono.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <ctime>
#include <iostream>

#include "cli/command.h"
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
    app->add_option("--volumes", volumes_path_,
                    "volumes.toml (from probe or written by hand)");
    app->add_option("--workload", workload_path_,
                    "workload.toml (from observe or written by hand)");
    app->add_option("--plan", plan_path_,
                    "plan.toml or plan.json (from plan; .json is read as "
                    "JSON, anything else as TOML)");
    app->add_option("--journal", journal_dsn_,
                    "libpq connection string of the migrated database, to "
                    "show the migration journal. Keep the password out of it: "
                    "use PGPASSWORD, ~/.pgpass or PGPASSFILE (one given "
                    "here is hidden from ps once parsed)");
    app->add_option("--after", after_path_,
                    "workload.toml observed after the migration: the page "
                    "holds the plan's forecast to it, volume by volume "
                    "(needs --volumes and --plan)");
    app->add_option("-o,--output", output_path_, "The HTML file to write")
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
        return Status::InvalidInput(
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
    if (journal_dsn_) {
      PGLAYOUT_RETURN_IF_ERROR(ReadJournal(*journal_dsn_, &journal, &input));
    }
    PGLAYOUT_RETURN_IF_ERROR(
        WriteTextFile(output_path_, report::RenderPage(input)));
    std::cout << output_path_ << "\n";
    return Status::Ok();
  }

 private:
  // An input file that is missing or unreadable is bad usage, like one
  // that does not parse: exit code 2, as `pglayout check` does.
  static Status AsBadInput(const Status& status) {
    if (status.ok() || status.IsInvalidInput()) return status;
    return Status::InvalidInput(status.message());
  }

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
  std::optional<std::string> journal_dsn_;
  std::string after_path_;
  std::string output_path_;
};

}  // namespace

PGLAYOUT_REGISTER_COMMAND(60, "report",
                          "Write one self-contained HTML page showing the "
                          "volumes, workload, plan and migration",
                          ReportCommand)

}  // namespace pglayout::cli
