// `pglayout observe` against real PostgreSQL 12, 15 and 18 servers: pgbench
// load, a bulk insert against a small max_wal_size, the server's own log,
// the migrator's facts, read-only enforcement and connection failures.
// Observations are short (6 s at 1 s intervals) to keep the suite quick.

#include "observe/observe_pg.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <thread>

#include "common/files.h"
#include "common/locate.h"
#include "observe/log_parser.h"
#include "observe/observe.h"
#include "observe/observe_diagnosis.h"
#include "testing/pg_test.h"

namespace pglayout {
namespace {

ObserveOptions SixSeconds() {
  ObserveOptions o;
  o.duration = 6;
  o.interval = 1;
  return o;
}

// Settings that make reads and checkpoints real on a small test database:
// pgbench at scale 10 (~150 MiB) does not fit in 16 MB of shared_buffers,
// and 32 MB of max_wal_size forces checkpoints during bulk writes.
PgClusterOptions SmallServer() {
  PgClusterOptions o;
  o.settings = {{"shared_buffers", "16MB"},
                {"max_wal_size", "32MB"},
                {"min_wal_size", "32MB"},
                {"log_checkpoints", "on"},
                {"checkpoint_timeout", "30min"}};
  return o;
}

// A read-only observing session on a server, its source, and the
// relations it reads first.
struct Observing {
  std::unique_ptr<SqlSession> session;
  std::unique_ptr<StatsSource> source;

  Status Open(const std::string& conninfo,
              std::vector<RelationInfo>* relations) {
    PGLAYOUT_RETURN_IF_ERROR(OpenPgSession(conninfo, "observe-test", &session));
    PGLAYOUT_RETURN_IF_ERROR(OpenPgStatsSource(session.get(), &source));
    return source->ReadRelations(relations);
  }
};

class ObservePgTest : public PgVersionTest {};

// What observe could have changed on a server: its relations (not their
// statistics, which autovacuum updates), settings, roles, tablespaces and
// replication slots. Settings of the calling session are part of it, so
// compare fingerprints taken by the same session.
std::string Fingerprint(SqlSession* session) {
  return Value(session, R"sql(
    SELECT md5(concat_ws('|',
      (SELECT string_agg(concat_ws(',', oid, relname, relnamespace,
         relfilenode, reltablespace, relkind, relpersistence), ';'
         ORDER BY oid) FROM pg_class),
      (SELECT string_agg(name || '=' || setting, ';' ORDER BY name)
         FROM pg_settings),
      (SELECT string_agg(rolname, ';' ORDER BY rolname) FROM pg_roles),
      (SELECT string_agg(spcname, ';' ORDER BY spcname) FROM pg_tablespace),
      (SELECT string_agg(slot_name, ';' ORDER BY slot_name)
         FROM pg_replication_slots)))
  )sql");
}

TEST_P(ObservePgTest, PgbenchMakesAccountsTheHottestRelation) {
  std::unique_ptr<PgCluster> pg;
  PGLAYOUT_ASSERT_OK(StartCluster(SmallServer(), &pg));
  std::string output;
  PGLAYOUT_ASSERT_OK(
      pg->RunClient({"pgbench", "-i", "-s", "10", "-q"}, &output));
  std::unique_ptr<BackgroundClient> load;
  PGLAYOUT_ASSERT_OK(pg->StartClient(
      {"pgbench", "-n", "-c", "4", "-j", "2", "-T", "120"}, &load));

  NullProgress progress;
  ObserveResult result;
  Status st = ObserveServer(pg->conninfo(), &progress, SixSeconds(), &result);
  PGLAYOUT_EXPECT_OK(load->Stop(&output));
  PGLAYOUT_ASSERT_OK(st);

  const Workload& w = result.workload;
  ASSERT_FALSE(w.relations.empty());
  const std::string& hottest = w.relations[0].name;
  EXPECT_TRUE(hottest == "public.pgbench_accounts" ||
              hottest == "public.pgbench_accounts_pkey")
      << "hottest: " << hottest;
  const Relation* accounts = w.Find("public.pgbench_accounts");
  ASSERT_NE(accounts, nullptr);
  EXPECT_GT(accounts->read_iops, 0);
  EXPECT_GT(accounts->write_iops, 0);
  EXPECT_GT(accounts->updates_per_second, 0);
  EXPECT_GT(accounts->size, 100u * 1024 * 1024);
  EXPECT_EQ(accounts->tablespace, "pg_default");
  EXPECT_EQ(accounts->primary_key, std::vector<std::string>{"aid"});
  EXPECT_EQ(accounts->replica_identity, ReplicaIdentity::kDefault);
  EXPECT_EQ(accounts->persistence, Persistence::kPermanent);
  const Relation* pkey = w.Find("public.pgbench_accounts_pkey");
  ASSERT_NE(pkey, nullptr);
  EXPECT_EQ(pkey->kind, RelationKind::kIndex);
  EXPECT_EQ(pkey->table, "public.pgbench_accounts");

  EXPECT_GT(w.wal_bytes_per_second.value_or(-1), 0);
  EXPECT_GE(w.wal_bytes_per_second_peak,
            w.wal_bytes_per_second.value_or(-1) * 0.5);
  EXPECT_GT(w.commits_per_second, 0);
  EXPECT_NEAR(w.duration, 6, 1.5);
  EXPECT_EQ(w.Setting("shared_buffers").value_or(""), "16MB");
  EXPECT_EQ(w.Setting("max_wal_size").value_or(""), "32MB");
  EXPECT_EQ(w.Setting("server_version_num").value_or("").substr(0, 2),
            std::to_string(PgVersionMajor(version())));
  EXPECT_EQ(w.Setting("io_method").has_value(), version() == PgVersion::k18);
  EXPECT_FALSE(w.write_method.empty());
  EXPECT_EQ(!w.io.empty(), version() == PgVersion::k18)
      << "pg_stat_io exists from 16";

  // What observe writes reads back as the same workload.
  Workload back;
  st = ParseWorkload(WorkloadToToml(w), "workload.toml", &back);
  PGLAYOUT_ASSERT_OK(st);
  EXPECT_EQ(WorkloadToToml(back), WorkloadToToml(w));
}

std::string DeviceOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return DeviceNumber(st.st_dev);
}

// observe runs on the server's host here: it records where the data
// directory, pg_wal and a tablespace live, down to st_dev and the mount
// (docs/where-data-lives.md), and the file keeps it.
TEST_P(ObservePgTest, RecordsWhereTheWalAndTablespacesLive) {
  std::unique_ptr<PgCluster> pg;
  PGLAYOUT_ASSERT_OK(StartCluster(SmallServer(), &pg));
  std::string dir;
  PGLAYOUT_ASSERT_OK(pg->MakeDirectory("ts_here", &dir));
  std::unique_ptr<SqlSession> admin;
  PGLAYOUT_ASSERT_OK(pg->Connect(&admin));
  PGLAYOUT_ASSERT_OK(
      ExecuteSql(admin.get(), "CREATE TABLESPACE here LOCATION '" + dir + "'"));

  NullProgress progress;
  ObserveResult result;
  PGLAYOUT_ASSERT_OK(
      ObserveServer(pg->conninfo(), &progress, SixSeconds(), &result));
  const Workload& w = result.workload;
  EXPECT_EQ(w.locations_note,
            "resolved on this host: symlinks followed, st_dev, mount point "
            "and block device");
  const std::string data = std::filesystem::canonical(pg->data_dir());
  const DataLocation* wal = w.FindLocation("pg_wal");
  ASSERT_NE(wal, nullptr);
  EXPECT_EQ(wal->path, w.Setting("data_directory").value_or("") + "/pg_wal");
  ASSERT_TRUE(wal->on.has_value());
  EXPECT_EQ(wal->on->resolved, data + "/pg_wal");
  EXPECT_EQ(wal->on->dev, DeviceOf(data + "/pg_wal"));
  EXPECT_FALSE(wal->on->mount_point.empty());
  const DataLocation* ts = w.FindLocation("tablespace", "here");
  ASSERT_NE(ts, nullptr);
  ASSERT_TRUE(ts->on.has_value());
  EXPECT_EQ(ts->on->resolved, std::filesystem::canonical(dir).string());
  EXPECT_EQ(ts->on->dev, DeviceOf(dir));
  Workload back;  // written and read back as they were
  PGLAYOUT_ASSERT_OK(ParseWorkload(WorkloadToToml(w), "workload.toml", &back));
  ASSERT_NE(back.FindLocation("pg_wal"), nullptr);
  EXPECT_EQ(back.FindLocation("pg_wal")->on->dev, wal->on->dev);
}

// A read-mostly load commits far more often than it flushes WAL: the WAL
// volume serves the flushes, which the server counts from 14 on.
TEST_P(ObservePgTest, AReadMostlyLoadFlushesTheWalLessOftenThanItCommits) {
  std::unique_ptr<PgCluster> pg;
  PGLAYOUT_ASSERT_OK(StartCluster(SmallServer(), &pg));
  std::string output;
  PGLAYOUT_ASSERT_OK(
      pg->RunClient({"pgbench", "-i", "-s", "2", "-q"}, &output));
  std::unique_ptr<BackgroundClient> load;
  PGLAYOUT_ASSERT_OK(
      pg->StartClient({"pgbench", "-n", "-c", "2", "-j", "2", "-T", "120", "-b",
                       "select-only@9", "-b", "simple-update@1"},
                      &load));
  NullProgress progress;
  ObserveResult result;
  Status st = ObserveServer(pg->conninfo(), &progress, SixSeconds(), &result);
  PGLAYOUT_EXPECT_OK(load->Stop(&output));
  PGLAYOUT_ASSERT_OK(st);
  const Workload& w = result.workload;
  ASSERT_GT(w.commits_per_second, 0);
  if (version() == PgVersion::k12) {
    EXPECT_FALSE(w.wal_syncs_per_second.has_value());
    return;
  }
  ASSERT_TRUE(w.wal_syncs_per_second.has_value());
  EXPECT_GT(*w.wal_syncs_per_second, 0);
  // About one transaction in ten writes; group commit can only lower it.
  EXPECT_LT(*w.wal_syncs_per_second, 0.5 * w.commits_per_second)
      << *w.wal_syncs_per_second << " flushes/s, " << w.commits_per_second
      << " commits/s";
}

// An observation around an event: |start| begins it after the first
// sample; once |*done| is set and a sample was taken after that, the
// observation stops. The samples then hold the event whatever the
// machine's load; the observation's duration is only a bound.
class EventWindow : public ProgressSink {
 public:
  EventWindow(std::function<void()> start, const std::atomic<bool>* done,
              std::atomic<bool>* cancel)
      : start_(std::move(start)), done_(done), cancel_(cancel) {}
  void Update(const ProgressUpdate&) override {
    if (!started_) {
      started_ = true;
      start_();
      return;
    }
    // The first sample seen with |done| set may have been read just
    // before it was set; the second was read after.
    if (done_->load() && ++seen_after_ >= 2) cancel_->store(true);
  }
  void Finish(const std::string&, const std::string&) override {}

 private:
  std::function<void()> start_;
  const std::atomic<bool>* done_;
  std::atomic<bool>* cancel_;
  bool started_ = false;
  int seen_after_ = 0;
};

TEST_P(ObservePgTest, BulkInsertIsSeenAsRequestedCheckpointsInViewsAndLog) {
  std::unique_ptr<PgCluster> pg;
  PGLAYOUT_ASSERT_OK(StartCluster(SmallServer(), &pg));
  // ~200 MB of WAL against 32 MB requests checkpoints. The CHECKPOINT
  // after it makes the one the bulk requested finish now (it would spread
  // over checkpoint_timeout) and is requested itself: the views count
  // both, the log has the WAL's one complete.
  std::unique_ptr<BackgroundClient> bulk;
  Status started, waited;
  std::string output;
  std::atomic<bool> done{false}, cancel{false};
  std::thread watcher;
  EventWindow progress(
      [&]() {
        started = pg->StartClient(
            {"psql", "-X", "-v", "ON_ERROR_STOP=1", "-c",
             "CREATE TABLE bulk AS SELECT g, repeat('x', 300) AS pad "
             "FROM generate_series(1, 500000) g",
             "-c", "CHECKPOINT"},
            &bulk);
        if (!started.ok()) {
          done.store(true);
          return;
        }
        watcher = std::thread([&]() {
          waited = bulk->Wait(&output);
          done.store(true);
        });
      },
      &done, &cancel);
  ObserveOptions options;
  options.duration = 300;
  options.interval = 1;
  options.cancel = &cancel;
  ObserveResult result;
  Status st = ObserveServer(pg->conninfo(), &progress, options, &result);
  if (watcher.joinable()) watcher.join();
  PGLAYOUT_ASSERT_OK(started);
  PGLAYOUT_EXPECT_OK(waited) << output;
  PGLAYOUT_ASSERT_OK(st);
  EXPECT_TRUE(cancel.load()) << "the observation ended before the bulk did";

  EXPECT_GE(result.workload.checkpoints.requested, 2)
      << "through "
      << (version() == PgVersion::k18 ? "pg_stat_checkpointer"
                                      : "pg_stat_bgwriter");
  EXPECT_GT(result.workload.wal_bytes_per_second.value_or(-1), 1e6);
  const Relation* table = result.workload.Find("public.bulk");
  ASSERT_NE(table, nullptr) << "created during the observation";
  EXPECT_GT(table->growth_bytes_per_second, 0);
  EXPECT_GT(table->write_iops, 0);

  // The same checkpoints in the server's own log.
  CheckpointLogSummary report;
  PGLAYOUT_ASSERT_OK(ReadCheckpointLogs({pg->log_path()}, &report));
  EXPECT_GE(report.WalTriggered(), 1);
  auto completed = std::count_if(report.events.begin(), report.events.end(),
                                 [](const auto& e) { return e.completed; });
  EXPECT_GE(completed, 2);
  Workload from_log = LogSummaryToWorkload(report);
  EXPECT_GE(from_log.checkpoints.requested, 2);
  EXPECT_GT(from_log.checkpoints.buffers_written, 0);
}

TEST_P(ObservePgTest, CollectsTheFactsTheMigratorNeeds) {
  PgCluster* pg;
  PGLAYOUT_ASSERT_OK(SharedCluster(&pg));
  std::unique_ptr<SqlSession> admin;
  PGLAYOUT_ASSERT_OK(pg->Connect(&admin));
  PGLAYOUT_ASSERT_OK(ExecuteSql(admin.get(), R"sql(
    DROP SCHEMA IF EXISTS obs CASCADE;
    DROP PUBLICATION IF EXISTS obs_pub;
    CREATE SCHEMA obs;
    CREATE TABLE obs.customers (id int PRIMARY KEY, email text UNIQUE);
    CREATE TABLE obs."Order Lines" (
      id bigint GENERATED ALWAYS AS IDENTITY,
      region int, customer int REFERENCES obs.customers,
      PRIMARY KEY (region, id), UNIQUE (id, region));
    CREATE TABLE obs.notes (line bigint, region int,
      FOREIGN KEY (region, line) REFERENCES obs."Order Lines");
    CREATE VIEW obs.big_lines AS SELECT * FROM obs."Order Lines" WHERE id > 10;
    CREATE FUNCTION obs.noop() RETURNS trigger LANGUAGE plpgsql
      AS 'BEGIN RETURN NEW; END';
    CREATE TRIGGER audit BEFORE INSERT ON obs."Order Lines"
      FOR EACH ROW EXECUTE FUNCTION obs.noop();
    ALTER TABLE obs."Order Lines" REPLICA IDENTITY FULL;
    CREATE PUBLICATION obs_pub FOR TABLE obs."Order Lines";
  )sql"));

  Observing o;
  std::vector<RelationInfo> relations;
  PGLAYOUT_ASSERT_OK(o.Open(pg->conninfo(), &relations));
  SqlSession* session = o.session.get();
  StatsSource* source = o.source.get();
  auto lines = std::find_if(
      relations.begin(), relations.end(),
      [](const auto& r) { return r.name == "obs.\"Order Lines\""; });
  ASSERT_NE(lines, relations.end());
  Relation r;
  PGLAYOUT_ASSERT_OK(source->ReadFacts(*lines, &r));
  EXPECT_EQ(r.primary_key, (std::vector<std::string>{"region", "id"}));
  EXPECT_EQ(r.unique_keys,
            (std::vector<std::vector<std::string>>{{"id", "region"}}));
  ASSERT_EQ(r.foreign_keys_out.size(), 1u);
  // With the columns of both sides, quoted as identifiers: what a Citus
  // distribution pairs (planner/citus_plan.h).
  EXPECT_EQ(r.foreign_keys_out[0],
            "Order Lines_customer_fkey (customer) -> obs.customers (id)");
  ASSERT_EQ(r.foreign_keys_in.size(), 1u);
  EXPECT_EQ(r.foreign_keys_in[0].rfind("obs.notes.", 0), 0u)
      << r.foreign_keys_in[0];
  EXPECT_EQ(r.dependent_views, std::vector<std::string>{"obs.big_lines"});
  EXPECT_EQ(r.triggers, std::vector<std::string>{"audit"});
  EXPECT_EQ(r.identity_columns, std::vector<std::string>{"id"});
  EXPECT_EQ(r.publications, std::vector<std::string>{"obs_pub"});
  // The type of each key column (Citus co-locates by it), in column order:
  // the primary key's, the unique key's and the foreign key's.
  EXPECT_EQ(
      r.column_types,
      (std::vector<std::vector<std::string>>{
          {"id", "bigint"}, {"region", "integer"}, {"customer", "integer"}}));
  EXPECT_EQ(r.replica_identity, ReplicaIdentity::kFull);
  EXPECT_EQ(r.persistence, Persistence::kPermanent);
  EXPECT_FALSE(r.partitioned);

  // The TOAST relation of obs.customers (text column) and the TOAST
  // relation's index are both TOAST of obs.customers: the index's own table
  // is the TOAST relation, which plan could not place.
  std::vector<std::string> toast_of_customers;
  for (const RelationInfo& c : relations) {
    if (c.table == "obs.customers" && c.kind == RelationKind::kToast) {
      toast_of_customers.push_back(c.name);
    }
    EXPECT_NE(c.table.rfind("pg_toast.", 0), 0u) << c.name << " -> " << c.table;
  }
  ASSERT_EQ(toast_of_customers.size(), 2u);
  std::sort(toast_of_customers.begin(), toast_of_customers.end());
  EXPECT_EQ(toast_of_customers[0].rfind("pg_toast.pg_toast_", 0), 0u);
  EXPECT_EQ(toast_of_customers[1], toast_of_customers[0] + "_index");

  // The observing session refuses to write.
  Status write = ExecuteSql(session, "CREATE TABLE obs.nope (a int)");
  EXPECT_FALSE(write.ok());
  EXPECT_EQ(session->last_sqlstate(), "25006") << write.ToString();

  PGLAYOUT_EXPECT_OK(ExecuteSql(
      admin.get(), "DROP SCHEMA obs CASCADE; DROP PUBLICATION obs_pub"));
}

// A partition names the root of its tree (two levels here): the table a
// Citus distribution distributes, partitions included; and its parent,
// whose key its bound belongs to (the split's key).
TEST_P(ObservePgTest, APartitionNamesTheRootOfItsTreeAndItsParent) {
  PgCluster* pg;
  PGLAYOUT_ASSERT_OK(SharedCluster(&pg));
  std::unique_ptr<SqlSession> admin;
  PGLAYOUT_ASSERT_OK(pg->Connect(&admin));
  PGLAYOUT_ASSERT_OK(ExecuteSql(admin.get(), R"sql(
    DROP SCHEMA IF EXISTS parts CASCADE;
    CREATE SCHEMA parts;
    CREATE TABLE parts."Events" (tenant int, id int, at date,
      PRIMARY KEY (tenant, id, at)) PARTITION BY RANGE (at);
    CREATE TABLE parts.e2025 PARTITION OF parts."Events"
      FOR VALUES FROM ('2025-01-01') TO ('2026-01-01')
      PARTITION BY HASH (tenant);
    CREATE TABLE parts.e2025_h0 PARTITION OF parts.e2025
      FOR VALUES WITH (MODULUS 1, REMAINDER 0);
    CREATE TABLE parts.plain (id int PRIMARY KEY);
  )sql"));
  Observing o;
  std::vector<RelationInfo> relations;
  PGLAYOUT_ASSERT_OK(o.Open(pg->conninfo(), &relations));
  std::map<std::string, std::string> root, parent;
  for (const RelationInfo& r : relations) {
    if (r.name.rfind("parts.", 0) != 0) continue;
    root[r.name] = r.partition_of;
    parent[r.name] = r.partition_parent;
  }
  EXPECT_EQ(parent["parts.e2025"], "parts.\"Events\"");
  EXPECT_EQ(parent["parts.e2025_h0"], "parts.e2025");
  EXPECT_EQ(parent["parts.plain"], "");
  EXPECT_EQ(parent["parts.e2025_h0_pkey"], "");
  EXPECT_EQ(root["parts.\"Events\""], "");
  EXPECT_EQ(root["parts.e2025"], "parts.\"Events\"");
  EXPECT_EQ(root["parts.e2025_h0"], "parts.\"Events\"");
  EXPECT_EQ(root["parts.plain"], "");
  EXPECT_EQ(root["parts.e2025_h0_pkey"], "");  // an index partition: none
  PGLAYOUT_ASSERT_OK(ExecuteSql(admin.get(), "DROP SCHEMA parts CASCADE"));
}

TEST_P(ObservePgTest, AnUnprivilegedRoleCanObserve) {
  PgCluster* pg;
  PGLAYOUT_ASSERT_OK(SharedCluster(&pg));
  std::unique_ptr<SqlSession> admin;
  PGLAYOUT_ASSERT_OK(pg->Connect(&admin));
  PGLAYOUT_ASSERT_OK(ExecuteSql(admin.get(),
                                "DROP ROLE IF EXISTS obs_watcher; "
                                "CREATE ROLE obs_watcher LOGIN"));
  ObserveOptions options;
  options.duration = 2;
  options.interval = 1;
  NullProgress progress;
  ObserveResult result;
  Status st = ObserveServer(pg->conninfo() + " user=obs_watcher", &progress,
                            options, &result);
  PGLAYOUT_EXPECT_OK(st);
  EXPECT_FALSE(result.workload.Setting("data_directory").has_value())
      << "needs pg_read_all_settings, so it is left out";
  EXPECT_TRUE(result.workload.Setting("max_wal_size").has_value());
  PGLAYOUT_EXPECT_OK(ExecuteSql(admin.get(), "DROP ROLE obs_watcher"));
}

// A standby under a read load while the primary takes writes: observe on
// the standby sees the standby's own reads and the WAL it replays, marks
// the workload as taken in recovery, and changes neither server.
TEST_P(ObservePgTest, ObservesAStandbyAndChangesNeitherServer) {
  std::unique_ptr<PgCluster> primary, standby;
  PGLAYOUT_ASSERT_OK(StartCluster(SmallServer(), &primary));
  std::string output;
  PGLAYOUT_ASSERT_OK(
      primary->RunClient({"pgbench", "-i", "-s", "5", "-q"}, &output));
  PGLAYOUT_ASSERT_OK(PgCluster::StartStandby(*primary, &standby));
  std::unique_ptr<SqlSession> on_primary, on_standby;
  PGLAYOUT_ASSERT_OK(primary->Connect(&on_primary));
  PGLAYOUT_ASSERT_OK(standby->Connect(&on_standby));
  // A restartpoint requested on the standby, counted where the observer
  // must look: pg_stat_checkpointer's restartpoints_req on 17+ (num_requested
  // stays 0 there), pg_stat_bgwriter's checkpoints_req before. The
  // checkpointer reports it just after CHECKPOINT returns.
  PGLAYOUT_ASSERT_OK(ExecuteSql(on_standby.get(), "CHECKPOINT"));
  const char* requested_sql =
      version() == PgVersion::k18
          ? "SELECT restartpoints_req > 0 FROM pg_stat_checkpointer"
          : "SELECT checkpoints_req > 0 FROM pg_stat_bgwriter";
  for (int i = 0; i < 100 && Value(on_standby.get(), requested_sql) != "t";
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(Value(on_standby.get(), requested_sql), "t");
  std::string primary_before = Fingerprint(on_primary.get());
  std::string standby_before = Fingerprint(on_standby.get());

  std::unique_ptr<BackgroundClient> writes, reads;
  PGLAYOUT_ASSERT_OK(
      primary->StartClient({"pgbench", "-n", "-c", "2", "-T", "120"}, &writes));
  PGLAYOUT_ASSERT_OK(standby->StartClient(
      {"pgbench", "-n", "-S", "-c", "2", "-T", "120"}, &reads));
  NullProgress progress;
  ObserveResult result;
  Status st =
      ObserveServer(standby->conninfo(), &progress, SixSeconds(), &result);
  PGLAYOUT_EXPECT_OK(reads->Stop(&output));
  PGLAYOUT_EXPECT_OK(writes->Stop(&output));
  PGLAYOUT_ASSERT_OK(st);

  EXPECT_TRUE(result.server.in_recovery);
  EXPECT_GE(result.server.checkpoints_since_reset.requested, 1);
  const Workload& w = result.workload;
  EXPECT_TRUE(w.in_recovery);
  const Relation* accounts = w.Find("public.pgbench_accounts");
  ASSERT_NE(accounts, nullptr);
  EXPECT_GT(accounts->read_iops, 0) << "pgbench -S on the standby";
  EXPECT_GT(accounts->size, 50u * 1024 * 1024);
  EXPECT_EQ(accounts->updates_per_second, 0)
      << "replayed updates are not the standby's tuple changes";
  EXPECT_EQ(accounts->primary_key, std::vector<std::string>{"aid"});
  EXPECT_GT(w.wal_bytes_per_second.value_or(-1), 0)
      << "replay of the primary's pgbench";
  EXPECT_GT(w.commits_per_second, 0);
  std::string toml = WorkloadToToml(w);
  EXPECT_NE(toml.find("[server]\nin_recovery = true\n"), std::string::npos)
      << toml;
  Workload back;
  PGLAYOUT_ASSERT_OK(ParseWorkload(toml, "workload.toml", &back));
  EXPECT_TRUE(back.in_recovery);
  std::string diagnosis =
      FormatDiagnosis(DiagnoseLive(result), result.workload, 5);
  EXPECT_NE(diagnosis.find("checkpoints on a standby are restartpoints"),
            std::string::npos)
      << diagnosis;

  EXPECT_EQ(Value(on_standby.get(), "SELECT pg_is_in_recovery()"), "t");
  EXPECT_EQ(Fingerprint(on_primary.get()), primary_before);
  EXPECT_EQ(Fingerprint(on_standby.get()), standby_before);
}

// Relation::size counts every fork: after VACUUM a table has a free space
// map and a visibility map beside its main fork. Its TOAST relation and
// its index keep rows of their own and are not counted in the table's.
TEST_P(ObservePgTest, SizesCountEveryForkOfEachRelation) {
  PgCluster* pg;
  PGLAYOUT_ASSERT_OK(SharedCluster(&pg));
  std::unique_ptr<SqlSession> admin;
  PGLAYOUT_ASSERT_OK(pg->Connect(&admin));
  PGLAYOUT_ASSERT_OK(ExecuteSql(admin.get(), R"sql(
    DROP SCHEMA IF EXISTS sizes CASCADE;
    CREATE SCHEMA sizes;
    CREATE TABLE sizes.t (id int PRIMARY KEY, doc text);
    ALTER TABLE sizes.t ALTER doc SET STORAGE EXTERNAL;
    INSERT INTO sizes.t SELECT g, CASE WHEN g <= 300 THEN repeat('x', 3000) END
      FROM generate_series(1, 20000) g;
    DELETE FROM sizes.t WHERE id % 2 = 0;
  )sql"));
  PGLAYOUT_ASSERT_OK(ExecuteSql(admin.get(), "VACUUM sizes.t"));

  Observing o;
  std::vector<RelationInfo> relations;
  PGLAYOUT_ASSERT_OK(o.Open(pg->conninfo(), &relations));
  StatsSource* source = o.source.get();
  Sample sample;
  bool skipped = true;
  PGLAYOUT_ASSERT_OK(source->ReadSample(&sample, &skipped));
  ASSERT_FALSE(skipped);
  auto size_of = [&](const std::function<bool(const RelationInfo&)>& match) {
    auto it = std::find_if(relations.begin(), relations.end(), match);
    EXPECT_NE(it, relations.end());
    return it == relations.end()
               ? std::string("<missing>")
               : std::to_string(sample.relations[it->oid].size);
  };

  // The table: pg_table_size() minus the TOAST relation with its index.
  std::string table =
      size_of([](const auto& r) { return r.name == "sizes.t"; });
  EXPECT_EQ(table, Value(admin.get(),
                         "SELECT pg_table_size(oid) - "
                         "pg_total_relation_size(reltoastrelid) "
                         "FROM pg_class WHERE oid = 'sizes.t'::regclass"));
  EXPECT_GT(std::stoull(table),
            std::stoull(Value(admin.get(),
                              "SELECT pg_relation_size('sizes.t', 'main')")))
      << "VACUUM made a free space map and a visibility map";
  // TOAST and the index: all their forks, and nothing else.
  // The TOAST relation and its index are both TOAST of sizes.t.
  auto toast_of_t = [](const RelationInfo& r) {
    return r.kind == RelationKind::kToast && r.table == "sizes.t";
  };
  EXPECT_EQ(size_of([&](const auto& r) {
              return toast_of_t(r) && !r.name.ends_with("_index");
            }),
            Value(admin.get(),
                  "SELECT pg_relation_size(reltoastrelid, 'main') + "
                  "pg_relation_size(reltoastrelid, 'fsm') + "
                  "pg_relation_size(reltoastrelid, 'vm') FROM pg_class "
                  "WHERE oid = 'sizes.t'::regclass"));
  EXPECT_EQ(size_of([&](const auto& r) {
              return toast_of_t(r) && r.name.ends_with("_index");
            }),
            Value(admin.get(),
                  "SELECT pg_table_size(i.indexrelid) FROM pg_class c "
                  "JOIN pg_index i ON i.indrelid = c.reltoastrelid "
                  "WHERE c.oid = 'sizes.t'::regclass"));
  EXPECT_EQ(size_of([](const auto& r) { return r.name == "sizes.t_pkey"; }),
            Value(admin.get(), "SELECT pg_table_size('sizes.t_pkey')"));

  PGLAYOUT_EXPECT_OK(ExecuteSql(admin.get(), "DROP SCHEMA sizes CASCADE"));
}

// pglayout's journal, the old copies kept until --finalize and the shadow
// of a migration in progress, with their indexes and TOAST, are not
// workload: after one migration they were most of the relations observed.
TEST_P(ObservePgTest, LeavesOutPglayoutsOwnRelations) {
  PgCluster* pg;
  PGLAYOUT_ASSERT_OK(SharedCluster(&pg));
  std::unique_ptr<SqlSession> admin;
  PGLAYOUT_ASSERT_OK(pg->Connect(&admin));
  PGLAYOUT_ASSERT_OK(ExecuteSql(admin.get(), R"sql(
    DROP SCHEMA IF EXISTS pglayout CASCADE;
    DROP SCHEMA IF EXISTS own CASCADE;
    CREATE SCHEMA pglayout;
    CREATE TABLE pglayout.journal (id int PRIMARY KEY, detail text);
    CREATE TABLE pglayout.old_16500 (id int PRIMARY KEY, body text);
    CREATE SCHEMA own;
    CREATE TABLE own.docs (id int PRIMARY KEY, body text);
    CREATE TABLE own.pglayout_new_16501 (id int PRIMARY KEY, body text);
    CREATE TABLE own.pglayoutish (id int PRIMARY KEY);
  )sql"));

  Observing o;
  std::vector<RelationInfo> relations;
  PGLAYOUT_ASSERT_OK(o.Open(pg->conninfo(), &relations));
  std::vector<std::string> own;
  for (const RelationInfo& r : relations) {
    EXPECT_EQ(r.name.find("pglayout."), std::string::npos) << r.name;
    EXPECT_EQ(r.table.find("pglayout."), std::string::npos) << r.name;
    EXPECT_EQ(r.name.find("pglayout_new_"), std::string::npos) << r.name;
    EXPECT_EQ(r.table.find("pglayout_new_"), std::string::npos) << r.name;
    if (r.name.starts_with("own.") || r.table.starts_with("own.")) {
      own.push_back(r.kind == RelationKind::kToast ? "toast of " + r.table
                                                   : r.name);
    }
  }
  std::sort(own.begin(), own.end());
  EXPECT_EQ(own, (std::vector<std::string>{
                     "own.docs", "own.docs_pkey", "own.pglayoutish",
                     "own.pglayoutish_pkey", "toast of own.docs",
                     "toast of own.docs"}));

  PGLAYOUT_EXPECT_OK(ExecuteSql(
      admin.get(), "DROP SCHEMA pglayout CASCADE; DROP SCHEMA own CASCADE"));
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS_FROM_12(ObservePgTest);

// A TCP port nobody listens on (bound, then released).
int UnusedPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

TEST(ObserveServer, ConnectionFailureNamesHostAndPortButNotThePassword) {
  int port = UnusedPort();
  NullProgress progress;
  ObserveResult result;
  Status st = ObserveServer(
      "host=127.0.0.1 port=" + std::to_string(port) +
          " user=monitor password=hunter2-secret connect_timeout=3",
      &progress, SixSeconds(), &result);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("127.0.0.1"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find(std::to_string(port)), std::string::npos)
      << st.message();
  EXPECT_EQ(st.message().find("hunter2"), std::string::npos) << st.message();
}

TEST(ObserveServer, BadOptionsFailBeforeConnecting) {
  ObserveOptions o;
  o.duration = 1;
  o.interval = 1;
  NullProgress progress;
  ObserveResult result;
  Status st =
      ObserveServer("host=192.0.2.1 connect_timeout=30", &progress, o, &result);
  EXPECT_TRUE(st.IsInvalidInput()) << st.ToString();
}

}  // namespace
}  // namespace pglayout
