// Benchmark: the cost of the online copy's change capture (the trigger and
// the log of keys that CaptureCreateSql installs) against plain SQL without
// it, on pgbench_accounts of a throwaway PostgreSQL 15 server:
//  - per changed row: the best of --repeat bulk UPDATEs of --rows rows,
//    without and with the capture (VACUUM and an emptied log between);
//  - per transaction: pgbench -c 4 -j 2 TPC-B for --seconds, alternating
//    without and with the capture --rounds times (the median of each).
// Prints both and their ratios; asserts nothing. bench/capture_cost/README.md.

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/median.h"
#include "common/status.h"
#include "migrator/online_sql.h"
#include "migrator/server_facts.h"
#include "pg/sql.h"
#include "testing/pg_cluster.h"
#include "testing/pgbench_summary.h"

namespace pglayout {
namespace {

using migrator::OnlineNames;

// How the capture is installed: "row" as the migrator does it, or
// "statement": the same log filled by three statement-level triggers that
// read the statement's transition tables, one call per statement instead
// of one per row (an experiment, made here by hand).
struct Config {
  std::vector<std::string> variants = {"row", "statement"};
  int scale = 10;
  int64_t rows = 200000;
  int repeat = 5;
  int rounds = 3;
  double seconds = 20;
};

class Bench {
 public:
  explicit Bench(Config config) : config_(config) {}

  Status Setup() {
    PGLAYOUT_RETURN_IF_ERROR(PgCluster::Start(PgVersion::k15, {}, &pg_));
    PGLAYOUT_RETURN_IF_ERROR(pg_->Connect(&db_));
    std::string out;
    PGLAYOUT_RETURN_IF_ERROR(pg_->RunClient(
        {"pgbench", "-i", "-q", "-s", std::to_string(config_.scale)}, &out));
    PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(db_.get(), "VACUUM ANALYZE"));
    PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(db_.get(), "CREATE SCHEMA pglayout"));
    uint32_t table_oid = 0;
    PGLAYOUT_RETURN_IF_ERROR(migrator::ResolveRelation(
        db_.get(), "public.pgbench_accounts", &table_oid));
    PGLAYOUT_RETURN_IF_ERROR(
        migrator::GatherTableFacts(db_.get(), table_oid, &table_));
    migrator::OnlineTarget target;
    target.tablespaces = {"pg_default"};
    names_ = migrator::MakeOnlineNames(table_, target);
    return Status::Ok();
  }

  // The trigger and log exactly as an online copy by block ranges (the
  // default on PostgreSQL 14+) installs them; or (|variant| "statement")
  // the same log and TRUNCATE block with statement-level triggers.
  Status InstallCapture(const std::string& variant) {
    const bool row = variant == "row";
    for (const std::string& sql :
         migrator::CaptureCreateSql(table_, names_, 1, true, row)) {
      if (!sql.empty()) PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(db_.get(), sql));
    }
    if (row) return Status::Ok();
    struct Event {
      const char* name;
      const char* referencing;
      const char* keys;
    };
    // An UPDATE logs its old keys and any new one (a changed key), as the
    // row trigger does.
    const Event events[] = {{"INSERT", "NEW TABLE AS n", "SELECT aid FROM n"},
                            {"UPDATE", "OLD TABLE AS o NEW TABLE AS n",
                             "SELECT aid FROM o UNION SELECT aid FROM n"},
                            {"DELETE", "OLD TABLE AS o", "SELECT aid FROM o"}};
    for (const Event& e : events) {
      const std::string function =
          fmt::format("pglayout.bench_capture_{}", e.name);
      PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(
          db_.get(),
          fmt::format("CREATE FUNCTION {}() RETURNS trigger LANGUAGE plpgsql "
                      "SECURITY DEFINER SET search_path = pg_catalog, pg_temp "
                      "AS $$BEGIN INSERT INTO {} (k1) {}; RETURN NULL; END$$",
                      function, names_.log, e.keys)));
      PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(
          db_.get(),
          fmt::format(
              "CREATE TRIGGER bench_capture_{0} AFTER {0} ON "
              "public.pgbench_accounts REFERENCING {1} FOR EACH STATEMENT "
              "EXECUTE FUNCTION {2}()",
              e.name, e.referencing, function)));
    }
    return Status::Ok();
  }
  Status RemoveCapture() {
    for (const char* event : {"INSERT", "UPDATE", "DELETE"}) {
      PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(
          db_.get(),
          fmt::format("DROP TRIGGER IF EXISTS bench_capture_{0} ON "
                      "public.pgbench_accounts; DROP FUNCTION IF EXISTS "
                      "pglayout.bench_capture_{0}()",
                      event)));
    }
    for (const std::string& sql : migrator::CaptureDropSql(names_, true)) {
      PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(db_.get(), sql));
    }
    return Status::Ok();
  }

  // The best time of |repeat| UPDATEs of the first |rows| rows, in
  // microseconds per row.
  Status BulkUpdate(bool captured, double* us_per_row) {
    double best = 1e30;
    for (int i = 0; i < config_.repeat; ++i) {
      PGLAYOUT_RETURN_IF_ERROR(
          ExecuteSql(db_.get(), "VACUUM public.pgbench_accounts"));
      if (captured) {
        PGLAYOUT_RETURN_IF_ERROR(
            ExecuteSql(db_.get(), "TRUNCATE " + names_.log));
      }
      const double t = SystemClock()->Now();
      PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(
          db_.get(),
          fmt::format("UPDATE public.pgbench_accounts SET abalance = "
                      "abalance + 1 WHERE aid <= {}",
                      config_.rows)));
      best = std::min(best, SystemClock()->Now() - t);
    }
    *us_per_row = best * 1e6 / static_cast<double>(config_.rows);
    return Status::Ok();
  }

  // pgbench's transactions per second over one run.
  Status Pgbench(double* tps) {
    std::string out;
    PGLAYOUT_RETURN_IF_ERROR(
        pg_->RunClient({"pgbench", "-n", "-c", "4", "-j", "2", "-T",
                        fmt::format("{:.0f}", config_.seconds)},
                       &out));
    *tps = ParsePgbenchSummary(out).tps;
    if (*tps <= 0) return Status::Internal("pgbench printed no tps: " + out);
    return Status::Ok();
  }

  Status Run() {
    for (const std::string& variant : config_.variants) {
      PGLAYOUT_RETURN_IF_ERROR(RunVariant(variant));
    }
    return Status::Ok();
  }

  Status RunVariant(const std::string& variant) {
    double plain = 0, captured = 0;
    PGLAYOUT_RETURN_IF_ERROR(BulkUpdate(false, &plain));
    PGLAYOUT_RETURN_IF_ERROR(InstallCapture(variant));
    PGLAYOUT_RETURN_IF_ERROR(BulkUpdate(true, &captured));
    PGLAYOUT_RETURN_IF_ERROR(RemoveCapture());
    fmt::print(
        "{} triggers, per changed row (best of {} UPDATEs of {} rows): {:.2f} "
        "us plain, {:.2f} us with the capture: +{:.2f} us ({:.2f}x)\n",
        variant, config_.repeat, config_.rows, plain, captured,
        captured - plain, plain > 0 ? captured / plain : 0);
    std::vector<double> without, with;
    for (int i = 0; i < config_.rounds; ++i) {
      double tps = 0;
      PGLAYOUT_RETURN_IF_ERROR(Pgbench(&tps));
      without.push_back(tps);
      PGLAYOUT_RETURN_IF_ERROR(InstallCapture(variant));
      Status st = Pgbench(&tps);
      PGLAYOUT_RETURN_IF_ERROR(RemoveCapture());
      PGLAYOUT_RETURN_IF_ERROR(st);
      with.push_back(tps);
      fmt::print(stderr,
                 "{} round {}: {:.0f} tps plain, {:.0f} with the capture\n",
                 variant, i + 1, without.back(), with.back());
    }
    const double a = Median(without), b = Median(with);
    // Neighbouring rounds share the machine's drift: their ratios vary
    // less than the rounds themselves.
    std::vector<double> ratios;
    for (size_t i = 0; i < with.size(); ++i) {
      ratios.push_back(with[i] / without[i]);
    }
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    // Changed rows per second (one per transaction) x the added seconds per
    // row, as a share of the cores.
    const double cpu_share = a * (captured - plain) * 1e-6 / cores;
    fmt::print(
        "{} triggers, pgbench -c 4 -j 2 TPC-B, median of {} alternating {:.0f} "
        "s runs: {:.0f} tps plain, {:.0f} with the capture ({:.2f}); the "
        "rounds ranged {:.0f}-{:.0f} plain; each round's ratio {:.2f}-{:.2f}, "
        "median {:.2f}\n"
        "the capture's CPU at the plain pace: {:.0f} changed rows/s x "
        "{:.2f} us = {:.1f}% of {} cores\n",
        variant, config_.rounds, config_.seconds, a, b, a > 0 ? b / a : 0,
        *std::min_element(without.begin(), without.end()),
        *std::max_element(without.begin(), without.end()),
        *std::min_element(ratios.begin(), ratios.end()),
        *std::max_element(ratios.begin(), ratios.end()), Median(ratios), a,
        captured - plain, 100 * cpu_share, cores);
    return Status::Ok();
  }

 private:
  Config config_;
  std::unique_ptr<PgCluster> pg_;
  std::unique_ptr<SqlSession> db_;
  migrator::TableFacts table_;
  OnlineNames names_;
};

int Usage() {
  fmt::print(stderr,
             "usage: capture_cost [--scale N] [--rows N] [--repeat N] "
             "[--rounds N] [--seconds S]\n"
             "                    [--variants row,statement]\n");
  return 2;
}

int Run(int argc, char** argv) {
  Config config;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (i + 1 >= argc) return Usage();
    const char* value = argv[++i];
    if (arg == "--variants") {
      config.variants.clear();
      std::istringstream list(value);
      for (std::string v; std::getline(list, v, ',');) {
        if (v != "row" && v != "statement") return Usage();
        config.variants.push_back(v);
      }
      if (config.variants.empty()) return Usage();
    } else if (arg == "--scale") {
      config.scale = std::max(1, std::atoi(value));
    } else if (arg == "--rows") {
      config.rows = std::max<int64_t>(1, std::atoll(value));
    } else if (arg == "--repeat") {
      config.repeat = std::max(1, std::atoi(value));
    } else if (arg == "--rounds") {
      config.rounds = std::max(1, std::atoi(value));
    } else if (arg == "--seconds") {
      config.seconds = std::max(1.0, std::atof(value));
    } else {
      return Usage();
    }
  }
  config.rows = std::min<int64_t>(config.rows, int64_t{config.scale} * 100000);
  Bench bench(config);
  Status st = bench.Setup();
  if (st.ok()) st = bench.Run();
  if (!st.ok()) {
    fmt::print(stderr, "capture_cost: {}\n", st.ToString());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace pglayout

int main(int argc, char** argv) { return pglayout::Run(argc, argv); }
