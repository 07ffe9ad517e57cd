// Benchmark: how long one observe sample takes on a server with many
// tables (10,000 by default, each with a primary key index), on a
// throwaway PostgreSQL 15 and 18 from the test harness.
//
//   observe_many_tables [--tables N] [--samples N] [pg15|pg18 ...]
//
// Prints the time of the catalog read, of each sample (min / median / max)
// and of a full 5-sample observation. Nothing is asserted: the figure is for
// people choosing --interval on large schemas.

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/median.h"
#include "common/progress.h"
#include "observe/observe.h"
#include "observe/observe_pg.h"
#include "pg/sql.h"
#include "testing/pg_cluster.h"

namespace pglayout {
namespace {

double Seconds() {
  using std::chrono::duration;
  return duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Creates |tables| tables of one row each, in batches: one transaction with
// 10,000 CREATE TABLEs would need 20,000 locks at once.
Status CreateTables(SqlSession* session, int tables) {
  constexpr int kBatch = 500;
  for (int first = 1; first <= tables; first += kBatch) {
    int last = std::min(tables, first + kBatch - 1);
    PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(
        session,
        fmt::format("DO $$ BEGIN FOR i IN {}..{} LOOP EXECUTE format("
                    "'CREATE TABLE bench_t%s (id int PRIMARY KEY, v int); "
                    "INSERT INTO bench_t%s VALUES (1, 1)', i, i); END LOOP; "
                    "END $$",
                    first, last)));
  }
  return ExecuteSql(session, "ANALYZE");
}

struct Figures {
  size_t relations = 0;
  double relations_s = 0;
  std::vector<double> sample_s;
  double observe_s = 0;
};

Status Measure(PgCluster* pg, int samples, Figures* f) {
  std::unique_ptr<SqlSession> session;
  PGLAYOUT_RETURN_IF_ERROR(
      OpenPgSessionAsConfigured(pg->conninfo(), "bench", &session));
  std::unique_ptr<StatsSource> source;
  PGLAYOUT_RETURN_IF_ERROR(OpenPgStatsSource(session.get(), &source));
  ServerInfo info;
  PGLAYOUT_RETURN_IF_ERROR(source->ReadServer(&info));
  std::vector<RelationInfo> catalog;
  double t = Seconds();
  PGLAYOUT_RETURN_IF_ERROR(source->ReadRelations(&catalog));
  f->relations_s = Seconds() - t;
  f->relations = catalog.size();
  for (int i = 0; i < samples; ++i) {
    Sample sample;
    bool skipped = false;
    t = Seconds();
    PGLAYOUT_RETURN_IF_ERROR(source->ReadSample(&sample, &skipped));
    f->sample_s.push_back(Seconds() - t);
  }
  ObserveOptions options;
  options.duration = 4;
  options.interval = 1;
  NullProgress progress;
  ObserveResult result;
  t = Seconds();
  PGLAYOUT_RETURN_IF_ERROR(
      ObserveServer(pg->conninfo(), &progress, options, &result));
  f->observe_s = Seconds() - t;
  return Status::Ok();
}

void Print(PgVersion version, int tables, const Figures& f) {
  const std::vector<double>& s = f.sample_s;
  fmt::print(
      "{}: {} tables -> {} relations; catalog read {:.0f} ms; one sample "
      "min {:.0f} / median {:.0f} / max {:.0f} ms over {} samples; a 4 s "
      "observation at 1 s intervals took {:.1f} s\n",
      PgVersionName(version), tables, f.relations, f.relations_s * 1000,
      *std::min_element(s.begin(), s.end()) * 1000, Median(s) * 1000,
      *std::max_element(s.begin(), s.end()) * 1000, s.size(), f.observe_s);
}

int Run(int argc, char** argv) {
  int tables = 10000, samples = 10;
  std::vector<PgVersion> versions;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--tables") && i + 1 < argc) {
      tables = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--samples") && i + 1 < argc) {
      samples = std::max(1, std::atoi(argv[++i]));
    } else if (!std::strcmp(argv[i], "pg15")) {
      versions.push_back(PgVersion::k15);
    } else if (!std::strcmp(argv[i], "pg18")) {
      versions.push_back(PgVersion::k18);
    } else {
      fmt::print(stderr,
                 "usage: observe_many_tables [--tables N] [--samples N] "
                 "[pg15|pg18 ...]\n");
      return 2;
    }
  }
  if (versions.empty()) versions = {PgVersion::k15, PgVersion::k18};
  for (PgVersion version : versions) {
    PgClusterOptions options;
    options.settings = {{"max_locks_per_transaction", "256"},
                        {"autovacuum", "off"}};
    std::unique_ptr<PgCluster> pg;
    Status st = PgCluster::Start(version, options, &pg);
    std::unique_ptr<SqlSession> admin;
    if (st.ok()) st = pg->Connect(&admin);
    double t = Seconds();
    if (st.ok()) st = CreateTables(admin.get(), tables);
    fmt::print(stderr, "{}: created {} tables in {:.1f} s\n",
               PgVersionName(version), tables, Seconds() - t);
    Figures figures;
    if (st.ok()) st = Measure(pg.get(), samples, &figures);
    if (!st.ok()) {
      fmt::print(stderr, "{}: {}\n", PgVersionName(version), st.ToString());
      return 1;
    }
    Print(version, tables, figures);
  }
  return 0;
}

}  // namespace
}  // namespace pglayout

int main(int argc, char** argv) { return pglayout::Run(argc, argv); }
