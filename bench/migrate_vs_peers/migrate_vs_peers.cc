// Benchmark: `pglayout migrate` (an online move with and without the
// throttle, a conversion to hash partitions) against pg_repack, ALTER TABLE
// ... SET TABLESPACE and INSERT ... SELECT on pgbench_accounts, each on a
// fresh copy of the database on a throwaway PostgreSQL 15 server under a
// concurrent pgbench. Prints elapsed time, checkpoints, WAL and pgbench's
// TPS against its baseline, and the performance targets as met or missed;
// asserts nothing. Methods, options, figures: bench/migrate_vs_peers/README.md.

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "common/files.h"
#include "common/model.h"
#include "common/status.h"
#include "pg/sql.h"
#include "testing/pg_cluster.h"

namespace pglayout {
namespace {

constexpr char kTemplateDb[] = "bench_template";
constexpr char kRunDb[] = "bench_run";
constexpr int kPartitions = 4;
constexpr char kMoveTablespace[] = "bench_ts0";
// The server's checkpoint settings. At max_wal_size = 1GB and
// checkpoint_timeout = 5min, pgbench alone at this scale writes more WAL
// per cycle (mostly full-page images of randomly updated pages) than 1GB /
// 1.9 and requests checkpoints by itself, whatever runs beside it; these
// keep the baseline clean (method "none" shows it) so that a requested
// checkpoint is the method's doing.
constexpr char kMaxWalSize[] = "4GB";
constexpr char kCheckpointTimeout[] = "2min";
// WAL segments kept for reuse (min_wal_size) and made before the first
// method: a server in steady state renames old segments, but one fresh
// from pgbench -i has about 1.2GB of them and the first method to write
// more had to create and zero-fill the rest, which a method run later
// found ready.
constexpr char kMinWalSize[] = "4GB";
constexpr int kReadySegments = 256;  // 4GB of 16MB segments

struct Config {
  int scale = 100;
  int clients = 4;
  int jobs = 2;
  double baseline_s = 30;
  double warmup_s = 5;
  // Counters are read this long after a method ends: a requested
  // checkpoint follows its cause by a few seconds (the next WAL segment).
  double tail_s = 15;
  double idle_s = 150;    // method "none"
  double capture_s = 60;  // method "capture"
  std::string pglayout = PGLAYOUT_BINARY;
  std::vector<std::string> pglayout_extra;  // forwarded to pglayout migrate
  std::vector<std::string> methods = {"none",   "partition", "partition-off",
                                      "move",   "move-off",  "move-unverified",
                                      "repack", "alter",     "insert"};
};

// Unix time in seconds: pgbench --progress-timestamp prints the same clock.
struct TpsPoint {
  double at = 0;  // end of the interval, Unix time
  double tps = 0;
};

struct Result {
  std::string method;
  std::string label;
  double elapsed_s = 0;  // the work, see README
  double total_s = 0;    // the command end to end
  int64_t requested = 0;
  int64_t timed = 0;
  int64_t baseline_requested = 0;
  double baseline_wal_mbps = 0;  // pgbench alone
  double wal_mb = 0;             // written from start to end
  double baseline_tps = 0;
  double tps = 0;
  int aborted_clients = 0;
  // pglayout: when each phase of the step began (the journal's phase), and
  // the foreground's TPS ratio over each.
  struct Phase {
    std::string name;
    double from = 0, to = 0;
    double ratio = 0;
  };
  std::vector<Phase> phases;
  std::string check;  // result verification
  std::string error;  // non-empty when the method failed
  // pgbench's progress over the whole run and when the method started:
  // the series of method "none" is the control of the others.
  std::vector<TpsPoint> points;
  double start_at = 0;
  double ratio() const { return baseline_tps > 0 ? tps / baseline_tps : 0; }
};

// Unix time in seconds: pgbench --progress-timestamp prints the same clock.
double Now() {
  return std::chrono::duration<double>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void SleepFor(double seconds) {
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

std::string Conninfo(const PgCluster& pg, const std::string& db) {
  std::string c = pg.conninfo();
  const std::string from = "dbname=postgres";
  size_t at = c.find(from);
  if (at == std::string::npos) return c + " dbname=" + db;
  return c.replace(at, from.size(), "dbname=" + db);
}

Status Connect(const PgCluster& pg, const std::string& db,
               std::unique_ptr<SqlSession>* session) {
  return OpenPgSessionAsConfigured(Conninfo(pg, db), "migrate_vs_peers",
                                   session);
}

Status Value(SqlSession* session, const std::string& sql, std::string* out) {
  SqlValue v;
  PGLAYOUT_RETURN_IF_ERROR(QueryValue(session, sql, {}, &v));
  *out = v.value_or("");
  return Status::Ok();
}

// Bytes of WAL written since the server started (an LSN as a number).
Status WalPosition(SqlSession* admin, double* bytes) {
  std::string v;
  PGLAYOUT_RETURN_IF_ERROR(Value(
      admin, "SELECT pg_catalog.pg_current_wal_lsn() - '0/0'::pg_lsn", &v));
  *bytes = std::strtod(v.c_str(), nullptr);
  return Status::Ok();
}

// ------------------------------------------------------------ pgbench --

// "progress: 1718000000.123 s, 1234.5 tps, lat ..." (with
// --progress-timestamp), one line per second.
std::vector<TpsPoint> ParseProgress(const std::string& output) {
  std::vector<TpsPoint> points;
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    TpsPoint p;
    if (std::sscanf(line.c_str(), "progress: %lf s, %lf tps", &p.at, &p.tps) ==
        2) {
      points.push_back(p);
    }
  }
  return points;
}

// Mean TPS over [from, to]: every progress interval weighted by its
// overlap with the window.
double WindowTps(const std::vector<TpsPoint>& points, double from, double to) {
  double transactions = 0, seconds = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    double start = i > 0 ? points[i - 1].at : points[i].at - 1;
    double overlap = std::min(points[i].at, to) - std::max(start, from);
    if (overlap <= 0) continue;
    transactions += points[i].tps * overlap;
    seconds += overlap;
  }
  return seconds > 0 ? transactions / seconds : 0;
}

// The control of a TPS ratio: pgbench's pace in the run of method "none"
// (pgbench alone, started, warmed up and baselined the same way, right
// after the same CHECKPOINT) over the same seconds after the method's
// start, against that run's own baseline. pgbench's pace drifts through
// the checkpoint cycle by itself (full-page images are densest just after
// a checkpoint, when the baseline is taken); dividing a method's ratio by
// this leaves what the method did. 0 when "none" did not run that long.
double ControlRatio(const Result& none, double from_s, double to_s) {
  if (none.baseline_tps <= 0 || to_s > none.elapsed_s + 1) return 0;
  return WindowTps(none.points, none.start_at + from_s, none.start_at + to_s) /
         none.baseline_tps;
}

// A TPS ratio with its control (ControlRatio; 0 when there is none).
struct Paced {
  double raw = 0, control = 0;
  // The ratio against the control, or the raw one without a control.
  double value() const { return control > 0 ? raw / control : raw; }
  // "0.71 (raw 0.70 / none's 0.99)", or "0.70 (raw: no control)".
  std::string Text() const {
    return control > 0 ? fmt::format("{:.2f} (raw {:.2f} / none's {:.2f})",
                                     value(), raw, control)
                       : fmt::format("{:.2f} (raw: no control)", raw);
  }
};

int AbortedClients(const std::string& output) {
  int n = 0;
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("pgbench: error: client ", 0) == 0 &&
        line.find(" aborted") != std::string::npos) {
      ++n;
    }
  }
  return n;
}

// ------------------------------------------------------------ methods --

std::string TablespaceName(int i) { return fmt::format("bench_ts{}", i); }

Status WritePlan(PgCluster* pg, const std::string& method,
                 const std::vector<std::string>& ts_paths, std::string* path) {
  Plan plan;
  for (int i = 0; i < kPartitions; ++i) {
    TablespaceSpec ts;
    ts.name = TablespaceName(i);
    ts.path = ts_paths[i];
    ts.volume = "vda";
    plan.tablespaces.push_back(ts);
  }
  Placement p;
  p.relation = "public.pgbench_accounts";
  if (method == "partition" || method == "partition-off") {
    p.strategy = Strategy::kHashPartition;
    for (int i = 0; i < kPartitions; ++i) {
      p.tablespaces.push_back(TablespaceName(i));
    }
    p.partitions = kPartitions;
    p.key = {"aid"};
    p.reason = "bench: online conversion to 4 hash partitions";
  } else {
    p.strategy = Strategy::kMove;
    p.tablespaces = {kMoveTablespace};
    p.reason = "bench: online move";
  }
  plan.placements.push_back(p);
  *path = pg->root_dir() + "/plan-" + method + ".toml";
  return WriteTextFile(*path, PlanToToml(plan));
}

// The lines of pglayout migrate's output worth keeping in the bench log.
void EchoMigrateOutput(const std::string& output) {
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    // The guard's once-a-second progress while it waits; the outcome is in
    // the "restored" lines.
    if (line.find("waiting for a timed checkpoint") != std::string::npos) {
      continue;
    }
    for (const char* word :
         {"copied ", "built ", "verified ", "swapped", "throttle", "checkpoint",
          "restored ", "rror", "refus"}) {
      if (line.find(word) != std::string::npos && line.size() < 400) {
        fmt::print(stderr, "    | {}\n", line);
        break;
      }
    }
  }
}

// What a method's phases are read from, 4 times a second: at most one row
// of (phase, when it began in Unix time); no row or a NULL phase while no
// phase is known.
//
// pglayout: its step's phase in the journal, and "verify" within
// "catchup" (the journal does not split them) while the session the
// verification opens for the copy's side is connected: the migrator names
// its sessions pglayout-migrate/run<N>/<role> in application_name. The
// journal's tables do not exist until the run starts.
constexpr char kPglayoutPhaseSql[] =
    "SELECT CASE WHEN s.phase = 'catchup' AND EXISTS (SELECT 1 FROM "
    "pg_catalog.pg_stat_activity a WHERE a.application_name LIKE "
    "'pglayout-migrate/run%/verify') THEN 'verify' ELSE s.phase END, "
    "extract(epoch FROM clock_timestamp()) FROM pglayout.step s WHERE "
    "s.step_key LIKE 'move:%' OR s.step_key LIKE 'partition:%' ORDER BY "
    "s.step_no DESC LIMIT 1";
// pg_repack: the statement it is running, from that statement's start:
// its copy, its index builds, or "other" (see NameRepackPhases).
constexpr char kRepackPhaseSql[] =
    "SELECT CASE WHEN query LIKE 'INSERT INTO repack.table%' THEN 'copy' "
    "WHEN query LIKE 'CREATE%INDEX%' THEN 'indexes' ELSE 'other' END, "
    "extract(epoch FROM query_start) FROM pg_catalog.pg_stat_activity WHERE "
    "application_name = 'pg_repack' AND state = 'active' ORDER BY 1 LIMIT 1";

// pg_repack's statements other than its copy and index builds: before the
// copy they are its set-up (left to "before"), after the last index build
// its log apply, swap, drop and ANALYZE ("swap"), and in between a
// moment's bookkeeping that stays with the phase before it.
void NameRepackPhases(std::vector<Result::Phase>* seen) {
  size_t last_index = seen->size();
  for (size_t i = 0; i < seen->size(); ++i) {
    if ((*seen)[i].name == "indexes") last_index = i;
  }
  std::vector<Result::Phase> named;
  for (size_t i = 0; i < seen->size(); ++i) {
    Result::Phase p = (*seen)[i];
    if (p.name == "other") {
      if (last_index < seen->size() && i > last_index) {
        p.name = "swap";
      } else {
        continue;
      }
    }
    if (named.empty() || named.back().name != p.name) named.push_back(p);
  }
  *seen = named;
}

// Polls |sql| (see kPglayoutPhaseSql) on its own session while a method
// runs, recording when each phase began.
class PhaseWatcher {
 public:
  using Renamer = void (*)(std::vector<Result::Phase>*);

  // |rename|, when given, renames and merges the phases seen before Stop
  // returns them.
  PhaseWatcher(const PgCluster& pg, const std::string& db, std::string sql,
               Renamer rename = nullptr)
      : sql_(std::move(sql)), rename_(rename) {
    if (!Connect(pg, db, &session_).ok()) return;
    thread_ = std::thread([this]() { Watch(); });
  }
  ~PhaseWatcher() { Halt(); }

  // Stops polling; the phases seen before |end| (the work's end: the
  // step's later phases are bookkeeping), the last ending there.
  std::vector<Result::Phase> Stop(double end) {
    Halt();
    std::erase_if(seen_,
                  [end](const Result::Phase& p) { return p.from >= end; });
    if (rename_) rename_(&seen_);
    for (size_t i = 0; i < seen_.size(); ++i) {
      seen_[i].to = i + 1 < seen_.size() ? seen_[i + 1].from : end;
    }
    return seen_;
  }

 private:
  void Halt() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

  void Watch() {
    while (!stop_) {
      SqlResult r;
      if (session_->Execute(sql_, {}, &r).ok() && !r.rows.empty() &&
          r.rows[0].size() == 2 && r.rows[0][0] && r.rows[0][1]) {
        const std::string& phase = *r.rows[0][0];
        if (seen_.empty() || seen_.back().name != phase) {
          seen_.push_back({phase, std::strtod(r.rows[0][1]->c_str(), nullptr)});
        }
      }
      SleepFor(0.25);
    }
  }

  std::string sql_;
  Renamer rename_;
  std::unique_ptr<SqlSession> session_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::vector<Result::Phase> seen_;
};

class Bench {
 public:
  explicit Bench(Config config) : config_(std::move(config)) {}

  Status Setup() {
    PgClusterOptions options;
    // See kMaxWalSize: settings at which pgbench alone requests no
    // checkpoint, while an unguarded bulk copy still would.
    options.settings = {{"max_wal_size", kMaxWalSize},
                        {"min_wal_size", kMinWalSize},
                        {"checkpoint_timeout", kCheckpointTimeout},
                        {"log_checkpoints", "on"}};
    // Every method at the WAL level logical decoding needs, so that the
    // two captures pay the same WAL.
    options.settings["wal_level"] = "logical";
    PGLAYOUT_RETURN_IF_ERROR(PgCluster::Start(PgVersion::k15, options, &pg_));
    PGLAYOUT_RETURN_IF_ERROR(pg_->Connect(&admin_));
    for (int i = 0; i < kPartitions; ++i) {
      std::string path;
      PGLAYOUT_RETURN_IF_ERROR(pg_->MakeDirectory(TablespaceName(i), &path));
      ts_paths_.push_back(path);
      PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(
          admin_.get(), fmt::format("CREATE TABLESPACE {} LOCATION {}",
                                    TablespaceName(i), QuoteLiteral(path))));
    }
    double t = Now();
    PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(
        admin_.get(), fmt::format("CREATE DATABASE {}", kTemplateDb)));
    std::string out;
    PGLAYOUT_RETURN_IF_ERROR(
        pg_->RunClient({"pgbench", "-i", "-q", "-s",
                        std::to_string(config_.scale), kTemplateDb},
                       &out));
    std::unique_ptr<SqlSession> db;
    PGLAYOUT_RETURN_IF_ERROR(Connect(*pg_, kTemplateDb, &db));
    PGLAYOUT_RETURN_IF_ERROR(
        ExecuteSql(db.get(), "CREATE EXTENSION pg_repack"));
    PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(db.get(), "VACUUM ANALYZE"));
    PGLAYOUT_RETURN_IF_ERROR(Value(
        db.get(),
        "SELECT pg_size_pretty(pg_total_relation_size('pgbench_accounts'))",
        &table_size_));
    PGLAYOUT_RETURN_IF_ERROR(
        Value(db.get(),
              "SELECT extversion FROM pg_extension WHERE extname = "
              "'pg_repack'",
              &repack_version_));
    db.reset();
    PGLAYOUT_RETURN_IF_ERROR(MakeWalSegments());
    fmt::print(stderr,
               "PostgreSQL 15 on port {}; pgbench scale {} "
               "(pgbench_accounts {} with its index) in {:.0f} s\n",
               pg_->port(), config_.scale, table_size_, Now() - t);
    return Status::Ok();
  }

  // Switches to a new segment kReadySegments times (each switch needs a
  // record to switch after), then checkpoints: min_wal_size keeps them all
  // for reuse.
  Status MakeWalSegments() {
    PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(
        admin_.get(),
        fmt::format("DO $$ BEGIN FOR i IN 1..{} LOOP PERFORM "
                    "pg_logical_emit_message(false, 'bench', 'segment'); "
                    "PERFORM pg_switch_wal(); END LOOP; END $$",
                    kReadySegments)));
    return ExecuteSql(admin_.get(), "CHECKPOINT");
  }

  void RunAll() {
    for (const std::string& method : config_.methods) {
      Result r;
      r.method = method;
      r.label = Label(method);
      fmt::print(stderr, "== {}\n", r.label);
      Status st = RunOne(method, &r);
      if (!st.ok()) {
        r.error = st.ToString();
        fmt::print(stderr, "   FAILED: {}\n", r.error);
        // Never let a failed run's raised max_wal_size leak into the next.
        (void)RunPglayout({"--abort"}, nullptr);
      }
      results_.push_back(r);
    }
  }

  void Print() const;
  void PrintTargets() const;
  void PrintTimeTarget(const std::string& label, const Result& ours,
                       const Result& repack, double target,
                       bool pace_too) const;

 private:
  static std::string Label(const std::string& method) {
    if (method == "none") return "none (pgbench alone)";
    if (method == "capture") return "the move's capture trigger alone";
    if (method == "capture-logical") return "the move's logical decoding alone";
    if (method == "capture-repack") return "pg_repack's capture trigger alone";
    if (method == "move-logical") return "pglayout online move, logical";
    if (method == "move-logical-off")
      return "pglayout move logical, throttle off";
    if (method == "move-logical-unverified") {
      return "move logical, throttle+verify off";
    }
    if (method == "partition") return "pglayout online 4 hash partitions";
    if (method == "partition-off") {
      return "pglayout hash x4, throttle off";
    }
    if (method == "move") return "pglayout online move";
    if (method == "move-off") return "pglayout online move, throttle off";
    // At most 36 characters: the table's first column.
    if (method == "move-unverified")
      return "pglayout move, throttle+verify off";
    if (method == "repack") return "pg_repack --tablespace --moveidx";
    if (method == "alter") return "ALTER TABLE/INDEX SET TABLESPACE";
    if (method == "insert") return "offline INSERT INTO part SELECT";
    return method;
  }

  // A fresh copy of the template (a file copy: no WAL, two checkpoints),
  // and the server's max_wal_size back at its default.
  Status FreshCopy() {
    PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(
        admin_.get(),
        fmt::format("DROP DATABASE IF EXISTS {} WITH (FORCE)", kRunDb)));
    PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(
        admin_.get(),
        fmt::format("CREATE DATABASE {} TEMPLATE {} STRATEGY FILE_COPY", kRunDb,
                    kTemplateDb)));
    std::string mws;
    PGLAYOUT_RETURN_IF_ERROR(
        Value(admin_.get(), "SELECT current_setting('max_wal_size')", &mws));
    if (mws != kMaxWalSize) {
      fmt::print(stderr, "   max_wal_size is {}: resetting it to the default\n",
                 mws);
      PGLAYOUT_RETURN_IF_ERROR(
          ExecuteSql(admin_.get(), "ALTER SYSTEM RESET max_wal_size"));
      PGLAYOUT_RETURN_IF_ERROR(
          ExecuteSql(admin_.get(), "SELECT pg_reload_conf()"));
    }
    PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(admin_.get(), "CHECKPOINT"));
    // The file copy leaves up to its whole size dirty in the OS page cache
    // (1.2 GB seen), and writing it back while pgbench runs took a tenth
    // off the baseline or off the method, whichever it fell in. Every
    // method starts with none.
    ::sync();
    return Status::Ok();
  }

  Status Prepare(const std::string& method, SqlSession* db) {
    if (method != "insert") return Status::Ok();
    PGLAYOUT_RETURN_IF_ERROR(
        ExecuteSql(db,
                   "CREATE TABLE pgbench_accounts_part (LIKE pgbench_accounts) "
                   "PARTITION BY HASH (aid)"));
    for (int r = 0; r < kPartitions; ++r) {
      PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(
          db, fmt::format("CREATE TABLE pgbench_accounts_part_{0} PARTITION "
                          "OF pgbench_accounts_part (PRIMARY KEY (aid) USING "
                          "INDEX TABLESPACE {1}) FOR VALUES WITH (MODULUS {2}, "
                          "REMAINDER {0}) TABLESPACE {1}",
                          r, TablespaceName(r), kPartitions)));
    }
    return Status::Ok();
  }

  Status RunPglayout(const std::vector<std::string>& args,
                     std::string* output) {
    std::vector<std::string> argv = {config_.pglayout, "migrate"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.push_back("--dsn");
    argv.push_back(Conninfo(*pg_, kRunDb));
    std::string ignored;
    return pg_->RunClient(argv, output ? output : &ignored);
  }

  // A pglayout method without its capture: "move-logical-off" is
  // "move-off" by logical decoding.
  static std::string Work(const std::string& method) {
    constexpr std::string_view kLogical = "-logical";
    std::string work = method;
    if (size_t at = work.find(kLogical); at != std::string::npos) {
      work.erase(at, kLogical.size());
    }
    return work;
  }

  // The capture a pglayout method asks for (--capture): always named, as
  // auto would take logical decoding at this wal_level.
  static std::string CaptureOf(const std::string& method) {
    return method.find("logical") != std::string::npos ? "logical" : "trigger";
  }

  static bool IsPglayout(const std::string& method) {
    const std::string work = Work(method);
    return work == "partition" || work == "partition-off" || work == "move" ||
           work == "move-off" || work == "move-unverified";
  }

  // The command may end with the restore of max_wal_size deferred until a
  // timed checkpoint makes room; --finalize waits for that and completes it
  // (as the next invocation would), inside the window whose requested
  // checkpoints are counted, so that a restore that requests one shows.
  Status FinishRestore() {
    std::string out;
    fmt::print(stderr, "   pglayout migrate --finalize\n");
    Status st = RunPglayout({"--finalize"}, &out);
    EchoMigrateOutput(st.ok() ? out : st.ToString());
    return st;
  }

  // Runs the method; *work_end is when its work ended (pglayout: the end
  // of the online step, before the checkpoint guard's restore wait).
  Status Execute(const std::string& method, SqlSession* db,
                 double* window_start, double* work_end) {
    std::string out;
    if (IsPglayout(method)) {
      std::string plan;
      PGLAYOUT_RETURN_IF_ERROR(
          WritePlan(pg_.get(), Work(method), ts_paths_, &plan));
      const std::string work = Work(method);
      std::vector<std::string> args = {plan, "--apply", "--capture",
                                       CaptureOf(method)};
      args.insert(args.end(), config_.pglayout_extra.begin(),
                  config_.pglayout_extra.end());
      if (work == "move-off" || work == "partition-off" ||
          work == "move-unverified") {
        args.push_back("--throttle");
        args.push_back("off");
      }
      // The same work as pg_repack, which compares nothing.
      if (work == "move-unverified") {
        args.push_back("--verify");
        args.push_back("off");
      }
      fmt::print(stderr, "   pglayout migrate --dsn '{}' {}\n",
                 Conninfo(*pg_, kRunDb), fmt::join(args, " "));
      Status st = RunPglayout(args, &out);
      EchoMigrateOutput(st.ok() ? out : st.ToString());
      PGLAYOUT_RETURN_IF_ERROR(st);
      std::string end;
      PGLAYOUT_RETURN_IF_ERROR(Value(
          db,
          "SELECT extract(epoch FROM max(finished_at)) FROM pglayout.step "
          "WHERE step_key LIKE 'move:%' OR step_key LIKE 'partition:%'",
          &end));
      *work_end = std::strtod(end.c_str(), nullptr);
      return Status::Ok();
    }
    if (method == "capture" || method == "capture-logical") {
      return CaptureAlone(method, work_end);
    }
    if (method == "capture-repack") {
      return RepackCaptureAlone(db, window_start, work_end);
    }
    if (method == "none") {
      SleepFor(config_.idle_s);
    } else if (method == "repack") {
      PGLAYOUT_RETURN_IF_ERROR(pg_->RunClient(
          {"pg_repack", "--tablespace", kMoveTablespace, "--moveidx", "-t",
           "public.pgbench_accounts", "-d", kRunDb},
          &out));
    } else if (method == "alter") {
      PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(
          db, fmt::format("ALTER TABLE pgbench_accounts SET TABLESPACE {}",
                          kMoveTablespace)));
      PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(
          db, fmt::format("ALTER INDEX pgbench_accounts_pkey SET TABLESPACE {}",
                          kMoveTablespace)));
    } else if (method == "insert") {
      PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(
          db,
          "INSERT INTO pgbench_accounts_part SELECT * FROM pgbench_accounts"));
    } else {
      return Status::InvalidInput("unknown method '" + method + "'");
    }
    *work_end = Now();
    return Status::Ok();
  }

  // The move's first step (the shadow and its capture), its run killed
  // there as the resume tests kill it; then pgbench alone beside the
  // capture for capture_s, and the run aborted. What the capture costs the
  // foreground, whatever the copy does. With logical decoding the killed
  // run reads nothing, so pg_recvlogical reads the slot meanwhile as the
  // run's stream would (pgoutput, the table's publication).
  Status CaptureAlone(const std::string& method, double* work_end) {
    std::string plan, out;
    PGLAYOUT_RETURN_IF_ERROR(WritePlan(pg_.get(), "move", ts_paths_, &plan));
    // Through env(1): the harness keeps every PG* variable of ours from
    // its children.
    std::vector<std::string> args = {
        "/usr/bin/env",
        "PGLAYOUT_MIGRATE_FAILPOINT=after-prepare:move:public.pgbench_"
        "accounts",
        config_.pglayout,
        "migrate",
        plan,
        "--apply",
        "--no-checkpoint-guard",
        "--capture",
        CaptureOf(method),
        "--dsn",
        Conninfo(*pg_, kRunDb)};
    Status killed = pg_->RunClient(args, &out);
    std::unique_ptr<SqlSession> db;
    PGLAYOUT_RETURN_IF_ERROR(Connect(*pg_, kRunDb, &db));
    std::string triggers, slot, publication;
    PGLAYOUT_RETURN_IF_ERROR(
        Value(db.get(),
              "SELECT (SELECT count(*) FROM pg_trigger WHERE tgname = "
              "'pglayout_capture') + (SELECT count(*) FROM "
              "pg_replication_slots WHERE slot_name LIKE 'pglayout%')",
              &triggers));
    if (killed.ok() || triggers != "1") {
      return Status::Internal(
          "capture: the move did not stop with its capture installed: " +
          (killed.ok() ? out : killed.ToString()));
    }
    std::unique_ptr<BackgroundClient> reader;
    if (CaptureOf(method) == "logical") {
      PGLAYOUT_RETURN_IF_ERROR(Value(
          db.get(),
          "SELECT (SELECT slot_name FROM pg_replication_slots WHERE slot_name "
          "LIKE 'pglayout%') || ' ' || (SELECT pubname FROM pg_publication "
          "WHERE pubname LIKE 'pglayout%')",
          &slot));
      publication = slot.substr(slot.find(' ') + 1);
      slot.resize(slot.find(' '));
      PGLAYOUT_RETURN_IF_ERROR(pg_->StartClient(
          {"pg_recvlogical", "-d", kRunDb, "-S", slot, "--start", "-o",
           "proto_version=1", "-o", "publication_names=" + publication, "-s",
           "1", "-f", "/dev/null"},
          &reader));
    }
    SleepFor(config_.capture_s);
    *work_end = Now();
    if (reader) {
      std::string ignored;
      PGLAYOUT_RETURN_IF_ERROR(reader->Stop(&ignored));
    }
    fmt::print(stderr, "   pglayout migrate --abort\n");
    return RunPglayout({"--abort"}, nullptr);
  }

  // pg_repack's change capture alone: its client is stopped (SIGSTOP) once
  // its trigger exists and the statement it had sent is over (its copy,
  // which then leaves its transaction open, as during its index builds);
  // pgbench runs beside the trigger for capture_s; then pg_repack goes on
  // and finishes. The window starts once it is stopped.
  Status RepackCaptureAlone(SqlSession* db, double* window_start,
                            double* work_end) {
    std::unique_ptr<BackgroundClient> repack;
    PGLAYOUT_RETURN_IF_ERROR(pg_->StartClient(
        {"pg_repack", "--tablespace", kMoveTablespace, "--moveidx", "-t",
         "public.pgbench_accounts", "-d", kRunDb},
        &repack));
    const auto wait_for = [&](const std::string& sql, const char* what) {
      for (double until = Now() + 600; Now() < until;) {
        std::string v;
        PGLAYOUT_RETURN_IF_ERROR(Value(db, sql, &v));
        if (v == "t") return Status::Ok();
        if (!repack->Running()) break;
        SleepFor(0.02);
      }
      return Status::Internal(std::string("capture-repack: ") + what);
    };
    PGLAYOUT_RETURN_IF_ERROR(wait_for(
        "SELECT EXISTS (SELECT FROM pg_trigger WHERE tgrelid = "
        "'public.pgbench_accounts'::regclass AND tgname LIKE 'repack%')",
        "pg_repack made no trigger"));
    ::kill(repack->pid(), SIGSTOP);
    Status idle = wait_for(
        "SELECT NOT EXISTS (SELECT FROM pg_stat_activity WHERE "
        "application_name = 'pg_repack' AND state = 'active')",
        "pg_repack's statement did not end");
    *window_start = Now();
    if (idle.ok()) SleepFor(config_.capture_s);
    *work_end = Now();
    ::kill(repack->pid(), SIGCONT);
    std::string out;
    Status done = repack->Wait(&out);
    PGLAYOUT_RETURN_IF_ERROR(idle);
    return done;
  }

  // Checks that the result is where the method should have put it, with
  // every row.
  Status Verify(const std::string& method, SqlSession* db, std::string* out) {
    std::string table =
        method == "insert" ? "pgbench_accounts_part" : "pgbench_accounts";
    std::string rows, kind, places;
    PGLAYOUT_RETURN_IF_ERROR(Value(db, "SELECT count(*) FROM " + table, &rows));
    PGLAYOUT_RETURN_IF_ERROR(Value(
        db,
        fmt::format("SELECT relkind FROM pg_class WHERE oid = '{}'::regclass",
                    table),
        &kind));
    // Tablespaces of the table (or its partitions) and their indexes.
    PGLAYOUT_RETURN_IF_ERROR(Value(
        db,
        fmt::format(
            "WITH rels AS (SELECT '{0}'::regclass AS r UNION ALL SELECT "
            "inhrelid FROM pg_inherits WHERE inhparent = '{0}'::regclass), "
            "objs AS (SELECT r FROM rels UNION ALL SELECT indexrelid FROM "
            "pg_index WHERE indrelid IN (SELECT r FROM rels)) "
            "SELECT string_agg(DISTINCT coalesce(t.spcname, 'pg_default'), "
            "',') FROM objs JOIN pg_class c ON c.oid = objs.r LEFT JOIN "
            "pg_tablespace t ON t.oid = c.reltablespace WHERE c.relkind IN "
            "('r', 'i')",
            table),
        &places));
    int64_t expected = int64_t{config_.scale} * 100000;
    std::string where =
        method == "none" || method == "capture" || method == "capture-logical"
            ? "pg_default"
            : kMoveTablespace;
    bool ok = std::strtoll(rows.c_str(), nullptr, 10) == expected &&
              (method == "partition" || method == "partition-off" ||
                       method == "insert"
                   ? kind == "p" && places ==
                                        "bench_ts0,bench_ts1,bench_ts2,"
                                        "bench_ts3"
                   : kind == "r" && places == where);
    *out = fmt::format("{} {} rows, relkind {}, in {}",
                       ok ? "ok:" : "WRONG:", rows, kind, places);
    return Status::Ok();
  }

  Status RunOne(const std::string& method, Result* r) {
    PGLAYOUT_RETURN_IF_ERROR(FreshCopy());
    std::unique_ptr<SqlSession> db;
    PGLAYOUT_RETURN_IF_ERROR(Connect(*pg_, kRunDb, &db));
    PGLAYOUT_RETURN_IF_ERROR(Prepare(method, db.get()));

    std::unique_ptr<BackgroundClient> bench;
    PGLAYOUT_RETURN_IF_ERROR(pg_->StartClient(
        {"pgbench", "-n", "-c", std::to_string(config_.clients), "-j",
         std::to_string(config_.jobs), "-T", "86400", "-P", "1",
         "--progress-timestamp", kRunDb},
        &bench));
    SleepFor(config_.warmup_s);
    CheckpointCounts c0, c1, c2;
    double wal0 = 0, wal1 = 0, wal2 = 0;
    PGLAYOUT_RETURN_IF_ERROR(ReadCheckpointCounts(admin_.get(), &c0));
    PGLAYOUT_RETURN_IF_ERROR(WalPosition(admin_.get(), &wal0));
    double base_from = Now();
    SleepFor(config_.baseline_s);
    double base_to = Now();
    PGLAYOUT_RETURN_IF_ERROR(ReadCheckpointCounts(admin_.get(), &c1));
    PGLAYOUT_RETURN_IF_ERROR(WalPosition(admin_.get(), &wal1));

    PrintSystemState("before the work");
    double start = Now(), work_end = 0;
    // pglayout's journal, pg_repack's statements; no polling beside the
    // other methods.
    std::unique_ptr<PhaseWatcher> watcher;
    if (IsPglayout(method)) {
      watcher = std::make_unique<PhaseWatcher>(*pg_, kRunDb, kPglayoutPhaseSql);
    } else if (method == "repack") {
      watcher = std::make_unique<PhaseWatcher>(*pg_, kRunDb, kRepackPhaseSql,
                                               NameRepackPhases);
    }
    Status st = Execute(method, db.get(), &start, &work_end);
    double end = Now();
    if (watcher) r->phases = watcher->Stop(work_end);
    watcher.reset();
    // Before the first phase: pglayout's preflight, checkpoint guard and
    // throttle baseline; pg_repack's set-up.
    if (!r->phases.empty()) {
      r->phases.insert(r->phases.begin(),
                       {"before", start, r->phases.front().from});
    }
    if (st.ok()) st = WalPosition(admin_.get(), &wal2);
    if (st.ok() && IsPglayout(method)) st = FinishRestore();
    SleepFor(config_.tail_s);
    PGLAYOUT_RETURN_IF_ERROR(ReadCheckpointCounts(admin_.get(), &c2));
    std::string output;
    Status stopped = bench->Stop(&output);
    PGLAYOUT_RETURN_IF_ERROR(st);
    if (!stopped.ok())
      fmt::print(stderr, "   pgbench: {}\n", stopped.ToString());

    std::vector<TpsPoint> points = ParseProgress(output);
    r->elapsed_s = work_end - start;
    r->total_s = end - start;
    r->baseline_tps = WindowTps(points, base_from, base_to);
    r->tps = WindowTps(points, start, work_end);
    r->baseline_requested = c1.requested - c0.requested;
    r->baseline_wal_mbps = (wal1 - wal0) / 1e6 / (base_to - base_from);
    r->wal_mb = (wal2 - wal1) / 1e6;
    r->requested = c2.requested - c1.requested;
    r->timed = c2.timed - c1.timed;
    r->aborted_clients = AbortedClients(output);
    r->points = points;
    r->start_at = start;
    for (Result::Phase& phase : r->phases) {
      phase.ratio =
          r->baseline_tps > 0
              ? WindowTps(points, phase.from, phase.to) / r->baseline_tps
              : 0;
    }
    PrintPhases(*r);
    PGLAYOUT_RETURN_IF_ERROR(Verify(method, db.get(), &r->check));
    fmt::print(stderr,
               "   {:.1f} s (command {:.1f} s); checkpoints {} requested, {} "
               "timed; {:.0f} MB of WAL; pgbench {:.0f} tps vs {:.0f} baseline "
               "({:.2f}; {:.1f} MB/s of WAL alone); {}\n",
               r->elapsed_s, r->total_s, r->requested, r->timed, r->wal_mb,
               r->tps, r->baseline_tps, r->ratio(), r->baseline_wal_mbps,
               r->check);
    return Status::Ok();
  }

  // "phases: copy 61.0 s at 0.91, indexes 7.9 s at 0.55, ..." (the step's
  // journaled phases; "catchup" includes the verification).
  static void PrintPhases(const Result& r) {
    if (r.phases.empty()) return;
    std::vector<std::string> parts;
    for (const Result::Phase& p : r.phases) {
      parts.push_back(
          fmt::format("{} {:.1f} s at {:.2f}", p.name, p.to - p.from, p.ratio));
    }
    fmt::print(stderr, "   phases (TPS ratio): {}\n", fmt::join(parts, ", "));
  }

  // What the run starts from that a method's position could change: WAL
  // segments ready for reuse, and the kernel's dirty and writeback memory.
  void PrintSystemState(const char* when) {
    std::string wal;
    (void)Value(admin_.get(),
                "SELECT count(*) || ' segments, ' || "
                "(coalesce(sum(size), 0) / 1048576)::bigint || ' MB' FROM "
                "pg_ls_waldir()",
                &wal);
    std::ifstream meminfo("/proc/meminfo");
    std::string line, memory;
    while (std::getline(meminfo, line)) {
      if (line.rfind("Dirty:", 0) == 0 || line.rfind("Writeback:", 0) == 0) {
        memory += (memory.empty() ? "" : ", ") + line;
      }
    }
    fmt::print(stderr, "   {}: pg_wal {}; {}\n", when, wal, memory);
  }

  const Result* Find(const std::string& method) const {
    for (const Result& r : results_) {
      if (r.method == method && r.error.empty()) return &r;
    }
    return nullptr;
  }

  // |raw|, |r|'s TPS ratio over [from_s, to_s] after its start, with the
  // control over the same seconds when "none" ran that long.
  Paced Against(const Result& r, double raw, double from_s, double to_s) const {
    const Result* none = Find("none");
    return {raw, none && none != &r ? ControlRatio(*none, from_s, to_s) : 0};
  }
  Paced Against(const Result& r) const {
    return Against(r, r.ratio(), 0, r.elapsed_s);
  }
  // |r|'s phase |p|.
  Paced Against(const Result& r, const Result::Phase& p) const {
    return Against(r, p.ratio, p.from - r.start_at, p.to - r.start_at);
  }

  // When "none" ran: the range of its windows (the run's noise floor) and
  // each pglayout phase's TPS ratio against the control.
  void PrintControlledPhases() const;

  // Information beside the adaptive target: where the move's loss of pace
  // went, phase by phase, against the loss the target allows.
  void PrintWherePaceWent(const Result& move, const Result& repack) const;

  Config config_;
  std::unique_ptr<PgCluster> pg_;
  std::unique_ptr<SqlSession> admin_;
  std::vector<std::string> ts_paths_;
  std::string table_size_;
  std::string repack_version_;
  std::vector<Result> results_;
};

void Bench::Print() const {
  fmt::print(
      "migrate_vs_peers: PostgreSQL 15, pgbench scale {} (pgbench_accounts {} "
      "with its primary key), max_wal_size {}, min_wal_size {} (made "
      "before the first method), checkpoint_timeout {}; "
      "concurrent pgbench -n -c {} -j {} (TPC-B); baseline {:.0f} s just "
      "before each method; pg_repack {}\n\n",
      config_.scale, table_size_, kMaxWalSize, kMinWalSize, kCheckpointTimeout,
      config_.clients, config_.jobs, config_.baseline_s, repack_version_);
  constexpr const char* kHead =
      "{:<36} {:>8} {:>8} {:>5} {:>5} {:>7} {:>8} {:>7} {:>6} {:>7}  {}\n";
  fmt::print(kHead, "method", "elapsed", "command", "ckpt", "ckpt", "WAL",
             "tps", "tps", "tps", "ratio /", "result");
  fmt::print(kHead, "", "s", "s", "req", "timed", "MB", "baseline", "during",
             "ratio", "none's", "");
  for (const Result& r : results_) {
    if (!r.error.empty()) {
      fmt::print("{:<36} FAILED: {}\n", r.label, r.error);
      continue;
    }
    std::string notes = r.check;
    if (r.aborted_clients > 0) {
      notes += fmt::format("; {} pgbench clients aborted", r.aborted_clients);
    }
    notes +=
        fmt::format("; pgbench alone {:.1f} MB/s of WAL", r.baseline_wal_mbps);
    if (r.baseline_requested > 0) {
      notes +=
          fmt::format("; {} requested in the baseline", r.baseline_requested);
    }
    const Paced paced = Against(r);
    fmt::print(
        "{:<36} {:>8.1f} {:>8.1f} {:>5} {:>5} {:>7.0f} {:>8.0f} {:>7.0f} "
        "{:>6.2f} {:>7}  {}\n",
        r.label, r.elapsed_s, r.total_s, r.requested, r.timed, r.wal_mb,
        r.baseline_tps, r.tps, r.ratio(),
        paced.control > 0 ? fmt::format("{:.2f}", paced.value()) : "-", notes);
  }
  PrintControlledPhases();
  PrintTargets();
}

void Bench::PrintControlledPhases() const {
  const Result* none = Find("none");
  if (!none) return;
  // The noise floor: pgbench alone over windows as long as the baseline.
  double lowest = 1e9, highest = 0;
  for (double from = 0; from + config_.baseline_s <= none->elapsed_s;
       from += 5) {
    const double r = ControlRatio(*none, from, from + config_.baseline_s);
    lowest = std::min(lowest, r);
    highest = std::max(highest, r);
  }
  if (highest > 0) {
    fmt::print(
        "\npgbench alone (none): its {:.0f}-s windows ran at {:.2f} to {:.2f} "
        "of its baseline\n",
        config_.baseline_s, lowest, highest);
  }
  std::vector<std::string> lines;
  for (const Result& r : results_) {
    if (r.phases.empty() || !r.error.empty()) continue;
    std::vector<std::string> parts;
    for (const Result::Phase& p : r.phases) {
      parts.push_back(fmt::format("{} {:.1f} s at {}", p.name, p.to - p.from,
                                  Against(r, p).Text()));
    }
    lines.push_back(fmt::format("  {}: {}\n", r.label, fmt::join(parts, ", ")));
  }
  if (lines.empty()) return;
  fmt::print(
      "Each phase's TPS ratio against none's over the same seconds after "
      "the start:\n{}",
      fmt::join(lines, ""));
}

// The WAL the method itself wrote: the window's, less what pgbench wrote
// meanwhile, estimated as its baseline rate over the command's time scaled
// by its pace during the method (a method that halves pgbench's pace halves
// its WAL too).
double OwnWalMb(const Result& r) {
  return std::max(0.0, r.wal_mb - r.baseline_wal_mbps * r.total_s * r.ratio());
}

// Seconds |r| spent in the phases named |name|.
double PhaseSeconds(const Result& r, const std::string& name) {
  double seconds = 0;
  for (const Result::Phase& p : r.phases) {
    if (p.name == name) seconds += p.to - p.from;
  }
  return seconds;
}

// Information beside the time target, not a target: the phases of the
// unthrottled move and of pg_repack side by side, and the move's time
// without the verification that pg_repack does not do.
void PrintWhereTimeWent(const Result& move_off, const Result& repack) {
  if (move_off.phases.empty() || repack.phases.empty()) return;
  const double verify = PhaseSeconds(move_off, "verify");
  const auto both = [&](const char* name) {
    return fmt::format("{} {:.1f} / {:.1f} s", name,
                       PhaseSeconds(move_off, name),
                       PhaseSeconds(repack, name));
  };
  fmt::print(
      "    where the time went, move / pg_repack: {}, {}, {}, swap and after "
      "{:.1f} / {:.1f} s (log apply, swap, cleanup, ANALYZE); the move's "
      "catch-up {:.1f} s and verification {:.1f} s. Without its verification "
      "the move took {:.2f}x (information, not a target)\n",
      both("before"), both("copy"), both("indexes"),
      PhaseSeconds(move_off, "swap") + PhaseSeconds(move_off, "swapped"),
      PhaseSeconds(repack, "swap"), PhaseSeconds(move_off, "catchup"), verify,
      repack.elapsed_s > 0 ? (move_off.elapsed_s - verify) / repack.elapsed_s
                           : 0.0);
}

// Keeping 0.9 of the pace over the longest move the target allows (5x
// pg_repack's time) allows a loss of a tenth of that time in all. A phase
// loses its seconds times the share of the pace it lost, against the
// control; phases of one name (the catch-up's two rounds) add up.
void Bench::PrintWherePaceWent(const Result& move, const Result& repack) const {
  if (move.phases.empty()) return;
  std::vector<std::pair<std::string, double>> lost;  // in the order run
  double total = 0;
  for (const Result::Phase& p : move.phases) {
    const double s =
        (p.to - p.from) * std::max(0.0, 1 - Against(move, p).value());
    auto same = std::find_if(lost.begin(), lost.end(),
                             [&](const auto& l) { return l.first == p.name; });
    if (same == lost.end()) {
      lost.emplace_back(p.name, s);
    } else {
      same->second += s;
    }
    total += s;
  }
  std::vector<std::string> parts;
  for (const auto& [name, s] : lost) {
    parts.push_back(fmt::format("{} {:.1f}", name, s));
  }
  fmt::print(
      "    where the pace went: the adaptive move cost pgbench {:.1f} s of its "
      "pace (each phase's seconds times the share of the pace it lost: {}); "
      "0.9 over 5x pg_repack's time allows {:.1f} s in all (information, not "
      "a target)\n",
      total, fmt::join(parts, ", "), 0.1 * 5 * repack.elapsed_s);
}

// "<label> / pg_repack, time: ...": the time of |ours| against pg_repack's
// and both paces, met when within |target| x (and, with |pace_too|, when
// the foreground kept at least pg_repack's pace).
void Bench::PrintTimeTarget(const std::string& label, const Result& ours,
                            const Result& repack, double target,
                            bool pace_too) const {
  const double x = repack.elapsed_s > 0 ? ours.elapsed_s / repack.elapsed_s : 0;
  const Paced paced = Against(ours), theirs = Against(repack);
  const bool met =
      x <= target && (!pace_too || paced.value() >= theirs.value());
  fmt::print(
      "  {} / pg_repack, time: {:.1f} / {:.1f} s = {:.2f}x (target <= {:.1f}x)"
      ", TPS ratio {} vs {}{}: {}\n",
      label, ours.elapsed_s, repack.elapsed_s, x, target, paced.Text(),
      theirs.Text(), pace_too ? " (target >=)" : "", met ? "met" : "MISSED");
}

// The goals of the performance issue, each as a ratio with its verdict:
// the moves' for each capture in the run, then the hash conversion's.
void Bench::PrintTargets() const {
  const Result* part_off = Find("partition-off");
  const Result* repack = Find("repack");
  const Result* insert = Find("insert");
  auto verdict = [](bool met) { return met ? "met" : "MISSED"; };
  auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
  fmt::print("\nTargets:\n");
  for (const char* capture : {"", "-logical"}) {
    const std::string m = std::string("move") + capture;
    const std::string name =
        std::string(*capture ? "logical " : "trigger ") + "move";
    const Result* move = Find(m);
    const Result* move_off = Find(m + "-off");
    const Result* unverified = Find(m + "-unverified");
    if (move_off && repack) {
      PrintTimeTarget("unthrottled " + name, *move_off, *repack, 1.1, true);
      PrintWhereTimeWent(*move_off, *repack);
      const double w = ratio(OwnWalMb(*move_off), OwnWalMb(*repack));
      fmt::print(
          "  unthrottled {} / pg_repack, WAL beyond pgbench's: {:.0f} / {:.0f} "
          "MB = {:.2f}x (target <= 1.0x): {}\n",
          name, OwnWalMb(*move_off), OwnWalMb(*repack), w, verdict(w <= 1.0));
    }
    // The same work as pg_repack, which compares nothing at its end.
    if (unverified && repack) {
      PrintTimeTarget("unthrottled " + name + " --verify off", *unverified,
                      *repack, 0.9, false);
    }
    if (move && repack) {
      const double x = ratio(move->elapsed_s, repack->elapsed_s);
      const Paced kept = Against(*move);
      fmt::print(
          "  adaptive {}: TPS ratio {} (target >= 0.90) in {:.2f}x "
          "pg_repack's time (target <= 5x): {}\n",
          name, kept.Text(), x, verdict(kept.value() >= 0.9 && x <= 5));
      PrintWherePaceWent(*move, *repack);
    }
  }
  if (part_off && insert) {
    const double x = ratio(part_off->elapsed_s, insert->elapsed_s);
    fmt::print(
        "  4 hash partitions online, throttle off / offline INSERT ... "
        "SELECT: {:.1f} / {:.1f} s = {:.2f}x (target <= 1.1x): {}\n",
        part_off->elapsed_s, insert->elapsed_s, x, verdict(x <= 1.1));
  }
  for (const Result& r : results_) {
    if (!IsPglayout(r.method) || !r.error.empty()) continue;
    const double after = r.total_s - r.elapsed_s;
    fmt::print(
        "  {}: the command ended {:.1f} s after the work (target <= 10 s), "
        "{} requested checkpoints (target 0): {}\n",
        r.label, after, r.requested, verdict(after <= 10 && r.requested == 0));
  }
  for (const char* method : {"capture", "capture-logical", "capture-repack"}) {
    const Result* capture = Find(method);
    if (!capture) continue;
    fmt::print(
        "  {} kept pgbench at {} of its pace: the most any online move with "
        "it can keep\n",
        capture->label, Against(*capture).Text());
  }
}

int Usage() {
  fmt::print(
      stderr,
      "usage: migrate_vs_peers [--scale N] [--baseline S] [--clients "
      "N] [--jobs N]\n"
      "                        [--methods none,partition,partition-off,move,"
      "move-off,\n"
      "                                   move-unverified,move-logical,"
      "move-logical-off,\n"
      "                                   move-logical-unverified,repack,alter,"
      "insert,\n"
      "                                   capture,capture-logical,"
      "capture-repack]\n"
      "                        [--pglayout PATH] [--idle S] [--capture S] "
      "[--restore-wait S] [--batch-rows N]\n"
      "                        [--max-rate MBPS]\n");
  return 2;
}

std::vector<std::string> SplitComma(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

int Run(int argc, char** argv) {
  Config config;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    bool has_value = i + 1 < argc;
    if (arg == "--scale" && has_value) {
      config.scale = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--baseline" && has_value) {
      config.baseline_s = std::max(1.0, std::atof(argv[++i]));
    } else if (arg == "--clients" && has_value) {
      config.clients = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--jobs" && has_value) {
      config.jobs = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--methods" && has_value) {
      config.methods = SplitComma(argv[++i]);
    } else if (arg == "--idle" && has_value) {
      config.idle_s = std::max(1.0, std::atof(argv[++i]));
    } else if (arg == "--capture" && has_value) {
      config.capture_s = std::max(1.0, std::atof(argv[++i]));
    } else if (arg == "--pglayout" && has_value) {
      config.pglayout = argv[++i];
    } else if ((arg == "--restore-wait" || arg == "--batch-rows" ||
                arg == "--max-rate") &&
               has_value) {
      config.pglayout_extra.push_back(arg);
      config.pglayout_extra.push_back(argv[++i]);
    } else {
      return Usage();
    }
  }
  for (const std::string& m : config.methods) {
    static const std::vector<std::string> kKnown = {"none",
                                                    "partition",
                                                    "partition-off",
                                                    "move",
                                                    "move-off",
                                                    "move-unverified",
                                                    "move-logical",
                                                    "move-logical-off",
                                                    "move-logical-unverified",
                                                    "repack",
                                                    "alter",
                                                    "insert",
                                                    "capture",
                                                    "capture-logical",
                                                    "capture-repack"};
    if (std::find(kKnown.begin(), kKnown.end(), m) == kKnown.end()) {
      fmt::print(stderr, "unknown method '{}'\n", m);
      return Usage();
    }
  }
  if (access(config.pglayout.c_str(), X_OK) != 0) {
    fmt::print(stderr, "{} is not executable; build the pglayout target\n",
               config.pglayout);
    return 1;
  }
  Bench bench(config);
  Status st = bench.Setup();
  if (!st.ok()) {
    fmt::print(stderr, "setup: {}\n", st.ToString());
    return 1;
  }
  bench.RunAll();
  bench.Print();
  return 0;
}

}  // namespace
}  // namespace pglayout

int main(int argc, char** argv) { return pglayout::Run(argc, argv); }
