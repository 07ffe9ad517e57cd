// Unit tests of the pure parts (preflight, step planner, SQL generators) and
// of the executor's transactions and lock retries over a fake session.

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "common/units.h"
#include "migrator/executor.h"
#include "migrator/guard_restore.h"
#include "migrator/online_sql.h"
#include "migrator/preflight.h"
#include "migrator/sql_util.h"
#include "migrator/steps.h"
#include "testing/fake_sql_session.h"

namespace pglayout::migrator {
namespace {

ServerFacts Server(int version = 150000) {
  ServerFacts s;
  s.version_num = version;
  s.superuser = true;
  s.create_db_privilege = true;
  s.user = "postgres";
  s.database = "app";
  s.data_directory = "/pg/data";
  s.tablespaces = {{"pg_default", ""}, {"pg_global", ""}};
  s.path_is_directory["/vol/a"] = true;
  s.path_entries["/vol/a"] = {};
  s.settings = {{"max_wal_size", "1024"},
                {"checkpoint_completion_target", "0.9"}};
  s.setting_units = {{"max_wal_size", "MB"}};
  s.setting_contexts = {{"work_mem", "user"}, {"shared_buffers", "postmaster"}};
  return s;
}

TableFacts Orders() {
  TableFacts t;
  t.exists = true;
  t.oid = 16384;
  t.schema = "public";
  t.name = "orders";
  t.owner = "app";
  t.heap_size = 800 * kMiB;
  t.index_size = 200 * kMiB;
  t.reltuples = 1e6;
  t.columns = {{"id",
                "bigint",
                true,
                0,
                0,
                -1,
                {},
                "pg_catalog.hashint8extended",
                "pg_catalog.int8",
                ""},
               {"customer",
                "integer",
                true,
                0,
                0,
                -1,
                {},
                "pg_catalog.hashint4extended",
                "pg_catalog.int4",
                ""},
               {"email",
                "text",
                false,
                0,
                0,
                -1,
                {},
                "pg_catalog.hashtextextended",
                "pg_catalog.text",
                ""}};
  IndexFacts pk;
  pk.name = "orders_pkey";
  pk.unique = pk.primary = true;
  pk.constraint = "orders_pkey";
  pk.constraint_type = 'p';
  pk.columns = {"id"};
  pk.using_clause = "USING btree (id)";
  pk.size = 100 * kMiB;
  IndexFacts by_customer;
  by_customer.name = "orders_customer";
  by_customer.columns = {"customer"};
  by_customer.using_clause = "USING btree (customer)";
  by_customer.size = 100 * kMiB;
  t.indexes = {pk, by_customer};
  t.row_key = {"id"};
  t.row_key_index = "orders_pkey";
  return t;
}

Plan HashPlan() {
  Plan p;
  p.tablespaces = {{"a", "/vol/a", "d1", {{"random_page_cost", "1.1"}}}};
  Placement pl;
  pl.relation = "public.orders";
  pl.strategy = Strategy::kHashPartition;
  pl.tablespaces = {"a", "pg_default"};
  pl.partitions = 2;
  pl.key = {"id"};
  p.placements = {pl};
  p.settings = {{"work_mem", "64MB", "", ""}};
  return p;
}

struct PreflightCase {
  Plan plan = HashPlan();
  ServerFacts server = Server();
  std::map<std::string, TableFacts> tables = {{"public.orders", Orders()}};
  std::map<std::string, uint64_t> free = {{"/vol/a", 100 * kGiB},
                                          {"/pg/data", 100 * kGiB}};

  PreflightInput Input() const {
    PreflightInput in;
    in.plan = &plan;
    in.server = &server;
    in.tables = &tables;
    in.free_bytes = free;
    return in;
  }
  std::vector<Finding> Run() const { return RunPreflight(Input()); }
  // All refusals, one per line, for substring assertions.
  std::string Refusals() const {
    std::string out;
    for (const Finding& f : Run()) {
      if (f.severity == Finding::Severity::kRefusal) out += f.ToString() + "\n";
    }
    return out;
  }
};

TEST(Preflight, AcceptsAFeasiblePlan) {
  PreflightCase c;
  EXPECT_EQ(c.Refusals(), "");
}

TEST(Preflight, RefusesAReplica) {
  PreflightCase c;
  c.server.in_recovery = true;
  EXPECT_NE(c.Refusals().find("server: the server is in recovery (a standby)"),
            std::string::npos)
      << c.Refusals();
}

TEST(Preflight, RefusesANonSuperuserNamingWhatItLacks) {
  PreflightCase c;
  c.server.superuser = false;
  c.server.user = "app";
  std::string r = c.Refusals();
  EXPECT_NE(r.find("tablespace a: CREATE TABLESPACE needs a superuser; role "
                   "app is not one"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("setting work_mem: ALTER SYSTEM needs a superuser"),
            std::string::npos)
      << r;
}

// An offline move by a role that is not a superuser: the owner's
// privileges and CREATE on an existing target tablespace, each named; the
// database's CREATE only when schema pglayout is still to be made.
TEST(Preflight, RefusesAnOfflineMoveWithoutTheOwnersPrivilegesOrCreate) {
  PreflightCase c;
  c.server.superuser = false;
  c.server.user = "app";
  c.server.create_db_privilege = false;
  c.server.tablespaces.push_back({"fast", "/vol/fast"});
  c.server.tablespaces_without_create = {"fast"};
  c.free["/vol/fast"] = 100 * kGiB;
  c.plan = Plan();
  c.plan.tablespaces = {{"fast", "/vol/fast", "d1", {}}};
  Placement move;
  move.relation = "public.orders";
  move.strategy = Strategy::kMove;
  move.online = false;
  move.tablespaces = {"fast"};
  c.plan.placements = {move};
  c.tables["public.orders"].owner = "owner";
  c.tables["public.orders"].owner_privileges = false;
  std::string r = c.Refusals();
  EXPECT_NE(r.find("public.orders: role app is neither its owner (owner) nor "
                   "a member of that role"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("tablespace fast: role app lacks CREATE on it, needed to "
                   "move public.orders there"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("lacks CREATE on database"), std::string::npos) << r;

  c.tables["public.orders"].owner_privileges = true;
  c.server.tablespaces_without_create.clear();
  c.server.journal_schema_exists = true;
  EXPECT_EQ(c.Refusals(), "");
}

TEST(Preflight, RefusesATableWithoutPrimaryKey) {
  PreflightCase c;
  TableFacts& t = c.tables["public.orders"];
  t.indexes.erase(t.indexes.begin());
  t.row_key.clear();
  t.row_key_index.clear();
  EXPECT_NE(c.Refusals().find("public.orders: has no primary key"),
            std::string::npos)
      << c.Refusals();
}

TEST(Preflight, RefusesATableLockedByAPreparedTransaction) {
  PreflightCase c;
  c.tables["public.orders"].prepared_xacts = {"'tx 1'"};
  EXPECT_NE(c.Refusals().find("public.orders: prepared transaction 'tx 1' "
                              "holds a lock on it"),
            std::string::npos)
      << c.Refusals();
}

// Code of other roles (docs/security.md#code-of-other-roles): refused for
// the hash conversion and the online move, each with its way out; an
// offline move evaluates nothing and goes ahead.
TEST(Preflight, RefusesCodeOfAnotherRoleNamingTheWayOut) {
  PreflightCase c;
  c.tables["public.orders"].untrusted_code = {
      {"constraint orders_c", "public.wrap(integer)", "app"}};
  std::string r = c.Refusals();
  EXPECT_NE(r.find("public.orders: constraint orders_c calls function "
                   "public.wrap(integer), owned by role \"app\", which is "
                   "not a superuser: the hash conversion would run it"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("ALTER FUNCTION public.wrap(integer) OWNER TO"),
            std::string::npos)
      << r;
  EXPECT_EQ(r.find("online = false"), std::string::npos) << r;

  Placement& p = c.plan.placements[0];
  p.strategy = Strategy::kMove;
  p.tablespaces = {"a"};
  p.partitions = 0;
  p.key.clear();
  r = c.Refusals();
  EXPECT_NE(r.find("the online move would run it"), std::string::npos) << r;
  EXPECT_NE(r.find("online = false"), std::string::npos) << r;

  p.online = false;
  EXPECT_EQ(c.Refusals(), "");
}

TEST(Preflight, RefusesAnInactiveSlotThatCouldFillTheWalVolume) {
  PreflightCase c;
  c.tables["public.orders"].heap_size = 10 * kGiB;
  c.server.replication_slots = {{"standby1", false, "extended", 2 * kGiB},
                                {"live", true, "reserved", 0}};
  PreflightInput in = c.Input();
  in.wal_free_bytes = 40 * kGiB;  // 30 GiB of WAL + 2 kept > half of it
  auto refusals = [&]() {
    std::string out;
    for (const Finding& f : RunPreflight(in)) out += f.ToString() + "\n";
    return out;
  };
  EXPECT_NE(refusals().find("replication slot standby1: is inactive and keeps "
                            "all WAL ("),
            std::string::npos)
      << refusals();
  EXPECT_EQ(refusals().find("replication slot live"), std::string::npos);
  c.server.max_slot_wal_keep_size_mb = 1024;  // bounded: only a warning
  EXPECT_FALSE(HasRefusal(RunPreflight(in))) << refusals();
  EXPECT_NE(refusals().find("standby1: is inactive: it keeps"),
            std::string::npos)
      << refusals();
}

TEST(Preflight, RefusesAUniqueConstraintWithoutTheKey) {
  PreflightCase c;
  IndexFacts u;
  u.name = "orders_email_key";
  u.unique = true;
  u.constraint_type = 'u';
  u.columns = {"email"};
  c.tables["public.orders"].indexes.push_back(u);
  EXPECT_NE(c.Refusals().find("unique index orders_email_key (email) does not "
                              "contain the partition key column(s) id"),
            std::string::npos)
      << c.Refusals();
}

TEST(Preflight, RefusesAMissingTablespaceDirectory) {
  PreflightCase c;
  c.server.path_is_directory.clear();
  EXPECT_NE(
      c.Refusals().find("tablespace a: directory '/vol/a' does not exist"),
      std::string::npos)
      << c.Refusals();
}

TEST(Preflight, RefusesADirectoryAlreadyUsedByATablespace) {
  PreflightCase c;
  c.server.path_entries["/vol/a"] = {"PG_15_202209061"};
  EXPECT_NE(c.Refusals().find("already in use by a tablespace"),
            std::string::npos);
}

TEST(Preflight, RefusesAnExistingTablespaceElsewhere) {
  PreflightCase c;
  c.server.tablespaces.push_back({"a", "/elsewhere"});
  EXPECT_NE(c.Refusals().find("tablespace a: already exists at '/elsewhere', "
                              "the plan says '/vol/a'"),
            std::string::npos)
      << c.Refusals();
}

TEST(Preflight, AcceptsAnExistingTablespaceAtTheSamePlace) {
  PreflightCase c;
  c.server.tablespaces.push_back({"a", "/vol/a"});
  c.server.superuser = true;
  EXPECT_EQ(c.Refusals(), "");
}

TEST(Preflight, RefusesAMissingRelation) {
  PreflightCase c;
  c.tables.clear();
  EXPECT_NE(c.Refusals().find("public.orders: relation does not exist"),
            std::string::npos);
}

TEST(Preflight, RefusesOldServersAndAnotherRun) {
  PreflightCase c;
  c.server.version_num = 110000;
  c.server.lock_holder = "pid 42 (pglayout-migrate/run3/main)";
  std::string r = c.Refusals();
  EXPECT_NE(r.find("PostgreSQL 110000 is not supported"), std::string::npos);
  EXPECT_NE(r.find("another pglayout migrate is running on this database: pid "
                   "42"),
            std::string::npos);
}

TEST(Preflight, RefusesWhenATargetVolumeIsTooSmall) {
  PreflightCase c;
  c.free["/vol/a"] = 100 * kMiB;  // half of 1 GiB x 1.2 does not fit
  EXPECT_NE(c.Refusals().find("tablespace a: needs 600 MiB"), std::string::npos)
      << c.Refusals();
}

// An index build whose sort outgrows its memory spills about the index's
// size into the temp tablespace, which may be a target too
// (docs/online-migration.md#sort-spill).
TEST(Preflight, CountsTheIndexBuildsSortFilesInTheTempTablespace) {
  PreflightCase c;
  c.server.temp_tablespaces = {"a"};
  c.free["/vol/a"] = 600 * kMiB;  // 500 MiB of copies x 1.2 fit, no more
  std::set<std::string> resumed;  // started, indexes still ahead
  auto refusals = [&](uint64_t sort_memory) {
    PreflightInput in = c.Input();
    in.sort_memory = sort_memory;
    in.started_relations = in.sorts_ahead = resumed;
    std::string out;
    for (const Finding& f : RunPreflight(in)) {
      if (f.severity == Finding::Severity::kRefusal) out += f.ToString() + "\n";
    }
    return out;
  };
  // 50 MiB per partition's index sorts in 512 MiB of memory.
  EXPECT_EQ(refusals(512 * kMiB), "");
  // Not in 64 MiB: 550 MiB x 1.2 do not fit.
  EXPECT_NE(refusals(64 * kMiB).find(
                "tablespace a: needs 660 MiB (500 MiB of copies + 50 MiB of "
                "index-build sort files (temp_tablespaces) + 20% margin) but "
                "'/vol/a' has 600 MiB free; point temp_tablespaces at a volume "
                "with room"),
            std::string::npos)
      << refusals(64 * kMiB);
  // Unless the server's own maintenance_work_mem is larger.
  c.server.settings["maintenance_work_mem"] = "131072";
  c.server.setting_units["maintenance_work_mem"] = "kB";
  EXPECT_EQ(refusals(64 * kMiB), "");
  c.server.settings.erase("maintenance_work_mem");
  // Temp files go to any of temp_tablespaces: each needs the room.
  c.server.temp_tablespaces = {"a", "pg_default"};
  c.free["/pg/data"] = 620 * kMiB;
  std::string both = refusals(64 * kMiB);
  EXPECT_NE(both.find("tablespace a: needs 660 MiB"), std::string::npos)
      << both;
  EXPECT_NE(both.find("tablespace pg_default: needs 660 MiB"),
            std::string::npos)
      << both;
  // Elsewhere than a the sort files need room of their own; the hint only
  // when the copies would fit without them.
  c.server.temp_tablespaces = {"pg_default"};
  EXPECT_NE(refusals(64 * kMiB).find("tablespace pg_default: needs 660 MiB "
                                     "(500 MiB of copies + 50 MiB of "
                                     "index-build sort files "
                                     "(temp_tablespaces) + 20% margin) but "
                                     "'/pg/data' has 620 MiB free; point"),
            std::string::npos)
      << refusals(64 * kMiB);
  EXPECT_EQ(refusals(64 * kMiB).find("tablespace a:"), std::string::npos);
  c.free["/pg/data"] = 560 * kMiB;
  EXPECT_EQ(refusals(64 * kMiB).find("point temp_tablespaces"),
            std::string::npos)
      << refusals(64 * kMiB);
  // A resumed copy has its copies behind it and its index builds ahead.
  c.free["/pg/data"] = 50 * kMiB;
  resumed = {"public.orders"};
  EXPECT_EQ(refusals(64 * kMiB),
            "tablespace pg_default: needs 60 MiB (50 MiB of index-build sort "
            "files (temp_tablespaces) + 20% margin) but '/pg/data' has 50 MiB "
            "free; point temp_tablespaces at a volume with room (ALTER ROLE "
            "... SET temp_tablespaces)\n");
  resumed.clear();
  // An offline move builds no index.
  c.plan.placements[0].strategy = Strategy::kMove;
  c.plan.placements[0].tablespaces = {"b"};
  c.plan.placements[0].online = false;
  c.plan.tablespaces.push_back({"b", "/vol/b", "", {}});
  c.server.path_is_directory["/vol/b"] = true;
  c.server.path_entries["/vol/b"] = {};
  c.free["/vol/b"] = 2 * kGiB;
  c.free["/pg/data"] = 1 * kMiB;
  EXPECT_EQ(refusals(64 * kMiB), "");
  // REINDEX CONCURRENTLY sorts in the server's maintenance_work_mem (64
  // MiB), whatever the copies' sort memory.
  TableFacts index;
  index.exists = true;
  index.kind = 'i';
  index.schema = "public";
  index.name = "orders_customer";
  index.heap_size = 100 * kMiB;
  c.tables["public.orders_customer"] = index;
  Placement move_index;
  move_index.relation = "public.orders_customer";
  move_index.strategy = Strategy::kMove;
  move_index.tablespaces = {"b"};
  c.plan.placements.push_back(move_index);
  c.server.settings["maintenance_work_mem"] = "65536";
  c.server.setting_units["maintenance_work_mem"] = "kB";
  EXPECT_NE(refusals(1 * kGiB).find("tablespace pg_default: needs 120 MiB "
                                    "(100 MiB of index-build sort files"),
            std::string::npos)
      << refusals(1 * kGiB);
}

TEST(Preflight, RefusesPublicationsAndOutgoingForeignKeysBefore18) {
  PreflightCase c;
  c.tables["public.orders"].publications = {"all_tables"};
  c.tables["public.orders"].fks_out = {
      {"orders_customer_fkey", "public.customers", "FOREIGN KEY ..."}};
  std::string r = c.Refusals();
  EXPECT_NE(r.find("is published by publication all_tables"),
            std::string::npos);
  EXPECT_NE(r.find("foreign key orders_customer_fkey references "
                   "public.customers"),
            std::string::npos);
  c.server.version_num = 180000;
  c.tables["public.orders"].publications.clear();
  EXPECT_EQ(c.Refusals(), "");
}

TEST(Preflight, NewTablespacesWaitForTheStandbysDirectories) {
  PreflightCase c;
  c.server.streaming_standbys = {"replica1 at 10.0.0.7"};
  std::string r = c.Refusals();
  EXPECT_NE(r.find("tablespace a: standby replica1 at 10.0.0.7 streams from "
                   "this server and would stop replaying at CREATE "
                   "TABLESPACE unless directory '/vol/a' exists on its host "
                   "too"),
            std::string::npos)
      << r;
  PreflightInput in = c.Input();
  in.standby_dirs_ready = true;
  EXPECT_FALSE(HasRefusal(RunPreflight(in)));
}

TEST(Preflight, RefusesAnOnlineCopyOfASubscribedTable) {
  PreflightCase c;
  c.tables["public.orders"].subscriptions = {"from_oltp"};
  EXPECT_NE(c.Refusals().find("public.orders: receives logical replication "
                              "from subscription from_oltp: after a rename "
                              "swap it would silently stop applying changes"),
            std::string::npos)
      << c.Refusals();
  c.tables["public.orders"].subscriptions.clear();
  EXPECT_EQ(c.Refusals(), "");
}

TEST(Preflight, RefusesObjectsOfOtherTablesBoundToTheTable) {
  PreflightCase c;
  c.tables["public.orders"].bound_dependents = {
      "policy readable on table documents"};
  EXPECT_NE(c.Refusals().find("public.orders: policy readable on table "
                              "documents refers to it by oid and would keep "
                              "reading the old copy after the swap"),
            std::string::npos)
      << c.Refusals();
  c.tables["public.orders"].bound_dependents.clear();
  EXPECT_EQ(c.Refusals(), "");
}

TEST(Preflight, RefusesNamesTheRunWouldTake) {
  PreflightCase c;
  TableFacts& t = c.tables["public.orders"];
  t.triggers_named_like_ours = {"pglayout_capture"};
  t.taken_names = {"orders_p1"};
  // Two index names alike in their first 60 bytes: cut to 63 bytes with
  // "_p0", both copies on partition 0 would have one name.
  IndexFacts a;
  a.name = std::string(61, 'x') + "ab";
  a.columns = {"id"};
  IndexFacts b = a;
  b.name = std::string(61, 'x') + "cd";
  t.indexes.push_back(a);
  t.indexes.push_back(b);
  std::string r = c.Refusals();
  EXPECT_NE(r.find("public.orders: has a trigger named pglayout_capture, the "
                   "name an online copy gives its own capture trigger"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("public.orders: the conversion creates public.orders_p1, "
                   "which exists already"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("would both be named " + std::string(60, 'x') + "_p0"),
            std::string::npos)
      << r;
}

TEST(Preflight, RefusesWhatAPartitionedTableCannotHave) {
  PreflightCase c;
  TableFacts& t = c.tables["public.orders"];
  t.no_inherit_checks = {"local_only"};
  t.triggers = {{"audit",
                 "CREATE TRIGGER audit AFTER INSERT ON public.orders "
                 "REFERENCING NEW TABLE AS added FOR EACH ROW EXECUTE "
                 "FUNCTION f()",
                 'O'}};
  t.fks_in = {{"sales_order_fkey", "public.sales", "FOREIGN KEY ...", true,
               /*from_partitioned=*/true}};
  c.server.version_num = 170000;
  std::string r = c.Refusals();
  EXPECT_NE(r.find("CHECK constraint local_only is NO INHERIT"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("row trigger audit has transition tables"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("foreign key sales_order_fkey of partitioned table "
                   "public.sales references it"),
            std::string::npos)
      << r;
  c.server.version_num = 180000;
  EXPECT_EQ(c.Refusals().find("sales_order_fkey"), std::string::npos);
}

// public.orders as the partition of public.sales for 2024, which has a
// foreign key from its parent and a DEFAULT partition beside it.
TableFacts SalesPartition() {
  TableFacts t = Orders();
  t.is_partition = true;
  t.partition_parent = "public.sales";
  t.partition_bound = "FOR VALUES FROM (1000) TO (2000)";
  t.partition_constraint =
      "((id IS NOT NULL) AND (id >= 1000) AND "
      "(id < 2000))";
  t.default_partition = "public.sales_rest";
  t.inherited_fks_out = {{"sales_customer_fkey", "public.customers",
                          "FOREIGN KEY (customer) REFERENCES customers(id)",
                          true}};
  return t;
}

Plan MovePlan() {
  Plan p = HashPlan();
  p.placements[0].strategy = Strategy::kMove;
  p.placements[0].tablespaces = {"a"};
  p.settings.clear();
  return p;
}

TEST(Preflight, AcceptsAPartitionOnlineAndRefusesWhatDetachCannotDo) {
  PreflightCase c;
  c.plan = MovePlan();
  c.tables["public.orders"] = SalesPartition();
  EXPECT_EQ(c.Refusals(), "");
  TableFacts& t = c.tables["public.orders"];
  t.parent_referenced_by = {"foreign key line_sale_fkey of table public.line"};
  t.columns[0].identity = 'd';
  std::string r = c.Refusals();
  EXPECT_NE(r.find("public.orders: foreign key line_sale_fkey of table "
                   "public.line references its parent public.sales: DETACH "
                   "PARTITION refuses"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("column id is an identity column"), std::string::npos) << r;
  EXPECT_NE(r.find("online = false moves it offline"), std::string::npos) << r;
  // Partitioned partitions and hash conversions of partitions are refused.
  t = SalesPartition();
  t.kind = 'p';
  EXPECT_NE(c.Refusals().find("public.orders: is itself partitioned (a "
                              "partition of public.sales with partitions of "
                              "its own)"),
            std::string::npos)
      << c.Refusals();
  t.kind = 'r';
  c.plan = HashPlan();
  EXPECT_NE(c.Refusals().find("public.orders: is a partition of public.sales: "
                              "it can be moved"),
            std::string::npos)
      << c.Refusals();
}

TEST(OnlineSql, APartitionsSwapDetachesThenAttachesTheCopyWithItsBounds) {
  TableFacts t = SalesPartition();
  OnlineTarget target;
  target.tablespaces = {"a"};
  OnlineNames names = MakeOnlineNames(t, target);
  const std::string table = R"("public"."orders")";
  const std::string shadow = R"("public"."pglayout_new_16384")";
  const std::string bound =
      "((id IS NOT NULL) AND (id >= 1000) AND (id < 2000))";
  std::string create = Join(ShadowCreateSql(t, target, names, 150000), "\n");
  EXPECT_NE(create.find("ALTER TABLE " + shadow +
                        R"( ADD CONSTRAINT "pglayout_bound_16384" CHECK ()" +
                        bound + ")"),
            std::string::npos)
      << create;
  std::vector<AttachPrep> preps = AttachPrepSql(t, names);
  ASSERT_EQ(preps.size(), 2u);
  EXPECT_EQ(preps[0].add,
            "ALTER TABLE " + shadow +
                R"( ADD CONSTRAINT "sales_customer_fkey" FOREIGN KEY )"
                "(customer) REFERENCES customers(id) NOT VALID");
  EXPECT_EQ(preps[1].add, R"(ALTER TABLE public.sales_rest ADD CONSTRAINT )"
                          R"("pglayout_excl_16384" CHECK (NOT ()" +
                              bound + ")) NOT VALID");
  EXPECT_EQ(preps[1].validate,
            R"(ALTER TABLE public.sales_rest VALIDATE CONSTRAINT )"
            R"("pglayout_excl_16384")");
  EXPECT_EQ(SwapLockSql(t, names), "LOCK TABLE ONLY public.sales, " + table +
                                       ", " + shadow +
                                       ", public.sales_rest IN ACCESS "
                                       "EXCLUSIVE MODE");
  std::vector<std::string> swap = SwapSql(t, target, names, SwapInputs());
  auto at = [&](const std::string& sql) {
    auto it = std::find(swap.begin(), swap.end(), sql);
    EXPECT_NE(it, swap.end()) << sql << "\n" << Join(swap, "\n");
    return it - swap.begin();
  };
  auto detach = at("ALTER TABLE public.sales DETACH PARTITION " + table);
  auto drop_fk =
      at("ALTER TABLE " + table + R"( DROP CONSTRAINT "sales_customer_fkey")");
  auto retire = at("ALTER TABLE " + table + R"( RENAME TO "old_16384")");
  auto rename = at("ALTER TABLE " + shadow + R"( RENAME TO "orders")");
  auto attach = at("ALTER TABLE public.sales ATTACH PARTITION " + table +
                   " FOR VALUES FROM (1000) TO (2000)");
  auto check = at("ALTER TABLE " + table +
                  R"( DROP CONSTRAINT IF EXISTS "pglayout_bound_16384")");
  auto excl = at(R"(ALTER TABLE public.sales_rest DROP CONSTRAINT IF EXISTS )"
                 R"("pglayout_excl_16384")");
  EXPECT_LT(detach, drop_fk);
  EXPECT_LT(drop_fk, retire);
  EXPECT_LT(retire, rename);
  EXPECT_LT(rename, attach);
  EXPECT_LT(attach, check);
  EXPECT_LT(attach, excl);
  // A plain table's swap neither detaches nor attaches.
  std::string plain =
      Join(SwapSql(Orders(), target, names, SwapInputs()), "\n");
  EXPECT_EQ(plain.find("PARTITION"), std::string::npos) << plain;
}

TEST(OnlineNames, APrimaryKeyCopyKeepsItsPartitionNumberWhenCut) {
  TableFacts t = Orders();
  t.name = std::string(60, 'l');
  IndexFacts key;
  key.name = "k";
  key.constraint_type = 'p';
  OnlineTarget target;
  target.partitioned = true;
  target.partitions = 2;
  target.tablespaces = {"a"};
  OnlineNames names = MakeOnlineNames(t, target);
  EXPECT_EQ(names.partitions[1], std::string(60, 'l') + "_p1");
  EXPECT_EQ(PartitionIndexName(key, names, 1),
            std::string(55, 'l') + "_p1_pkey");
  t.name = "orders";
  names = MakeOnlineNames(t, target);
  EXPECT_EQ(PartitionIndexName(key, names, 1), "orders_p1_pkey");
}

TEST(Preflight, SkipsChecksOfStepsAlreadyStarted) {
  PreflightCase c;
  c.tables["public.orders"].kind = 'p';  // swapped: partitioned now
  PreflightInput in = c.Input();
  in.started_relations = {"public.orders"};
  EXPECT_FALSE(HasRefusal(RunPreflight(in)));
}

TEST(Preflight, WarnsAboutRestartOnlySettings) {
  PreflightCase c;
  c.plan.settings = {{"shared_buffers", "8GB", "", ""}};
  std::vector<Finding> f = c.Run();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Finding::Severity::kWarning);
  EXPECT_NE(f[0].reason.find("after a restart"), std::string::npos);
}

// ------------------------------------------------------------- steps --

std::vector<std::string> Keys(const std::vector<Step>& steps) {
  std::vector<std::string> keys;
  for (const Step& s : steps) keys.push_back(s.key);
  return keys;
}

TEST(BuildSteps, OrdersTablespacesGuardMovesSettingsAndCheck) {
  Plan plan = HashPlan();
  Placement offline;
  offline.relation = "public.small";
  offline.strategy = Strategy::kMove;
  offline.tablespaces = {"a"};
  offline.online = false;
  plan.placements.push_back(offline);
  std::map<std::string, TableFacts> tables = {{"public.orders", Orders()}};
  TableFacts small = Orders();
  small.name = "small";
  tables["public.small"] = small;
  auto steps = BuildSteps(plan, Server(), tables, StepOptions());
  EXPECT_EQ(Keys(steps),
            (std::vector<std::string>{"tablespace:a", "tablespace-options:a",
                                      "guard:raise", "move:public.small",
                                      "partition:public.orders",
                                      "guard:restore", "settings", "verify"}));
  const Step& move = steps[3];
  EXPECT_EQ(move.sql,
            (std::vector<std::string>{
                "ALTER TABLE \"public\".\"small\" SET TABLESPACE \"a\"",
                "ALTER INDEX \"public\".\"orders_pkey\" SET "
                "TABLESPACE \"a\"",
                "ALTER INDEX \"public\".\"orders_customer\" SET "
                "TABLESPACE \"a\""}));
  EXPECT_NE(move.note.find("the longest about 4.2 s at 200 MB/s"),
            std::string::npos)
      << move.note;
}

std::string Joined(const Step& s) {
  std::string all;
  for (const std::string& sql : s.sql) all += sql + "\n";
  return all;
}

TEST(BuildSteps, HashPartitionStepPlacesPartitionsAndCapturesAlways) {
  Plan plan = HashPlan();
  auto steps =
      BuildSteps(plan, Server(), {{"public.orders", Orders()}}, StepOptions());
  std::string sql = Joined(steps[3]);
  for (const char* expected : {
           "PARTITION BY HASH (\"id\")",
           "SET LOCAL default_tablespace = 'a'\n"
           "CREATE TABLE \"public\".\"orders_p0\" PARTITION OF "
           "\"public\".\"pglayout_new_16384\" FOR VALUES WITH (MODULUS 2, "
           "REMAINDER 0) WITH (\"autovacuum_enabled\" = 'false') TABLESPACE "
           "\"a\"",
           "REMAINDER 1) WITH (\"autovacuum_enabled\" = 'false') TABLESPACE "
           "\"pg_default\"",
           // The partitions get the table's autovacuum setting back.
           "ALTER TABLE \"public\".\"orders_p1\" RESET (autovacuum_enabled)",
           "ENABLE ALWAYS TRIGGER pglayout_capture",
           "BEFORE TRUNCATE ON \"public\".\"orders\"",
           "IS DISTINCT FROM",
           "CREATE INDEX \"orders_customer_p1\" ON \"public\".\"orders_p1\" "
           "USING btree (customer)",
           "ALTER TABLE \"public\".\"orders\" RENAME TO \"old_16384\"\n"
           "ALTER TABLE \"public\".\"old_16384\" SET SCHEMA pglayout",
       }) {
    EXPECT_NE(sql.find(expected), std::string::npos) << expected << "\n" << sql;
  }
}

TEST(BuildSteps, NoGuardWithoutBulkWork) {
  Plan plan;
  plan.settings = {{"work_mem", "64MB", "", ""}};
  auto steps = BuildSteps(plan, Server(), {}, StepOptions());
  EXPECT_EQ(Keys(steps), (std::vector<std::string>{"settings", "verify"}));
}

// A run killed after raising max_wal_size to its cap resumes with the
// server at that cap: the raise is computed from the journaled original,
// and the restore step stays (without it the final check fails on the
// setting the run left raised).
TEST(BuildSteps, AResumedRunKeepsItsRestoreWhenTheRaiseIsCapped) {
  Plan plan = HashPlan();
  plan.settings.clear();
  ServerFacts raised = Server();
  raised.settings["max_wal_size"] = "2048";  // the killed attempt's raise
  std::map<std::string, TableFacts> tables = {{"public.orders", Orders()}};
  StepOptions capped;
  capped.max_wal_size_cap = 2 * kGiB;
  // What the resume used to build: no raise left, so no restore either.
  EXPECT_EQ(Keys(BuildSteps(plan, raised, tables, capped)),
            (std::vector<std::string>{"tablespace:a", "tablespace-options:a",
                                      "partition:public.orders", "verify"}));
  StepOptions resumed = capped;
  resumed.guard_original = kGiB;
  resumed.guard_restore_pending = true;
  auto steps = BuildSteps(plan, raised, tables, resumed);
  EXPECT_EQ(Keys(steps),
            (std::vector<std::string>{"tablespace:a", "tablespace-options:a",
                                      "guard:raise", "partition:public.orders",
                                      "guard:restore", "verify"}));
  EXPECT_EQ(steps[2].title, "checkpoint guard: raise max_wal_size 1GB -> 2GB");
  EXPECT_EQ(steps[4].title, "checkpoint guard: restore max_wal_size to 1GB");
  // Nothing left to copy (or the guard off on resume): the restore alone.
  resumed.checkpoint_guard = false;
  EXPECT_EQ(Keys(BuildSteps(plan, raised, {}, resumed)),
            (std::vector<std::string>{"tablespace:a", "tablespace-options:a",
                                      "guard:restore", "verify"}));
}

// What --status says of a raise whose run has not finished: the run, where
// it stopped and both ways back; a DBA's own value since, named as such.
TEST(Guard, AnUnfinishedRunsRaiseNamesTheWayBackOrWhoChangedIt) {
  SettingRecord rec;
  rec.name = "max_wal_size";
  rec.kind = "guard";
  rec.original_setting = "1GB";
  rec.new_value = "2730MB";
  rec.state = "applied";
  RaisedContext stopped;
  stopped.stopped_at = "move:public.t (copy)";
  EXPECT_EQ(RaisedLine(rec, 3, stopped),
            "max_wal_size raised to 2730MB by run 3, which stopped at "
            "move:public.t (copy): `pglayout migrate --apply` with its plan "
            "resumes it and restores max_wal_size to 1GB at its end, "
            "`pglayout migrate --abort` restores it now");
  RaisedContext live = stopped;
  live.going_on = true;
  EXPECT_EQ(RaisedLine(rec, 3, live),
            "max_wal_size raised to 2730MB by run 3, which is running now: "
            "it restores it to 1GB at its end");
  RaisedContext dba = stopped;
  dba.auto_conf = "3GB";
  dba.now = CompareAutoConf(rec, dba.auto_conf);
  EXPECT_EQ(dba.now, AutoConfNow::kChanged);
  EXPECT_EQ(RaisedLine(rec, 3, dba),
            "max_wal_size raised to 2730MB by run 3, then changed by someone "
            "else: postgresql.auto.conf now has '3GB', neither pglayout's "
            "2730MB nor the original 1GB; pglayout leaves that value as it is "
            "(set it back yourself if it was not meant to stay)");
  RaisedContext other = dba;
  other.taken_over_by = "run 1 in database b";
  EXPECT_EQ(RaisedLine(rec, 3, other),
            "max_wal_size raised to 2730MB by run 3, then raised again by run "
            "1 in database b (postgresql.auto.conf now has '3GB'), which "
            "restores it to the cluster's original 1GB");
  RaisedContext same = stopped;
  same.auto_conf = "2730MB";
  EXPECT_EQ(CompareAutoConf(rec, same.auto_conf), AutoConfNow::kOurs);
}

TEST(Guard, RaisesToCoverTheCopyBoundedByFreeWal) {
  GuardDecision d = DecideMaxWalSize(kGiB, 10 * kGiB, 0.9, 0, 0);
  EXPECT_TRUE(d.raise);
  // The current 1 GiB + 10 GiB x 3 of WAL x (1 + 0.9).
  EXPECT_EQ(d.target, 58 * kGiB);
  GuardDecision bounded = DecideMaxWalSize(kGiB, 10 * kGiB, 0.9, 8 * kGiB, 0);
  EXPECT_EQ(bounded.target, 4 * kGiB);
  GuardDecision capped = DecideMaxWalSize(kGiB, 10 * kGiB, 0.9, 0, 2 * kGiB);
  EXPECT_EQ(capped.target, 2 * kGiB);
  GuardDecision enough = DecideMaxWalSize(100 * kGiB, kMiB, 0.9, 0, 0);
  EXPECT_FALSE(enough.raise);
}

TEST(Guard, RestoresOnlyWhenTheNextTimedCheckpointComesFirst) {
  // 1 GiB with completion target 0.9: requested at about 539 MiB.
  uint64_t original = kGiB;
  RestoreCheck check;
  check.wal_since_redo = 300.0 * kMiB;
  check.wal_rate = 1.0 * kMiB;
  check.seconds_to_next_start = 100;  // 400 MiB by then: fine
  EXPECT_EQ(DecideRestore(original, 0.9, check), RestoreVerdict::kRestore);
  check.seconds_to_next_start = 250;  // 550 MiB by then: too late
  EXPECT_EQ(DecideRestore(original, 0.9, check), RestoreVerdict::kWait);
  check.wal_since_redo = 2.0 * kGiB;  // the copy's WAL is still in the window
  check.seconds_to_next_start = 0;
  EXPECT_EQ(DecideRestore(original, 0.9, check), RestoreVerdict::kWait);
  // A checkpoint completed after the copy and the foreground alone still
  // outgrows the threshold: waiting longer cannot help.
  check.wal_since_redo = 600.0 * kMiB;
  check.checkpoint_since_wait = true;
  EXPECT_EQ(DecideRestore(original, 0.9, check), RestoreVerdict::kCannot);
  check.wal_since_redo = 100.0 * kMiB;
  check.wal_rate = 0.5 * kMiB;
  check.seconds_to_next_start = 30;
  EXPECT_EQ(DecideRestore(original, 0.9, check), RestoreVerdict::kRestore);
}

// Known up front: a foreground that alone writes more WAL per cycle than
// the original allows cannot be waited out, once its rate is measured.
TEST(Guard, AMeasuredRateAboveTheOriginalMakesTheWaitFutile) {
  uint64_t original = 1 * kGiB;  // requests at 539 MiB (485 MiB with margin)
  RestoreCheck check;
  check.wal_since_redo = 600.0 * kMiB;
  check.seconds_to_next_start = 200;
  check.cycle_seconds = 300;
  check.wal_rate = 2.0 * kMiB;  // 600 MiB per cycle
  EXPECT_EQ(DecideRestore(original, 0.9, check), RestoreVerdict::kWait)
      << "an assumed rate (the copy's WAL in it) decides nothing";
  check.rate_measured = true;
  EXPECT_EQ(ForegroundCycleWal(check), 600.0 * kMiB);
  EXPECT_EQ(DecideRestore(original, 0.9, check), RestoreVerdict::kCannot);
  check.wal_rate = 1.0 * kMiB;  // 300 MiB per cycle: a checkpoint helps
  EXPECT_EQ(DecideRestore(original, 0.9, check), RestoreVerdict::kWait);
}

TEST(Guard, ReadsPgSettingsUnits) {
  EXPECT_EQ(SettingBytes("1024", "MB"), kGiB);
  EXPECT_EQ(SettingBytes("2048", "8kB"), 16 * kMiB);
  EXPECT_EQ(SettingBytes("", "MB"), 0u);
}

// --------------------------------------------------------- online SQL --

TableFacts Composite() {
  TableFacts t = Orders();
  t.name = "My \"Items\"";
  t.columns = {{"order id",
                "bigint",
                true,
                0,
                0,
                -1,
                {},
                "pg_catalog.hashint8extended",
                "pg_catalog.int8",
                ""},
               {"line",
                "integer",
                true,
                0,
                0,
                -1,
                {},
                "pg_catalog.hashint4extended",
                "pg_catalog.int4",
                ""},
               {"n",
                "integer",
                false,
                'a',
                0,
                -1,
                {},
                "pg_catalog.hashint4extended",
                "pg_catalog.int4",
                ""},
               // A type without a hash function (json, point) has none.
               {"total", "numeric", false, 0, 's', -1, {}, "", "", ""}};
  t.row_key = {"order id", "line"};
  return t;
}

TEST(OnlineSql, CompositeKeysUseRowComparisonsAndArrays) {
  TableFacts t = Composite();
  OnlineTarget target;
  target.tablespaces = {"a"};
  OnlineNames names = MakeOnlineNames(t, target);
  std::string copy = CopyBatchSql(t, names, 500, false);
  EXPECT_NE(copy.find("WHERE (\"order id\", \"line\") > ($1::bigint, "
                      "$2::integer) ORDER BY \"order id\", \"line\" LIMIT 500"),
            std::string::npos)
      << copy;
  EXPECT_NE(copy.find("OVERRIDING SYSTEM VALUE"), std::string::npos);
  EXPECT_EQ(copy.find("\"total\""), std::string::npos)
      << "generated columns are computed, never copied";
  EXPECT_NE(copy.find("ORDER BY ins.\"order id\" DESC, ins.\"line\" DESC"),
            std::string::npos)
      << "the last key must sort as the key type, not as text";
  EXPECT_EQ(copy.find("ON CONFLICT"), std::string::npos)
      << "the shadow has no unique index during the copy";
  EXPECT_NE(copy.find("pg_catalog.pg_column_size(n.*) AS \"b\")"),
            std::string::npos)
      << "each batch reports the bytes it copied";
  // A key column named like the size column would make it ambiguous.
  TableFacts b = t;
  b.row_key = {"b", "line"};
  std::string named_b = CopyBatchSql(b, names, 500, false);
  EXPECT_NE(named_b.find("pg_column_size(n.*) AS \"b_\")"), std::string::npos)
      << named_b;
  EXPECT_NE(named_b.find("coalesce(pg_catalog.sum(\"b_\"), 0)"),
            std::string::npos)
      << named_b;
  std::string legacy =
      CopyBatchSql(t, names, 500, true, CopyMode::kSkipExisting);
  EXPECT_NE(legacy.find("ON CONFLICT DO NOTHING"), std::string::npos) << legacy;
  EXPECT_EQ(legacy.find("WHERE (\"order id\""), std::string::npos)
      << "the first batch has no cursor condition";
  EXPECT_NE(legacy.find("ORDER BY sized.\"order id\" DESC"), std::string::npos)
      << legacy;
  ReplaySql r = MakeReplaySql(t, names);
  EXPECT_NE(r.remove.find("(\"order id\", \"line\") IN (SELECT * FROM ROWS "
                          "FROM (pg_catalog.unnest($1::bigint[]), "
                          "pg_catalog.unnest($2::integer[])))"),
            std::string::npos)
      << r.remove;
  EXPECT_NE(names.QualifiedTable().find("\"My \"\"Items\"\"\""),
            std::string::npos);
}

TEST(OnlineSql, ShadowHasNoIndexUntilTheCopyEndsThenTheKeyFirst) {
  TableFacts t = Orders();
  // Listed after the other index, and its tablespace named by
  // pg_get_constraintdef, which must not follow it to the shadow.
  std::swap(t.indexes[0], t.indexes[1]);
  t.indexes[1].constraint_def =
      "PRIMARY KEY (id) USING INDEX TABLESPACE \"old \"\"ts\"\"\"";
  t.reloptions = {"autovacuum_enabled=on", "fillfactor=90"};
  OnlineTarget target;
  target.tablespaces = {"fast"};
  OnlineNames names = MakeOnlineNames(t, target);
  std::string create;
  for (const std::string& s : ShadowCreateSql(t, target, names, 150000)) {
    create += s + "\n";
  }
  EXPECT_EQ(create.find("PRIMARY KEY"), std::string::npos) << create;
  EXPECT_NE(create.find("WITH (\"fillfactor\" = '90', \"autovacuum_enabled\" = "
                        "'false') TABLESPACE \"fast\""),
            std::string::npos)
      << "no autovacuum on the shadow while it is copied into: " << create;
  std::string swap;
  for (const std::string& s : SwapSql(t, target, names, SwapInputs())) {
    swap += s + "\n";
  }
  EXPECT_NE(swap.find("ALTER TABLE \"public\".\"pglayout_new_16384\" SET "
                      "(\"autovacuum_enabled\" = 'on')\nALTER INDEX"),
            std::string::npos)
      << "the table's own setting comes back before the rename: " << swap;
  EXPECT_EQ(create.find("INDEX"), std::string::npos) << create;
  std::vector<ShadowIndex> indexes = ShadowIndexSql(t, target, names);
  ASSERT_EQ(indexes.size(), 2u);
  EXPECT_TRUE(indexes[0].row_key);
  EXPECT_EQ(indexes[0].source, "orders_pkey");
  EXPECT_EQ(indexes[0].temp_name, "pglayout_new_16384_i1");
  EXPECT_EQ(indexes[0].sql.at(0), "SET LOCAL default_tablespace = 'fast'");
  EXPECT_EQ(indexes[0].sql.at(1),
            "ALTER TABLE \"public\".\"pglayout_new_16384\" ADD CONSTRAINT "
            "\"pglayout_new_16384_i1\" PRIMARY KEY (id)");
  EXPECT_FALSE(indexes[1].row_key);
  EXPECT_EQ(indexes[1].source, "orders_customer");
  // Partitioned: the key's index ON ONLY the parent, one per partition in
  // the partition's tablespace, attached.
  target.partitioned = true;
  target.partitions = 2;
  target.tablespaces = {"a", "b"};
  target.key = {"id"};
  names = MakeOnlineNames(t, target);
  std::string pk;
  std::vector<ShadowIndex> partitioned = ShadowIndexSql(t, target, names);
  for (const std::string& s : partitioned.at(0).sql) {
    pk += s + "\n";
  }
  for (const char* expected :
       {"ALTER TABLE ONLY \"public\".\"pglayout_new_16384\" ADD CONSTRAINT "
        "\"pglayout_new_16384_i1\" PRIMARY KEY (id)\n",
        "SET LOCAL default_tablespace = 'b'\nALTER TABLE ONLY "
        "\"public\".\"orders_p1\" ADD CONSTRAINT \"orders_p1_pkey\" PRIMARY "
        "KEY (id)\n",
        "ALTER INDEX \"public\".\"pglayout_new_16384_i1\" ATTACH PARTITION "
        "\"public\".\"orders_p1_pkey\""}) {
    EXPECT_NE(pk.find(expected), std::string::npos) << expected << "\n" << pk;
  }
}

TEST(OnlineSql, VerificationHashesEachColumnByItsType) {
  TableFacts t = Composite();
  OnlineTarget target;
  target.tablespaces = {"a"};
  OnlineNames names = MakeOnlineNames(t, target);
  std::string sql =
      VerifySumSql(t, names, "ONLY src", VerifyScope::kBlockRange);
  EXPECT_EQ(
      sql,
      "SELECT pg_catalog.count(*), (COALESCE(pg_catalog.sum("
      // Each column by its type's function, its own seed, NULL-safe; a
      // type without a hash function by its text form.
      "COALESCE(pg_catalog.hashint8extended(t.\"order id\"::pg_catalog.int8, "
      "1), 1) # COALESCE(pg_catalog.hashint4extended(t.\"line\"::pg_catalog."
      "int4, 2), 2) # COALESCE(pg_catalog.hashint4extended(t.\"n\"::"
      "pg_catalog.int4, 3), 3) # COALESCE(pg_catalog.hashtextextended(t."
      "\"total\"::pg_catalog.text, 4), 4)), 0) % 9223372036854775807)::bigint "
      "FROM ONLY src t WHERE t.ctid >= $1::pg_catalog.tid AND t.ctid < "
      "$2::pg_catalog.tid");
  std::string logged =
      VerifySumSql(t, names, "shadow", VerifyScope::kLoggedKeys, true);
  EXPECT_EQ(logged.find("hashint"), std::string::npos)
      << "text form asked for every column\n"
      << logged;
  EXPECT_NE(logged.find("FROM shadow t WHERE (t.\"order id\", t.\"line\") IN "
                        "(SELECT k1, k2 FROM pglayout.log_16384)"),
            std::string::npos)
      << logged;
  EXPECT_EQ(VerifySumSql(t, names, "shadow", VerifyScope::kAll).find("WHERE"),
            std::string::npos);
  std::string diff = DifferingKeysSql(t, names, 5);
  for (const char* expected :
       {"SELECT DISTINCT d.\"order id\"::pg_catalog.text, "
        "d.\"line\"::pg_catalog.text FROM ((",
        "FROM ONLY \"public\".\"My \"\"Items\"\"\" t WHERE NOT EXISTS "
        "(SELECT FROM pglayout.log_16384 l WHERE l.k1 = t.\"order id\" AND "
        "l.k2 = t.\"line\") EXCEPT ALL SELECT t.\"order id\", t.\"line\", ",
        ") UNION ALL (", ")) d LIMIT 5"}) {
    EXPECT_NE(diff.find(expected), std::string::npos) << expected << "\n"
                                                      << diff;
  }
}

TEST(OnlineSql, BlockRangeCopyReadsTidsWithoutLoggedKeys) {
  TableFacts t = Composite();
  OnlineTarget target;
  target.tablespaces = {"a"};
  OnlineNames names = MakeOnlineNames(t, target);
  // The stored generated column is left to the shadow; identity ALWAYS
  // needs OVERRIDING.
  const std::string insert =
      "INSERT INTO \"public\".\"pglayout_new_16384\" (\"order id\", "
      "\"line\", \"n\") OVERRIDING SYSTEM VALUE SELECT t.\"order id\", "
      "t.\"line\", t.\"n\" FROM ONLY \"public\".\"My \"\"Items\"\"\" t "
      "WHERE t.ctid >= $1::pg_catalog.tid AND t.ctid < $2::pg_catalog.tid AND ";
  const std::string not_logged =
      "NOT EXISTS (SELECT FROM pglayout.log_16384 l WHERE l.k1 = t.\"order "
      "id\" AND l.k2 = t.\"line\")";
  EXPECT_EQ(CopyTidRangeSql(t, names, false), insert + not_logged);
  // Only rows written since $3 are looked up in the log.
  EXPECT_EQ(CopyTidRangeSql(t, names, true),
            insert +
                "(pg_catalog.age(t.xmin) > pg_catalog.age($3::pg_catalog.xid) "
                "OR " +
                not_logged + ")");
  // Which needs the log's key index; the key-order copy does not.
  const std::string key_index = "CREATE INDEX ON pglayout.log_16384 (k1, k2)";
  auto has = [](const std::vector<std::string>& sql, const std::string& s) {
    return std::find(sql.begin(), sql.end(), s) != sql.end();
  };
  EXPECT_TRUE(has(CaptureCreateSql(t, names, 7, true), key_index));
  EXPECT_FALSE(has(CaptureCreateSql(t, names, 7, false), key_index));
  int64_t block = -1;
  EXPECT_EQ(BlockTid(163935), "(163935,0)");
  ASSERT_TRUE(ParseBlockTid("(163935,0)", &block));
  EXPECT_EQ(block, 163935);
  EXPECT_FALSE(ParseBlockTid("163935", &block)) << "a key cursor";
  EXPECT_FALSE(ParseBlockTid("(1,5)", &block)) << "not a block's first tid";
  EXPECT_FALSE(ParseBlockTid("(99999999999,0)", &block)) << "too large";
}

TEST(OnlineSql, TruncatesNamesWithoutSplittingCharacters) {
  std::string long_name(70, 'x');
  EXPECT_EQ(TruncatedName(long_name, "_p3").size(), 63u);
  std::string utf8 = std::string(59, 'x') + "\xc3\xa9\xc3\xa9";  // "éé"
  std::string cut = TruncatedName(utf8, "_p1");
  EXPECT_LE(cut.size(), 63u);
  EXPECT_EQ(cut, std::string(59, 'x') + "_p1");
}

TEST(SqlUtil, ArrayLiteralsRoundTrip) {
  std::vector<std::string> values = {"a\"b", "c,d", "x\\y", ""};
  auto parsed = ParseArrayLiteral(TextArrayLiteral(values));
  ASSERT_EQ(parsed.size(), values.size());
  for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(*parsed[i], values[i]);
  auto with_null = ParseArrayLiteral("{1,NULL,\"NULL\"}");
  ASSERT_EQ(with_null.size(), 3u);
  EXPECT_FALSE(with_null[1].has_value());
  EXPECT_EQ(*with_null[2], "NULL");
}

// ----------------------------------------------------------- executor --

struct ExecutorCase {
  FakeSqlSession session;
  Journal journal{&session};
  MigrateOptions options;
  MigrateReport report;
  NullProgress progress;
  std::vector<std::string> failpoints;

  ExecutorCase() {
    session.On({"pg_cancel_backend", {{}, {{"0"}}}, "", -1});
    options.lock_timeout_ms = 1;
    options.lock_deadline_s = 5;
    options.failpoint = [this](const std::string& n) {
      failpoints.push_back(n);
    };
  }
  Executor Make() {
    return Executor(&session, &journal, options, &progress, &report);
  }
};

TEST(Executor, RetriesLockTimeoutsInFreshTransactions) {
  ExecutorCase c;
  c.session.Fail("LOCK TABLE", "55P03", 2);
  Executor ex = c.Make();
  int between = 0;
  Status st = ex.WithLockRetry(
      "swap", {"t"},
      [&]() { return ex.Exec("LOCK TABLE t IN ACCESS EXCLUSIVE MODE"); },
      [&]() {
        ++between;
        return Status::Ok();
      });
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(c.session.Count("BEGIN"), 3);
  // Between attempts, never before the first: PostgreSQL too cancels an
  // autovacuum only for a session that waited for it.
  EXPECT_EQ(c.session.Count("pg_cancel_backend"), 2);
  EXPECT_EQ(c.report.lines.size(), 0u) << "nothing was cancelled";
  EXPECT_EQ(c.session.Count("ROLLBACK"), 2);
  EXPECT_EQ(c.session.Count("COMMIT"), 1);
  EXPECT_EQ(c.session.Count("SET LOCAL lock_timeout = '1ms'"), 3);
  EXPECT_EQ(c.session.Count(
                "SET LOCAL idle_in_transaction_session_timeout = '10000ms'"),
            3)
      << "a frozen client must not keep its locks";
  EXPECT_EQ(c.session.Count("SAVEPOINT"), 0)
      << "savepoint loops overflow the subtransaction cache";
  EXPECT_EQ(between, 2);
  EXPECT_EQ(c.failpoints, std::vector<std::string>{"swap:before-commit"});
}

TEST(Executor, RetriesWhenTheBodyAsksToAndOnlyThen) {
  ExecutorCase c;
  Executor ex = c.Make();
  int calls = 0, between = 0;
  Status st = ex.WithLockRetry(
      "swap", {"t"},
      [&]() -> Status {
        PGLAYOUT_RETURN_IF_ERROR(ex.Exec("LOCK TABLE t"));
        return ++calls == 1 ? ex.RetryLater("too much to replay")
                            : Status::Ok();
      },
      [&]() {
        ++between;
        return Status::Ok();
      });
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(between, 1);
  EXPECT_EQ(c.session.Count("ROLLBACK"), 1);
  EXPECT_EQ(c.session.Count("COMMIT"), 1);

  // Any other failure of the body ends it at once.
  calls = 0;
  st = ex.WithLockRetry(
      "swap", {"t"},
      [&]() -> Status {
        ++calls;
        return Status::Aborted("verification failed");
      },
      nullptr);
  EXPECT_EQ(st.message(), "verification failed");
  EXPECT_EQ(calls, 1);
}

TEST(Executor, GivesUpAfterTheDeadlineAndNamesWhy) {
  ExecutorCase c;
  c.options.lock_deadline_s = 0.05;
  c.session.Fail("LOCK TABLE", "55P03", -1);
  c.session.On({"pg_locks l LEFT JOIN",
                {{},
                 {{"pid 42 (psql, idle in transaction for 30 s, "
                   "AccessShareLock on t)"}}},
                "",
                -1});
  Executor ex = c.Make();
  Status st = ex.WithLockRetry("swap", {"t", "\"odd \"\"name\""}, [&]() {
    return ex.Exec("LOCK TABLE t IN ACCESS EXCLUSIVE MODE");
  });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("swap: gave up after"), std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("lock_timeout = 1 ms"), std::string::npos);
  EXPECT_NE(st.message().find("Holding locks on t, \"odd \"\"name\" now: pid "
                              "42 (psql, idle in transaction for 30 s, "
                              "AccessShareLock on t)"),
            std::string::npos)
      << st.message();
  ASSERT_TRUE(c.session.last_params.size() == 1 &&
              c.session.last_params[0].has_value());
  EXPECT_EQ(*c.session.last_params[0], "{\"t\",\"\\\"odd \\\"\\\"name\\\"\"}")
      << "the relations go as one text[] parameter";
}

TEST(Executor, SaysWhichAutovacuumWorkersItCancelled) {
  FakeSqlSession s;
  s.On({"pg_cancel_backend",
        {{},
         {{"2",
           "autovacuum: VACUUM public.t; autovacuum: VACUUM "
           "pg_toast.pg_toast_1"}}},
        "",
        1});
  s.On({"pg_cancel_backend", {{}, {{"0", std::nullopt}}}, "", 1});
  s.Fail("pg_cancel_backend", "42501", -1);
  Journal journal(&s);
  MigrateOptions options;
  NullProgress progress;
  MigrateReport report;
  Executor ex(&s, &journal, options, &progress, &report);
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(ex.CancelAutovacuumOn({"public.t", "pglayout.log_1"}).ok())
        << "cancelling is best effort";
  }
  ASSERT_EQ(report.lines.size(), 2u);
  EXPECT_EQ(report.lines[0],
            "cancelled 2 autovacuum worker(s) holding a lock this step needs "
            "(autovacuum: VACUUM public.t; autovacuum: VACUUM "
            "pg_toast.pg_toast_1), as PostgreSQL does for a lock waiter "
            "after deadlock_timeout; autovacuum comes back later");
  EXPECT_EQ(report.lines[1],
            "could not cancel autovacuum workers holding public.t, "
            "pglayout.log_1 (fake error (SQLSTATE 42501)); waiting for them "
            "instead")
      << "said once";
  const std::string& sql = s.statements[0];
  EXPECT_NE(sql.find("NOT LIKE '%to prevent wraparound%'"), std::string::npos)
      << "an anti-wraparound vacuum is never cancelled";
  EXPECT_NE(sql.find("AS MATERIALIZED"), std::string::npos)
      << "only the candidates are ever signalled";
}

TEST(Executor, DoesNotRetryOtherErrors) {
  ExecutorCase c;
  c.session.Fail("CREATE TABLE", "42P07", -1);
  Executor ex = c.Make();
  Status st = ex.WithLockRetry("prepare", {"x"},
                               [&]() { return ex.Exec("CREATE TABLE x ()"); });
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(c.session.Count("BEGIN"), 1);
  EXPECT_EQ(c.session.Count("ROLLBACK"), 1);
  EXPECT_EQ(c.session.Count("COMMIT"), 0);
}

TEST(Journal, KeepsTheFirstOriginalOfASetting) {
  FakeSqlSession session;
  Journal journal(&session);
  SettingRecord rec;
  rec.name = "max_wal_size";
  rec.kind = "guard";
  rec.original_setting = "1GB";
  rec.new_value = "20GB";
  EXPECT_TRUE(journal.RecordOriginal(7, rec).ok());
  EXPECT_NE(session.statements.back().find("ON CONFLICT (run_id, kind, name) "
                                           "DO UPDATE SET new_value = "
                                           "EXCLUDED.new_value"),
            std::string::npos)
      << "a resumed run must not record its own raised value as original, "
         "and must record the value it writes";
  EXPECT_EQ(PlanHash("a"), PlanHash("a"));
  EXPECT_NE(PlanHash("a"), PlanHash("b"));
}

}  // namespace
}  // namespace pglayout::migrator
