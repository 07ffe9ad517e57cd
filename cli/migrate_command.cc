// pglayout migrate plan.toml: print the steps and their SQL (dry run), or
// execute them with --apply; --abort, --finalize and --status act on the
// journal.

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "cli/command.h"
#include "common/files.h"
#include "common/json.h"
#include "common/units.h"
#include "migrator/migrator.h"

namespace pglayout::cli {
namespace {

#ifdef PGLAYOUT_FAILPOINTS
// Tests name a point where the process must die as if by kill -9
// (the resume tests): PGLAYOUT_MIGRATE_FAILPOINT=copy-batch:3:before-commit.
// Only in builds configured with -DPGLAYOUT_FAILPOINTS=ON (cli/CMakeLists.txt).
void KillAtFailpoint(const std::string& name) {
  const char* wanted = std::getenv("PGLAYOUT_MIGRATE_FAILPOINT");
  if (wanted && name == wanted) {
    std::cerr << "failpoint " << name << ": killing pglayout" << std::endl;
    raise(SIGKILL);
  }
}
constexpr auto kFailpoint = KillAtFailpoint;
#else
constexpr std::nullptr_t kFailpoint = nullptr;
#endif

Json StepsJson(const std::vector<migrator::Step>& steps) {
  Json out = Json::array();
  for (const migrator::Step& s : steps) {
    out.push_back({{"key", s.key},
                   {"kind", migrator::StepKindName(s.kind)},
                   {"title", s.title},
                   {"note", s.note},
                   {"outside_transaction", s.outside_transaction},
                   {"sql", s.sql}});
  }
  return out;
}

class MigrateCommand : public Command {
 public:
  void Configure(CLI::App* app) override {
    app->add_option("plan", plan_path_,
                    "plan.toml from `pglayout plan` or "
                    "written by hand");
    app->add_option("--dsn", options_.conninfo,
                    "libpq connection string or URI of the target database "
                    "(default: PG* environment). Connect to the server "
                    "itself, not through a transaction-mode pooler: the run "
                    "holds session settings and an advisory lock. Keep the "
                    "password out of it: use PGPASSWORD, ~/.pgpass or "
                    "PGPASSFILE (one given here is hidden from ps once "
                    "parsed)");
    app->add_flag("--apply", options_.apply,
                  "Execute the steps (default: print them, change nothing)");
    app->add_flag("--resume", resume_,
                  "Resume the unfinished run of this plan (implies --apply; a "
                  "plain --apply resumes too)");
    app->add_flag("--abort", abort_,
                  "Roll back the unfinished run: drop shadow copies and "
                  "capture triggers, restore changed settings");
    app->add_flag("--finalize", finalize_,
                  "Drop the old copies kept after swaps, and restore what "
                  "--leave-raised left raised or a run deferred restoring "
                  "(waiting for a timed checkpoint to make room)");
    app->add_flag("--status", status_,
                  "Say where the runs stand: the unfinished run, a deferred "
                  "restore of max_wal_size (completed now if a timed "
                  "checkpoint has made room), settings left raised, old "
                  "copies; needs no plan");
    app->add_option("--max-rate", options_.max_rate_mbps,
                    "Copy at most this many MB/s (10^6 bytes), a hard cap "
                    "whatever the throttle; 0 = no limit");
    app->add_option("--throttle", throttle_text_,
                    "adaptive (default): pause between copy and replay "
                    "batches so that the database keeps --keep-pace of its "
                    "pace (write transactions/s while a batch runs against "
                    "the pauses around it; commits/s against the 5 s before "
                    "the copy if it mostly reads), and halve the copy's duty "
                    "at once when a checkpoint is requested or a replica "
                    "lags (10 s or 256 MB); off: copy flat out (up to "
                    "--max-rate)");
    app->add_option("--keep-pace", options_.throttle_limits.target_ratio,
                    "Share of the foreground's pace the adaptive throttle "
                    "keeps (default 0.9); lower copies faster")
        ->check([](const std::string& text) -> std::string {
          char* end = nullptr;
          double share = std::strtod(text.c_str(), &end);
          if (end != text.c_str() && *end == '\0' && share >= 0.5 &&
              share <= 0.99) {
            return "";
          }
          return "'" + text + "' is not a share between 0.5 and 0.99";
        });
    app->add_option("--batch-rows", options_.batch_rows,
                    "Rows per copy transaction (default 100000)")
        ->check(CLI::Range(int64_t{100}, int64_t{10000000}));
    app->add_option("--copy-order", copy_order_,
                    "blocks (default): copy ranges of heap blocks in disk "
                    "order (PostgreSQL 14+; 12 and 13 copy by key); key: "
                    "copy in key order through the key index, which reads "
                    "only live rows (a heap that is mostly dead space)")
        ->check(CLI::IsMember({"blocks", "key"}));
    app->add_option("--lock-timeout", options_.lock_timeout_ms,
                    "Milliseconds each lock attempt may wait before it is "
                    "retried with backoff")
        ->check(CLI::Range(1, 60000));
    app->add_option("--lock-deadline", options_.lock_deadline_s,
                    "Seconds to keep retrying a lock before giving up");
    app->add_option("--lock-idle-timeout", options_.lock_idle_timeout_s,
                    "Seconds a transaction holding a lock that production "
                    "waits for (the swap, an offline move) may sit idle "
                    "before the server ends it: a frozen client cannot keep "
                    "the table locked")
        ->check(CLI::Range(0.1, 3600.0));
    app->add_option("--old-xact-wait", options_.old_xact_wait_s,
                    "Seconds to wait before a swap for transactions older "
                    "than the copy to end (then stop, resumable)");
    app->add_flag("--standby-dirs-ready", options_.standby_dirs_ready,
                  "Each new tablespace's directory exists on every standby "
                  "that streams from this server (they replay CREATE "
                  "TABLESPACE with the same path; without it the run refuses "
                  "while standbys stream)");
    app->add_flag("--no-checkpoint-guard", no_guard_,
                  "Do not raise max_wal_size during the bulk copies");
    app->add_option("--max-wal-size", max_wal_size_text_,
                    "Upper bound for the checkpoint guard's max_wal_size "
                    "(e.g. 20GB)");
    app->add_option("--restore-wait", options_.restore_wait_s,
                    "Seconds to wait, at most, for the WAL since the last "
                    "checkpoint to fit the original max_wal_size, then "
                    "restore it anyway (expect one requested checkpoint). "
                    "Default: look while the workload's WAL rate is measured "
                    "(5 s), then defer the restore to the next --apply, "
                    "--status or --finalize after a timed checkpoint; "
                    "--finalize waits checkpoint_timeout x (1 + "
                    "checkpoint_completion_target) + 60 s");
    app->add_flag("--leave-raised", options_.leave_guard_raised,
                  "Do not restore max_wal_size at the end of the run (and do "
                  "not wait for room to): leave it raised, journaled, for "
                  "`--finalize` to restore");
    app->add_flag("--json", json_, "Print the result as JSON");
    app->footer(
        "Without --apply nothing is changed: the preflight runs and the "
        "ordered "
        "steps are\nprinted with their exact SQL. A run killed at any point "
        "resumes when started\nagain with the same plan. Exit code 2 when the "
        "preflight refuses the plan.");
  }

  Status Run(const CommandContext& context) override {
    PGLAYOUT_RETURN_IF_ERROR(
        migrator::ParseThrottleMode(throttle_text_, &options_.throttle));
    options_.copy_by_blocks = copy_order_ == "blocks";
    Plan plan;
    if (abort_ || finalize_ || status_) {
      if (int(abort_) + int(finalize_) + int(status_) > 1) {
        return Status::InvalidInput(
            "--abort, --finalize and --status exclude each other");
      }
      options_.mode = abort_      ? migrator::MigrateMode::kAbort
                      : finalize_ ? migrator::MigrateMode::kFinalize
                                  : migrator::MigrateMode::kStatus;
    } else {
      if (plan_path_.empty()) {
        return Status::InvalidInput(
            "a plan file is required (or --abort / --finalize / --status)");
      }
      PGLAYOUT_RETURN_IF_ERROR(ReadPlanFile(plan_path_, &plan));
    }
    if (resume_) options_.apply = true;
    options_.checkpoint_guard = !no_guard_;
    if (!max_wal_size_text_.empty()) {
      PGLAYOUT_RETURN_IF_ERROR(
          ParseSize(max_wal_size_text_, &options_.max_wal_size_cap));
    }
    options_.tool_version = PGLAYOUT_VERSION;
    options_.failpoint = kFailpoint;
    // Step messages as they happen, each flushed: a run killed later (or
    // whose output goes to a file, where stdout is block-buffered) keeps
    // the log of what it did. With --json they go to stderr as a log, and
    // stdout holds the one JSON document.
    options_.on_line = [json = json_](const std::string& line) {
      std::ostream& out = json ? std::cerr : std::cout;
      out << line << std::endl;
    };
    migrator::MigrateReport report;
    Status st = migrator::Migrate(plan, options_, context.progress, &report);
    Print(report);
    return st;
  }

 private:
  void Print(const migrator::MigrateReport& report) const {
    if (json_) {
      Json j = {{"apply", options_.apply},
                {"run_id", report.run_id},
                {"resumed", report.resumed},
                {"findings", Json::array()},
                {"steps", StepsJson(report.steps)},
                {"done", report.lines},
                {"checkpoints_timed", report.checkpoints_timed},
                {"checkpoints_requested", report.checkpoints_requested},
                {"settings", Json::array()}};
      for (const migrator::SettingStatus& s : report.settings) {
        j["settings"].push_back({{"run_id", s.run_id},
                                 {"name", s.name},
                                 {"state", s.state},
                                 {"original", s.original},
                                 {"raised", s.raised},
                                 {"since", s.since}});
      }
      for (const auto& f : report.findings)
        j["findings"].push_back(f.ToString());
      std::cout << JsonText(j) << "\n";
      return;
    }
    for (const auto& f : report.findings) {
      if (f.severity == migrator::Finding::Severity::kWarning) {
        std::cout << f.ToString() << "\n";
      }
    }
    if (!options_.apply && options_.mode == migrator::MigrateMode::kRun &&
        !report.steps.empty()) {
      std::cout << (report.resumed
                        ? fmt::format("Run {} is unfinished; --apply resumes "
                                      "it (finished steps are skipped).\n\n",
                                      report.run_id)
                        : std::string())
                << migrator::FormatSteps(report.steps)
                << "Dry run: nothing was changed. Add --apply to execute.\n";
    }
    // report.lines were printed as they happened (on_line).
  }

  std::string plan_path_;
  migrator::MigrateOptions options_;
  bool resume_ = false;
  bool abort_ = false;
  bool finalize_ = false;
  bool status_ = false;
  bool no_guard_ = false;
  bool json_ = false;
  std::string max_wal_size_text_;
  std::string throttle_text_ = "adaptive";
  std::string copy_order_ = "blocks";
};

}  // namespace

PGLAYOUT_REGISTER_COMMAND(50, "migrate",
                          "Execute a plan: tablespaces, moves and online hash "
                          "partitioning (dry run unless --apply)",
                          MigrateCommand)

}  // namespace pglayout::cli
