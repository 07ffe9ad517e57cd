// pglayout migrate plan.toml: print the steps and their SQL (dry run), or
// execute them with --apply; --abort, --finalize and --status act on the
// journal.

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <iostream>

#include "cli/command.h"
#include "cli/help_format.h"
#include "cli/options.h"
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
                    "plan.toml from `pglayout plan` or written by hand "
                    "(not needed by --abort, --finalize, --status)")
        ->type_name("PLAN");
    AddConnectionOptions(app, "Target database: a name, conninfo or URI",
                         "--dsn", &connection_);
    app->add_flag("--apply", options_.apply,
                  "Execute the steps (default: print them, change nothing)")
        ->group(kGroupAction);
    app->add_flag("--resume", resume_,
                  "Resume the unfinished run of this plan (implies --apply)")
        ->group(kGroupAction);
    app->add_flag("--abort", abort_,
                  "Roll back the unfinished run: drop shadow copies and "
                  "capture triggers, restore settings")
        ->group(kGroupAction);
    app->add_flag("--finalize", finalize_,
                  "Drop the old copies kept after swaps; restore settings "
                  "left raised or deferred")
        ->group(kGroupAction);
    app->add_flag("--status", status_,
                  "Say where the runs stand (unfinished run, settings, old "
                  "copies); needs no plan")
        ->group(kGroupAction);
    app->add_option("--max-rate", options_.max_rate_mbps,
                    "Copy at most this many MB/s, whatever the throttle "
                    "(default 0: no limit)")
        ->type_name("MBPS")
        ->group(kGroupThrottle);
    app->add_option("--throttle", throttle_text_,
                    "adaptive (default): pause the copy to keep the "
                    "database's pace; off: copy flat out")
        ->type_name("adaptive|off")
        ->group(kGroupThrottle);
    app->add_option("--keep-pace", options_.throttle_limits.target_ratio,
                    "Share of the foreground's pace the adaptive throttle "
                    "keeps, 0.5 to 0.99 (default 0.9)")
        ->type_name("SHARE")
        ->group(kGroupThrottle)
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
                    "Rows per copy transaction, 100 to 10000000 (default "
                    "100000)")
        ->type_name("N")
        ->group(kGroupThrottle)
        ->check(CLI::Range(int64_t{100}, int64_t{10000000}));
    app->add_option("--copy-order", copy_order_,
                    "blocks (default): heap blocks in disk order (PostgreSQL "
                    "14+); key: key order, live rows only")
        ->type_name("blocks|key")
        ->group(kGroupThrottle)
        ->check(CLI::IsMember({"blocks", "key"}));
    app->add_option("--capture", capture_text_,
                    "auto (default): logical decoding where the server "
                    "allows it, else trigger; trigger; logical")
        ->type_name("auto|trigger|logical")
        ->group(kGroupThrottle);
    AddDurationOption(app, "--lock-timeout", &lock_timeout_s_,
                      "How long each lock attempt waits before a retry, up to "
                      "1min (default 200ms; bare number: ms)",
                      "ms", 0.001, 60)
        ->group(kGroupSafety);
    AddDurationOption(app, "--lock-deadline", &options_.lock_deadline_s,
                      "Give up retrying a lock after this long (default 2min)",
                      "s")
        ->group(kGroupSafety);
    AddDurationOption(app, "--lock-idle-timeout", &options_.lock_idle_timeout_s,
                      "How long a transaction holding a lock production waits "
                      "for may sit idle (default 10s)",
                      "s", 0.1, 3600)
        ->group(kGroupSafety);
    AddDurationOption(app, "--old-xact-wait", &options_.old_xact_wait_s,
                      "Wait this long before a swap for older transactions to "
                      "end, then stop (default 5min)",
                      "s")
        ->group(kGroupSafety);
    verify_option_ =
        AddWordOption(app, "--verify", &verify_text_, {"full", "off"},
                      "full (default): compare each online copy with its "
                      "table before the swap; off: skip that (an unverified "
                      "run)")
            ->group(kGroupSafety);
    app->add_flag("--standby-dirs-ready", options_.standby_dirs_ready,
                  "Each new tablespace's directory exists on every streaming "
                  "standby")
        ->group(kGroupSafety);
    app->add_flag("--no-checkpoint-guard", no_guard_,
                  "Do not raise max_wal_size during the bulk copies")
        ->group(kGroupSafety);
    app->add_option("--max-wal-size", max_wal_size_text_,
                    "Upper bound for the checkpoint guard's max_wal_size "
                    "(e.g. 20GB)")
        ->type_name("SIZE")
        ->group(kGroupSafety);
    AddDurationOption(app, "--restore-wait", &options_.restore_wait_s,
                      "Wait at most this long to restore max_wal_size "
                      "(default: defer it to a later run)",
                      "s")
        ->group(kGroupSafety);
    app->add_flag("--leave-raised", options_.leave_guard_raised,
                  "Leave max_wal_size raised at the end, for --finalize to "
                  "restore")
        ->group(kGroupSafety);
    app->add_flag("--json", json_, "Print the result as JSON")
        ->group(kGroupOutput);
    app->footer(
        "Without --apply nothing is changed: the preflight runs and the "
        "steps are printed\nwith their exact SQL. A run killed at any point "
        "resumes when started again with\nthe same plan. Exit status 2 when "
        "the preflight refuses the plan.");
  }

  Status Run(const CommandContext& context) override {
    Status parsed =
        migrator::ParseThrottleMode(throttle_text_, &options_.throttle);
    if (!parsed.ok()) return UsageError(parsed.message());
    PGLAYOUT_RETURN_IF_ERROR(ComposeConninfo(connection_, &options_.conninfo));
    options_.lock_timeout_ms =
        static_cast<int>(std::lround(lock_timeout_s_ * 1000));
    options_.copy_by_blocks = copy_order_ == "blocks";
    parsed = migrator::ParseCaptureMode(capture_text_, &options_.capture);
    if (!parsed.ok()) return UsageError(parsed.message());
    // Unset when not given: a resumed run keeps its own.
    if (verify_option_->count() > 0) {
      options_.verify = verify_text_ == "off" ? migrator::VerifyMode::kOff
                                              : migrator::VerifyMode::kFull;
    }
    Plan plan;
    if (abort_ || finalize_ || status_) {
      if (int(abort_) + int(finalize_) + int(status_) > 1) {
        return UsageError(
            "--abort, --finalize and --status exclude each other");
      }
      options_.mode = abort_      ? migrator::MigrateMode::kAbort
                      : finalize_ ? migrator::MigrateMode::kFinalize
                                  : migrator::MigrateMode::kStatus;
    } else {
      if (plan_path_.empty()) {
        return UsageError(
            "a plan file is required (or --abort / --finalize / --status)");
      }
      PGLAYOUT_RETURN_IF_ERROR(AsBadInput(ReadPlanFile(plan_path_, &plan)));
    }
    if (resume_) options_.apply = true;
    options_.checkpoint_guard = !no_guard_;
    if (!max_wal_size_text_.empty()) {
      Status st = ParseSize(max_wal_size_text_, &options_.max_wal_size_cap);
      if (!st.ok()) return UsageError("--max-wal-size: " + st.message());
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
    migrator::MigrateResult report;
    Status st = migrator::Migrate(plan, options_, context.progress, &report);
    Print(report);
    return st;
  }

 private:
  void Print(const migrator::MigrateResult& report) const {
    if (json_) {
      Json j = {
          {"apply", options_.apply},
          {"run_id", report.run_id},
          {"resumed", report.resumed},
          {"findings", Json::array()},
          {"steps", StepsJson(report.steps)},
          {"done", report.lines},
          {"checkpoints_timed", report.checkpoints_timed},
          {"checkpoints_requested", report.checkpoints_requested},
          {"verify", report.verify.empty() ? Json() : Json(report.verify)},
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
  std::string capture_text_ = "auto";
  std::string verify_text_ = "full";
  CLI::Option* verify_option_ = nullptr;
  ConnectionOptions connection_;
  double lock_timeout_s_ = 0.2;
};

}  // namespace

PGLAYOUT_REGISTER_COMMAND(50, "migrate",
                          "Execute a plan: tablespaces, moves and online hash "
                          "partitioning (dry run unless --apply)",
                          MigrateCommand)

}  // namespace pglayout::cli
