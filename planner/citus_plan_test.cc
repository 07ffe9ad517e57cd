#include "planner/citus_plan.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pglayout::planner {
namespace {

constexpr uint64_t kGiB = 1ull << 30;

// A table with its facts, sized and loaded as a test needs.
Relation Table(const std::string& name, uint64_t size,
               std::vector<std::string> pk = {"id"}, double read_iops = 0,
               double write_iops = 0, double changes = 0) {
  Relation r;
  r.name = name;
  r.size = size;
  r.primary_key = std::move(pk);
  r.read_iops = read_iops;
  r.write_iops = write_iops;
  r.updates_per_second = changes;
  r.persistence = Persistence::kPermanent;
  return r;
}

Workload Of(std::vector<Relation> relations) {
  Workload w;
  w.source = "hand";
  w.relations = std::move(relations);
  return w;
}

Distribution Distribute(const Workload& w, CitusOptions citus = {}) {
  Distribution d;
  const Status st = BuildDistribution(w, PlanOptions{}, citus, &d);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return d;
}

const CitusTable& Get(const Distribution& d, const std::string& table) {
  static const CitusTable kNone;
  const CitusTable* t = d.Find(table);
  EXPECT_NE(t, nullptr) << table;
  return t != nullptr ? *t : kNone;
}

std::vector<std::string> Names(const Distribution& d) {
  std::vector<std::string> out;
  for (const CitusTable& t : d.tables) out.push_back(t.table);
  return out;
}

bool HasDroppedKey(const Distribution& d, const std::string& table,
                   const std::string& constraint, const std::string& text) {
  for (const auto& k : d.dropped_keys) {
    if (k.table == table && k.constraint == constraint &&
        k.why.find(text) != std::string::npos) {
      return true;
    }
  }
  return false;
}

// customers <- orders (customer_id, id) <- order_items (customer_id,
// order_id, id): the multi-tenant shape, all keys led by the tenant.
Workload Tenants() {
  Relation customers =
      Table("public.customers", 20 * kGiB, {"id"}, 500, 100, 50);
  Relation orders =
      Table("public.orders", 200 * kGiB, {"customer_id", "id"}, 3000, 800, 400);
  orders.foreign_keys_out = {
      "orders_customer_fkey (customer_id) -> public.customers (id)"};
  Relation items = Table("public.order_items", 400 * kGiB,
                         {"customer_id", "order_id", "id"}, 5000, 1500, 900);
  items.foreign_keys_out = {
      "items_order_fkey (customer_id, order_id) -> public.orders "
      "(customer_id, id)",
      "items_country_fkey (country) -> public.countries (code)"};
  Relation countries = Table("public.countries", 1 << 20, {"code"}, 0, 0, 0.01);
  return Of({customers, orders, items, countries});
}

TEST(ParseForeignKey, WithColumnsQuotedNamesAndTheOldForm) {
  ForeignKey fk;
  ASSERT_TRUE(ParseForeignKey(
      "odd (name) (\"Cust Id\", b) -> \"S\".\"T -> x\" (\"A\"\"q\", id)", &fk));
  EXPECT_EQ(fk.name, "odd (name)");
  EXPECT_EQ(fk.columns, (std::vector<std::string>{"Cust Id", "b"}));
  EXPECT_EQ(fk.table, "\"S\".\"T -> x\"");
  EXPECT_EQ(fk.ref_columns, (std::vector<std::string>{"A\"q", "id"}));

  ASSERT_TRUE(ParseForeignKey("b_a_id_fkey -> public.a", &fk));
  EXPECT_EQ(fk.name, "b_a_id_fkey");
  EXPECT_TRUE(fk.columns.empty());
  EXPECT_EQ(fk.table, "public.a");
  EXPECT_TRUE(fk.ref_columns.empty());

  EXPECT_FALSE(ParseForeignKey("no arrow here", &fk));
  EXPECT_FALSE(ParseForeignKey("x (a) -> public.t (unclosed", &fk));
}

TEST(CitusDistribution, TenantKeysMakeOneGroupParentsFirst) {
  const Distribution d = Distribute(Tenants());
  EXPECT_EQ(Names(d),
            (std::vector<std::string>{"public.countries", "public.customers",
                                      "public.orders", "public.order_items"}));
  EXPECT_EQ(Get(d, "public.countries").role, CitusRole::kReference);
  ASSERT_EQ(d.groups.size(), 1u);
  EXPECT_EQ(d.groups[0].anchor, "public.customers");
  EXPECT_EQ(d.groups[0].tables,
            (std::vector<std::string>{"public.customers", "public.orders",
                                      "public.order_items"}));
  EXPECT_EQ(Get(d, "public.customers").column, "id");
  EXPECT_EQ(Get(d, "public.customers").colocate_with, "none");
  EXPECT_EQ(Get(d, "public.orders").column, "customer_id");
  EXPECT_EQ(Get(d, "public.orders").colocate_with, "public.customers");
  EXPECT_EQ(Get(d, "public.order_items").column, "customer_id");
  EXPECT_EQ(Get(d, "public.order_items").colocate_with, "public.customers");
  EXPECT_TRUE(d.dropped_keys.empty());
  EXPECT_TRUE(d.not_following.empty());
}

TEST(CitusDistribution, KeysThatCannotFollowAreNamedWithTheSharedRule) {
  Workload w = Tenants();
  // orders keyed by id alone: customer_id cannot be its distribution
  // column (the same rule as hash partitioning's), so it starts a group.
  w.relations[1].primary_key = {"id"};
  const Distribution d = Distribute(w);
  const CitusTable& orders = Get(d, "public.orders");
  EXPECT_EQ(orders.column, "id");
  EXPECT_EQ(orders.colocate_with, "none");
  ASSERT_EQ(d.not_following.size(), 1u);
  EXPECT_EQ(d.not_following[0],
            "public.orders: cannot be distributed by customer_id to follow "
            "public.customers (foreign key orders_customer_fkey): primary "
            "key (id) does not contain the partition key column(s) "
            "customer_id: PostgreSQL requires every unique constraint of a "
            "partitioned table to include the key");
  EXPECT_TRUE(HasDroppedKey(d, "public.orders", "orders_customer_fkey",
                            "pairs their distribution columns"));
  // order_items follows the new orders group: its key (customer_id,
  // order_id) -> (customer_id, id) pairs order_id with orders.id, and
  // every unique key of order_items contains order_id.
  EXPECT_EQ(Get(d, "public.order_items").column, "order_id");
  EXPECT_EQ(Get(d, "public.order_items").colocate_with, "public.orders");
  EXPECT_EQ(d.groups.size(), 2u);
}

TEST(CitusDistribution, ReferenceThresholdsAreOptions) {
  Workload w = Tenants();
  CitusOptions strict;
  strict.reference_max_bytes = 512 * 1024;  // countries is 1 MiB
  Distribution d = Distribute(w, strict);
  EXPECT_EQ(Get(d, "public.countries").role, CitusRole::kDistributed);

  w.relations[3].updates_per_second = 50;  // no longer read-mostly
  d = Distribute(w);
  EXPECT_EQ(Get(d, "public.countries").role, CitusRole::kDistributed);
  CitusOptions loose;
  loose.reference_max_changes = 100;
  d = Distribute(w, loose);
  EXPECT_EQ(Get(d, "public.countries").role, CitusRole::kReference);
  EXPECT_NE(Get(d, "public.countries")
                .why.find("referenced by "
                          "public.order_items"),
            std::string::npos);
}

TEST(CitusDistribution, SelfReferences) {
  // Keyed by id: the manager key pairs manager_id with id, not id with id.
  Relation employees =
      Table("public.employees", 10 * kGiB, {"id"}, 100, 100, 100);
  employees.foreign_keys_out = {
      "employees_manager_fkey (manager_id) -> public.employees (id)"};
  // Keyed by tenant: (tenant_id, parent_id) -> (tenant_id, id) keeps it.
  Relation nodes =
      Table("public.nodes", 10 * kGiB, {"tenant_id", "id"}, 100, 100, 100);
  nodes.foreign_keys_out = {
      "nodes_parent_fkey (tenant_id, parent_id) -> public.nodes (tenant_id, "
      "id)"};
  const Distribution d = Distribute(Of({employees, nodes}));
  EXPECT_EQ(Get(d, "public.employees").column, "id");
  EXPECT_TRUE(HasDroppedKey(d, "public.employees", "employees_manager_fkey",
                            "pairs their distribution columns"));
  EXPECT_EQ(Get(d, "public.nodes").column, "tenant_id");
  EXPECT_FALSE(HasDroppedKey(d, "public.nodes", "nodes_parent_fkey", ""));
  EXPECT_EQ(d.groups.size(), 2u);
}

TEST(CitusDistribution, ACycleIsOneGroupAndOneKeyWaits) {
  Relation a = Table("public.a", 10 * kGiB, {"k", "id"}, 100, 100, 100);
  a.foreign_keys_out = {"a_b_fkey (k, b_id) -> public.b (k, id)"};
  Relation b = Table("public.b", 10 * kGiB, {"k", "id"}, 100, 100, 100);
  b.foreign_keys_out = {"b_a_fkey (k, a_id) -> public.a (k, id)"};
  const Distribution d = Distribute(Of({a, b}));
  ASSERT_EQ(d.groups.size(), 1u);
  EXPECT_EQ(Get(d, "public.a").column, "k");
  EXPECT_EQ(Get(d, "public.b").column, "k");
  // The walk starts at a, goes to b, and b's key back to a closes it.
  EXPECT_EQ(Names(d), (std::vector<std::string>{"public.b", "public.a"}));
  ASSERT_EQ(d.dropped_keys.size(), 1u);
  EXPECT_EQ(d.dropped_keys[0].table, "public.b");
  EXPECT_EQ(d.dropped_keys[0].constraint, "b_a_fkey");
  EXPECT_NE(d.dropped_keys[0].why.find("closes a cycle"), std::string::npos);
}

TEST(CitusDistribution, ATableReferencedFromTwoGroups) {
  // accounts is referenced by invoices through its distribution column and
  // by audit through a column audit cannot be distributed by.
  Relation accounts =
      Table("public.accounts", 50 * kGiB, {"id"}, 100, 100, 100);
  Relation invoices =
      Table("public.invoices", 50 * kGiB, {"account_id", "id"}, 100, 100, 100);
  invoices.foreign_keys_out = {
      "invoices_account_fkey (account_id) -> public.accounts (id)"};
  Relation audit = Table("public.audit", 50 * kGiB, {"id"}, 100, 100, 100);
  audit.foreign_keys_out = {
      "audit_account_fkey (account_id) -> public.accounts (id)"};
  const Distribution d = Distribute(Of({accounts, audit, invoices}));
  EXPECT_EQ(Get(d, "public.invoices").group, Get(d, "public.accounts").group);
  EXPECT_NE(Get(d, "public.audit").group, Get(d, "public.accounts").group);
  EXPECT_TRUE(HasDroppedKey(d, "public.audit", "audit_account_fkey",
                            "pairs their distribution columns"));
  ASSERT_EQ(d.not_following.size(), 1u);
  EXPECT_EQ(d.not_following[0].rfind("public.audit: ", 0), 0u);
}

TEST(CitusDistribution, LocalTablesAndCautions) {
  Relation big = Table("public.events", 100 * kGiB, {}, 100, 100, 100);
  Relation lonely = Table("public.settings", 1 << 20, {"k"}, 0, 0, 0);
  Relation view = Table("public.daily", 1 * kGiB, {}, 10, 0, 0);
  view.kind = RelationKind::kMaterializedView;
  Relation hot = Table("public.jobs", 10 * kGiB, {"id"}, 100, 100, 100);
  hot.triggers = {"jobs_touch"};
  hot.identity_columns = {"id"};
  hot.unique_keys = {{"name"}};  // no column in every unique key
  Relation ok = Table("public.tasks", 10 * kGiB, {"id"}, 100, 100, 100);
  ok.triggers = {"tasks_touch"};
  ok.identity_columns = {"id"};
  const Distribution d = Distribute(Of({big, lonely, view, hot, ok}));
  EXPECT_EQ(Get(d, "public.events").role, CitusRole::kLocal);
  EXPECT_NE(Get(d, "public.events").why.find("no primary key"),
            std::string::npos);
  EXPECT_EQ(Get(d, "public.settings").role, CitusRole::kLocal);
  EXPECT_NE(Get(d, "public.settings").why.find("joined to no other table"),
            std::string::npos);
  EXPECT_EQ(Get(d, "public.daily").role, CitusRole::kLocal);
  EXPECT_EQ(Get(d, "public.jobs").role, CitusRole::kLocal);
  EXPECT_NE(Get(d, "public.jobs")
                .why.find("unique index (name) does not contain the "
                          "partition key column(s) id"),
            std::string::npos);
  const CitusTable& tasks = Get(d, "public.tasks");
  EXPECT_EQ(tasks.role, CitusRole::kDistributed);
  ASSERT_EQ(tasks.cautions.size(), 2u);
  EXPECT_NE(tasks.cautions[0].find("citus.enable_unsafe_triggers"),
            std::string::npos);
  EXPECT_NE(tasks.cautions[1].find("only as bigint"), std::string::npos);
}

TEST(CitusDistribution, KeyOptionChoosesTheColumn) {
  Workload w = Tenants();
  CitusOptions citus;
  citus.keys["public.order_items"] = {"country"};  // not in every key
  Distribution d = Distribute(w, citus);
  EXPECT_EQ(Get(d, "public.order_items").role, CitusRole::kLocal);
  citus.keys["public.order_items"] = {"customer_id", "id"};
  d = Distribute(w, citus);
  EXPECT_NE(Get(d, "public.order_items").why.find("by one column"),
            std::string::npos);
  citus.keys = {{"public.nope", {"id"}}};
  Distribution none;
  EXPECT_EQ(BuildDistribution(w, PlanOptions{}, citus, &none).code(),
            Status::Code::kInvalidInput);
}

// A partitioned table is distributed through its root, partitions
// included: the partitions are no tables of the plan, their size and I/O
// are the root's, and a worker carries 1/N of each of them.
TEST(CitusDistribution, PartitionsAreDistributedThroughTheirRoot) {
  Workload w = Tenants();
  Relation events = Table("public.events", 0, {"customer_id", "id"});
  events.kind = RelationKind::kPartitioned;
  events.partitioned = true;
  events.foreign_keys_out = {
      "events_customer_fkey (customer_id) -> public.customers (id)"};
  w.relations.push_back(events);
  for (const char* name : {"public.events_2025", "public.events_2026"}) {
    Relation p = Table(name, 60 * kGiB, {"customer_id", "id"}, 1000, 300, 200);
    p.partitioned = true;
    p.partition_of = "public.events";
    p.foreign_keys_out = events.foreign_keys_out;  // inherited by each
    w.relations.push_back(p);
    Relation index;
    index.name = std::string(name) + "_pkey";
    index.kind = RelationKind::kIndex;
    index.table = name;
    index.size = 10 * kGiB;
    index.read_iops = 100;
    w.relations.push_back(index);
  }
  const Distribution d = Distribute(w);
  EXPECT_EQ(d.Find("public.events_2025"), nullptr);
  EXPECT_EQ(d.Find("public.events_2026"), nullptr);
  const CitusTable& root = Get(d, "public.events");
  EXPECT_EQ(root.role, CitusRole::kDistributed);
  EXPECT_EQ(root.column, "customer_id");
  EXPECT_EQ(root.colocate_with, "public.customers");
  EXPECT_EQ(root.bytes, 140 * kGiB);  // both partitions with their indexes
  EXPECT_DOUBLE_EQ(root.read_iops, 2200);
  EXPECT_DOUBLE_EQ(root.changes_per_second, 400);
  ASSERT_EQ(d.groups.size(), 1u);
  EXPECT_EQ(d.groups[0].tables,
            (std::vector<std::string>{"public.customers", "public.events",
                                      "public.orders", "public.order_items"}));

  const Workload one = WorkerWorkload(w, d, 4);
  EXPECT_EQ(one.Find("public.events"), nullptr);  // no storage to carry
  const Relation* part = one.Find("public.events_2025");
  ASSERT_NE(part, nullptr);
  EXPECT_EQ(part->size, 15 * kGiB);
  EXPECT_DOUBLE_EQ(part->read_iops, 250);
  ASSERT_NE(one.Find("public.events_2026_pkey"), nullptr);
  EXPECT_EQ(one.Find("public.events_2026_pkey")->size, 10 * kGiB / 4);
  EXPECT_TRUE(CoordinatorWorkload(w, d).relations.empty());

  // Without its root in the workload, a partition stays local and says why.
  w.relations.erase(w.relations.begin() + 4);  // public.events
  const Distribution orphan = Distribute(w);
  EXPECT_EQ(Get(orphan, "public.events_2025").role, CitusRole::kLocal);
  EXPECT_NE(
      Get(orphan, "public.events_2025").why.find("is not in the workload"),
      std::string::npos);
}

TEST(CitusShardCount, MultipleOfWorkersWithRoomToGrow) {
  std::string why;
  EXPECT_EQ(ShardCount(2, 0, &why), 32);  // 16 per worker: at least 32
  EXPECT_EQ(ShardCount(3, 0, &why), 48);
  EXPECT_EQ(ShardCount(4, 0, &why), 32);
  EXPECT_EQ(ShardCount(6, 0, &why), 48);
  EXPECT_NE(why.find("8 per worker x 6 workers"), std::string::npos) << why;
  // 4 TiB over 32 shards is 128 GiB each: doubled to 128 shards (32 GiB).
  EXPECT_EQ(ShardCount(4, 4096 * kGiB, &why), 128);
  EXPECT_NE(why.find("doubled"), std::string::npos);
}

TEST(CitusSizing, WorkerShareOfEachRole) {
  const Workload w = Tenants();
  const Distribution d = Distribute(w);
  const Workload one = WorkerWorkload(w, d, 4);
  ASSERT_EQ(one.relations.size(), 4u);
  for (const Relation& r : one.relations) {
    const Relation* all = w.Find(r.name);
    if (r.name == "public.countries") {  // whole, writes whole, reads / 4
      EXPECT_EQ(r.size, all->size);
      EXPECT_DOUBLE_EQ(r.updates_per_second, all->updates_per_second);
    } else {
      EXPECT_EQ(r.size, all->size / 4) << r.name;
      EXPECT_DOUBLE_EQ(r.read_iops, all->read_iops / 4);
      EXPECT_DOUBLE_EQ(r.write_iops, all->write_iops / 4);
    }
  }
  EXPECT_TRUE(CoordinatorWorkload(w, d).relations.empty());
}

// One worker's volumes: 2 data volumes and a WAL volume, 10,000 IOPS each.
VolumeSet WorkerVolumeSet() {
  VolumeSet vs;
  for (const char* name : {"wal", "d1", "d2"}) {
    Volume v;
    v.name = name;
    v.path = std::string("/mnt/") + name;
    v.capacity = 1024 * kGiB;
    v.read_iops = v.write_iops = 10000;
    v.read_mbps = v.write_mbps = 500;
    v.read_latency_us = 500;
    v.sync_write_latency_us = 800;
    vs.volumes.push_back(v);
  }
  return vs;
}

WorkerVolumes On(const VolumeSet& vs) {
  WorkerVolumes w;
  w.volumes = &vs;
  w.description = "test volumes";
  return w;
}

TEST(CitusSizing, FewestWorkersThatMeetTheTarget) {
  Workload w = Tenants();
  for (Relation& r : w.relations) r.read_iops *= 6;  // ~51,000 reads/s
  const VolumeSet vs = WorkerVolumeSet();
  const WorkerVolumes workers = On(vs);
  CitusPlan plan;
  ASSERT_TRUE(
      PlanCitus(w, PlanOptions{}, CitusOptions{}, workers, &vs, "test", &plan)
          .ok());
  ASSERT_GE(plan.workers, 2);
  ASSERT_EQ(plan.worker_forecast.size(), static_cast<size_t>(plan.workers));
  EXPECT_TRUE(plan.worker_forecast[0].fits) << plan.worker_forecast[0].note;
  EXPECT_LE(plan.worker_forecast[0].max_utilization, 0.7);
  EXPECT_EQ(plan.shard_count % plan.workers, 0);
  // One fewer would not have met it.
  CitusOptions fewer;
  fewer.workers = plan.workers - 1;
  CitusPlan less;
  if (fewer.workers >= 2) {
    ASSERT_TRUE(
        PlanCitus(w, PlanOptions{}, fewer, workers, &vs, "test", &less).ok());
    EXPECT_FALSE(less.worker_forecast[0].fits);
  }
  EXPECT_EQ(plan.coordinator.name, "coordinator");
  EXPECT_TRUE(plan.coordinator.fits);

  CitusOptions one;
  one.workers = 1;
  EXPECT_EQ(PlanCitus(w, PlanOptions{}, one, workers, &vs, "x", &plan).code(),
            Status::Code::kInvalidInput);
}

// citus.sql: the statements in Citus's order, every name quoted so that it
// reads back, shard_count only where Citus accepts it.
TEST(CitusSql, OrderAndQuoting) {
  Relation parent = Table("\"Odd Schema\".\"My \"\"T\"\"\"", 50 * kGiB,
                          {"Cust Id"}, 1000, 500, 300);
  Relation child = Table("\"Odd Schema\".kids", 50 * kGiB, {"Cust Id", "id"},
                         1000, 500, 300);
  child.foreign_keys_out = {
      "kids_fk (\"Cust Id\") -> \"Odd Schema\".\"My \"\"T\"\"\" (\"Cust "
      "Id\")",
      "kids_lookup_fk (code) -> public.\"it's\" (code)",
      "Kids Self (parent) -> \"Odd Schema\".kids (id)"};
  Relation lookup = Table("public.\"it's\"", 1 << 20, {"code"}, 0, 0, 0);
  CitusPlan plan;
  plan.reason = "--hosts 2";
  ASSERT_TRUE(BuildDistribution(Of({child, parent, lookup}), PlanOptions{},
                                CitusOptions{}, &plan.distribution)
                  .ok());
  plan.workers = 2;
  plan.shard_count = 32;
  plan.worker_forecast.resize(2);
  plan.worker_forecast[0].name = "worker1";
  plan.worker_forecast[1].name = "worker2";
  const std::string sql = CitusSql(plan);
  const std::vector<std::string> expected = {
      "SET standard_conforming_strings = on;\n",
      "CREATE EXTENSION IF NOT EXISTS citus;\n",
      "SELECT citus_add_node('worker1.invalid', 5432);\n",
      "SELECT citus_add_node('worker2.invalid', 5432);\n",
      "-- ALTER TABLE \"Odd Schema\".\"kids\" DROP CONSTRAINT \"Kids "
      "Self\";\n",
      "SELECT create_reference_table('\"public\".\"it''s\"');\n",
      "SELECT create_distributed_table('\"Odd Schema\".\"My \"\"T\"\"\"', "
      "'Cust Id', colocate_with => 'none', shard_count => 32);\n",
      "SELECT create_distributed_table('\"Odd Schema\".\"kids\"', 'Cust Id', "
      "colocate_with => '\"Odd Schema\".\"My \"\"T\"\"\"');\n",
  };
  size_t at = 0;
  for (const std::string& line : expected) {
    const size_t found = sql.find(line, at);
    ASSERT_NE(found, std::string::npos) << "missing or out of order:\n"
                                        << line << "\nin:\n"
                                        << sql;
    at = found + line.size();
  }
  // Every statement that is not a comment is one of the above.
  size_t statements = 0;
  for (size_t i = 0; i < sql.size();) {
    const size_t end = sql.find('\n', i);
    const std::string line = sql.substr(i, end - i);
    if (!line.empty() && !line.starts_with("--") && !line.starts_with("/*")) {
      ++statements;
    }
    i = end + 1;
  }
  EXPECT_EQ(statements, expected.size() - 1);  // the DROP is commented out
}

TEST(CitusOutputs, TomlJsonAndTextCarryTheDistribution) {
  const VolumeSet vs = WorkerVolumeSet();
  const WorkerVolumes workers = On(vs);
  CitusOptions two;
  two.workers = 2;
  CitusPlan plan;
  ASSERT_TRUE(
      PlanCitus(Tenants(), PlanOptions{}, two, workers, &vs, "--hosts 2", &plan)
          .ok());
  const std::string toml = CitusToml(plan);
  EXPECT_NE(toml.find("[citus]\n"), std::string::npos);
  EXPECT_NE(toml.find("workers = 2\n"), std::string::npos);
  EXPECT_NE(toml.find("shard_count = 32\n"), std::string::npos);
  EXPECT_NE(toml.find("[[citus.group]]\nanchor = \"public.customers\""),
            std::string::npos)
      << toml;
  const Json json = CitusJson(plan);
  EXPECT_EQ(json["workers"], 2);
  EXPECT_EQ(json["worker_forecast"].size(), 2u);
  EXPECT_EQ(json["tables"][0]["role"], "reference");
  const std::string text = RenderCitusText(plan);
  EXPECT_NE(text.find("group 1 by id / customer_id"), std::string::npos)
      << text;
  EXPECT_NE(text.find("worker2"), std::string::npos);
}

}  // namespace
}  // namespace pglayout::planner

namespace pglayout::planner {
namespace {

// |r| with the column types observe records.
Relation Typed(Relation r, std::vector<std::vector<std::string>> types) {
  r.column_types = std::move(types);
  return r;
}

// The sales schema: orders and order_lines both keyed by order_id bigint,
// no foreign key in the workload. Distributed by the same key name and
// type, they are one group (order_lines, created first, its anchor), and
// the group says why.
TEST(CitusColocation, TheSameKeyNameAndTypeMakeOneGroup) {
  Relation orders =
      Typed(Table("sales.orders", 200 * kGiB, {"order_id"}, 3000, 800, 400),
            {{"order_id", "bigint"}});
  Relation lines = Typed(Table("sales.order_lines", 400 * kGiB,
                               {"order_id", "line_no"}, 5000, 1500, 900),
                         {{"order_id", "bigint"}, {"line_no", "integer"}});
  Relation events =
      Typed(Table("sales.events", 300 * kGiB, {"event_id"}, 2000, 900, 300),
            {{"event_id", "bigint"}});
  const Distribution d = Distribute(Of({orders, lines, events}));
  ASSERT_EQ(d.groups.size(), 2u);
  // The first created (order_lines, the larger) is the group's anchor.
  const ColocationGroup& g = d.groups[Get(d, "sales.orders").group];
  EXPECT_EQ(g.anchor, "sales.order_lines");
  EXPECT_EQ(g.tables,
            (std::vector<std::string>{"sales.order_lines", "sales.orders"}));
  EXPECT_EQ(Get(d, "sales.order_lines").colocate_with, "none");
  EXPECT_EQ(Get(d, "sales.orders").colocate_with, "sales.order_lines");
  EXPECT_EQ(Get(d, "sales.events").colocate_with, "none");
  ASSERT_EQ(g.evidence.size(), 1u);
  EXPECT_EQ(g.evidence[0],
            "sales.order_lines and sales.orders are both distributed by "
            "order_id bigint (the same key name and type)");
  EXPECT_TRUE(Get(d, "sales.orders").cautions.empty())
      << Get(d, "sales.orders").cautions[0];
  EXPECT_TRUE(d.not_following.empty());
  CitusPlan plan;
  plan.distribution = d;
  plan.workers = 3;
  plan.shard_count = 48;
  plan.worker_forecast.resize(3);
  const std::string sql = CitusSql(plan);
  EXPECT_NE(sql.find("SELECT create_distributed_table('\"sales\".\"orders\"', "
                     "'order_id', colocate_with => "
                     "'\"sales\".\"order_lines\"');"),
            std::string::npos)
      << sql;
  EXPECT_NE(sql.find("/*   by sales.order_lines and sales.orders are both"),
            std::string::npos)
      << sql;
}

// A foreign key still decides: the child follows its parent's column even
// where another table shares a key name with it.
TEST(CitusColocation, AForeignKeyStillDecides) {
  Relation customers =
      Typed(Table("s.customers", 20 * kGiB, {"id"}), {{"id", "bigint"}});
  Relation orders = Typed(Table("s.orders", 200 * kGiB, {"customer_id", "id"}),
                          {{"id", "bigint"}, {"customer_id", "bigint"}});
  orders.foreign_keys_out = {
      "orders_customer_fkey (customer_id) -> s.customers (id)"};
  Relation notes = Typed(Table("s.notes", 30 * kGiB, {"customer_id", "n"}),
                         {{"customer_id", "bigint"}, {"n", "integer"}});
  const Distribution d = Distribute(Of({customers, orders, notes}));
  ASSERT_EQ(d.groups.size(), 1u) << d.groups.size();
  const ColocationGroup& g = d.groups[0];
  EXPECT_EQ(g.anchor, "s.customers");
  EXPECT_EQ(Get(d, "s.orders").column, "customer_id");
  EXPECT_EQ(Get(d, "s.notes").colocate_with, "s.customers");
  ASSERT_EQ(g.evidence.size(), 2u);
  EXPECT_EQ(g.evidence[0],
            "foreign key orders_customer_fkey (s.orders -> s.customers)");
  EXPECT_NE(g.evidence[1].find("are both distributed by customer_id"),
            std::string::npos)
      << g.evidence[1];
}

// Sizes three orders of magnitude apart and nothing that joins them: not
// co-located, and the plan says so. And "id", each table's own surrogate
// key, is no evidence at all.
TEST(CitusColocation, SizesFarApartWithoutAKeyStayApart) {
  Relation big =
      Typed(Table("s.big", 2000 * kGiB, {"tenant_id"}, 3000, 800, 400),
            {{"tenant_id", "uuid"}});
  Relation tiny = Typed(Table("s.tiny", kGiB, {"tenant_id"}, 3000, 800, 400),
                        {{"tenant_id", "uuid"}});
  const Distribution d = Distribute(Of({big, tiny}));
  EXPECT_EQ(d.groups.size(), 2u);
  const Distribution ids =
      Distribute(Of({Table("s.x", 20 * kGiB, {"id"}, 3000, 800, 400),
                     Table("s.y", 20 * kGiB, {"id"}, 3000, 800, 400)}));
  EXPECT_EQ(ids.groups.size(), 2u);
  ASSERT_EQ(d.not_following.size(), 1u);
  EXPECT_NE(
      d.not_following[0].find("s.tiny: distributed by tenant_id like s.big, "
                              "but their sizes"),
      std::string::npos)
      << d.not_following[0];
}

// The same key name of two types: Citus cannot co-locate them, and the plan
// says so rather than writing a colocate_with that citus.sql would fail on.
// A workload without types (an older observe) is not guessed at either.
TEST(CitusColocation, TheSameNameOfAnotherTypeOrNoTypeStaysApart) {
  Relation orders =
      Typed(Table("s.orders", 200 * kGiB, {"order_id"}, 3000, 800, 400),
            {{"order_id", "bigint"}});
  Relation lines =
      Typed(Table("s.lines", 100 * kGiB, {"order_id", "n"}, 3000, 800, 400),
            {{"order_id", "integer"}, {"n", "integer"}});
  const Distribution typed = Distribute(Of({orders, lines}));
  EXPECT_EQ(typed.groups.size(), 2u);
  // s.lines is created first (creation order is by name here).
  EXPECT_EQ(Get(typed, "s.lines").colocate_with, "none");
  EXPECT_EQ(Get(typed, "s.orders").colocate_with, "none");
  ASSERT_EQ(typed.not_following.size(), 1u);
  EXPECT_EQ(
      typed.not_following[0],
      "s.orders: distributed by order_id like s.lines, but as bigint "
      "against integer: Citus co-locates only distribution columns of one "
      "type: a group of its own");

  Relation untyped = lines;
  untyped.column_types.clear();
  const Distribution d = Distribute(Of({orders, untyped}));
  EXPECT_EQ(d.groups.size(), 2u);
  ASSERT_EQ(d.not_following.size(), 1u);
  EXPECT_EQ(d.not_following[0],
            "s.orders: distributed by order_id like s.lines, but the workload "
            "records no type of order_id for s.lines (observe again to record "
            "it), and Citus co-locates by type: not co-located on the name "
            "alone: a group of its own");

  // A third table of one of the types joins the earlier one of its type.
  Relation items =
      Typed(Table("s.items", 50 * kGiB, {"order_id", "k"}, 3000, 800, 400),
            {{"order_id", "integer"}, {"k", "integer"}});
  const Distribution three = Distribute(Of({orders, lines, items}));
  EXPECT_EQ(three.groups.size(), 2u);
  EXPECT_EQ(Get(three, "s.items").colocate_with, "none");
  EXPECT_EQ(Get(three, "s.lines").colocate_with, "s.items");
  EXPECT_EQ(Get(three, "s.orders").colocate_with, "none");
}

// A foreign key may pair an integer with a bigint; Citus then refuses the
// co-location, and the table's caution says so.
TEST(CitusColocation, AForeignKeyAcrossTypesIsACaution) {
  Relation customers =
      Typed(Table("s.customers", 20 * kGiB, {"id"}), {{"id", "bigint"}});
  Relation orders = Typed(Table("s.orders", 200 * kGiB, {"customer_id", "id"}),
                          {{"id", "bigint"}, {"customer_id", "integer"}});
  orders.foreign_keys_out = {
      "orders_customer_fkey (customer_id) -> s.customers (id)"};
  const Distribution d = Distribute(Of({customers, orders}));
  ASSERT_EQ(d.groups.size(), 1u);
  const CitusTable& t = Get(d, "s.orders");
  ASSERT_EQ(t.cautions.size(), 1u);
  EXPECT_EQ(t.cautions[0],
            "its distribution column customer_id is integer, its anchor "
            "s.customers's id is bigint: Citus refuses to co-locate them until "
            "both have one type");
}

}  // namespace
}  // namespace pglayout::planner
