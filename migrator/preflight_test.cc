// RunPreflight over facts built in the test: what it refuses, warns about
// and accepts, and the text it says it with.

#include "migrator/preflight.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "common/units.h"
#include "migrator/test_facts.h"

namespace pglayout::migrator {
namespace {

using fixtures::HashPlan;
using fixtures::MovePlan;
using fixtures::Orders;
using fixtures::SalesPartition;
using fixtures::Server;

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
  c.tables["public.orders"].security.owner = "owner";
  c.tables["public.orders"].security.owner_privileges = false;
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

  c.tables["public.orders"].security.owner_privileges = true;
  c.server.tablespaces_without_create.clear();
  c.server.journal_schema_exists = true;
  EXPECT_EQ(c.Refusals(), "");
}

TEST(Preflight, RefusesATableWithoutPrimaryKey) {
  PreflightCase c;
  TableFacts& t = c.tables["public.orders"];
  t.indexes.erase(t.indexes.begin());
  t.keys.row_key.clear();
  t.keys.row_key_index.clear();
  EXPECT_NE(c.Refusals().find("public.orders: has no primary key"),
            std::string::npos)
      << c.Refusals();
}

TEST(Preflight, RefusesATableLockedByAPreparedTransaction) {
  PreflightCase c;
  c.tables["public.orders"].dependents.prepared_xacts = {"'tx 1'"};
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
  c.tables["public.orders"].security.untrusted_code = {
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
  c.tables["public.orders"].storage.heap_size = 10 * kGiB;
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
  c.tables["public.orders"].rule.keys.push_back(
      {KeyConstraintFact::Kind::kUnique, "orders_email_key", {"email"}, false});
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
  index.storage.heap_size = 100 * kMiB;
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
  c.tables["public.orders"].rule.publications = {"all_tables"};
  c.tables["public.orders"].rule.fks_out = {
      {"orders_customer_fkey", "public.customers"}};
  std::string r = c.Refusals();
  EXPECT_NE(r.find("is published by publication all_tables"),
            std::string::npos);
  EXPECT_NE(r.find("foreign key orders_customer_fkey references "
                   "public.customers"),
            std::string::npos);
  c.server.version_num = 180000;
  c.tables["public.orders"].rule.publications.clear();
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
  c.tables["public.orders"].dependents.subscriptions = {"from_oltp"};
  EXPECT_NE(c.Refusals().find("public.orders: receives logical replication "
                              "from subscription from_oltp: after a rename "
                              "swap it would silently stop applying changes"),
            std::string::npos)
      << c.Refusals();
  c.tables["public.orders"].dependents.subscriptions.clear();
  EXPECT_EQ(c.Refusals(), "");
}

TEST(Preflight, RefusesObjectsOfOtherTablesBoundToTheTable) {
  PreflightCase c;
  c.tables["public.orders"].dependents.bound = {
      "policy readable on table documents"};
  EXPECT_NE(c.Refusals().find("public.orders: policy readable on table "
                              "documents refers to it by oid and would keep "
                              "reading the old copy after the swap"),
            std::string::npos)
      << c.Refusals();
  c.tables["public.orders"].dependents.bound.clear();
  EXPECT_EQ(c.Refusals(), "");
}

TEST(Preflight, RefusesNamesTheRunWouldTake) {
  PreflightCase c;
  TableFacts& t = c.tables["public.orders"];
  t.dependents.triggers_named_like_ours = {"pglayout_capture"};
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
  t.rule.no_inherit_checks = {"local_only"};
  t.rule.triggers = {{"audit", /*row=*/true, /*before=*/false,
                      /*transition_tables=*/true}};
  t.rule.fks_in_from_partitioned = {{"sales_order_fkey", "public.sales"}};
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

TEST(Preflight, AcceptsAPartitionOnlineAndRefusesWhatDetachCannotDo) {
  PreflightCase c;
  c.plan = MovePlan();
  c.tables["public.orders"] = SalesPartition();
  EXPECT_EQ(c.Refusals(), "");
  TableFacts& t = c.tables["public.orders"];
  // A plain table's key to the parent is dropped and added back by the
  // swap; a partitioned table's needs 18 (NOT VALID), and the parent's
  // own key to itself is refused.
  t.partition.parent_fks_in = {
      {"line_sale_fkey", "public.line",
       "FOREIGN KEY (sale) REFERENCES public.sales(id)", true, false}};
  EXPECT_EQ(c.Refusals(), "");
  t.partition.parent_fks_in.push_back(
      {"part_sale_fkey", "public.part",
       "FOREIGN KEY (sale) REFERENCES public.sales(id)", true, true});
  t.partition.parent_fks_in.push_back(
      {"sales_up_fkey", "public.sales",
       "FOREIGN KEY (up) REFERENCES public.sales(id)", true, true});
  c.server.version_num = 180000;
  EXPECT_TRUE(c.Refusals().starts_with(
      "public.orders: its parent public.sales has foreign key sales_up_fkey "
      "to itself: the swap would drop and validate it again over every "
      "partition; online = false moves it offline"))
      << c.Refusals();
  EXPECT_EQ(c.Refusals().find("fkey", c.Refusals().find("sales_up_fkey") + 13),
            std::string::npos)
      << "on 18 only the parent's own key is refused: " << c.Refusals();
  c.server.version_num = 150000;
  t.columns[0].identity = 'd';
  std::string r = c.Refusals();
  EXPECT_NE(r.find("public.orders: foreign key part_sale_fkey of partitioned "
                   "table public.part references its parent public.sales: "
                   "the swap re-adds it NOT VALID, which a partitioned table "
                   "accepts from PostgreSQL 18"),
            std::string::npos)
      << r;
  EXPECT_EQ(r.find("line_sale_fkey"), std::string::npos) << r;
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
  EXPECT_NE(c.Refusals().find("public.orders: is a partition of public.sales "
                              "(FOR VALUES FROM (1000) TO (2000)), not a hash "
                              "partition: it can be moved"),
            std::string::npos)
      << c.Refusals();
}

// A hash partition split by its parent's key: allowed (the foreign key it
// has from its parent included, on every PostgreSQL); another key, a
// single partition or a parent with a key to itself are refused, naming
// the object.
TEST(Preflight, SplitsAHashPartitionByItsParentsKeyOnly) {
  PreflightCase c;
  c.tables["public.orders"] = SalesPartition();
  TableFacts& t = c.tables["public.orders"];
  t.partition.bound = "FOR VALUES WITH (modulus 3, remainder 1)";
  t.partition.constraint = "satisfies_hash_partition('16385'::oid, 3, 1, id)";
  t.partition.parent_key = "HASH (id)";
  t.partition.default_partition = "";
  for (int version : {120000, 150000, 180000}) {
    c.server.version_num = version;
    EXPECT_EQ(c.Refusals(), "") << version;
  }
  t.partition.parent_key = "HASH (id int4_ops_custom)";
  c.plan.placements[0].partitions = 1;
  t.partition.parent_fks_in = {{"sales_up_fkey", "public.sales",
                                "FOREIGN KEY (up) REFERENCES public.sales(id)",
                                true, true}};
  std::string r = c.Refusals();
  EXPECT_NE(r.find("public.orders: its parent public.sales is partitioned by "
                   "HASH (id int4_ops_custom): a split partitions by the same "
                   "key"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("public.orders: a split needs at least 2 partitions, not 1"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("public.orders: its parent public.sales has foreign key "
                   "sales_up_fkey to itself"),
            std::string::npos)
      << r;
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

}  // namespace
}  // namespace pglayout::migrator
