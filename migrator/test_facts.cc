#include "migrator/test_facts.h"

#include "common/units.h"

namespace pglayout::migrator::fixtures {

ServerFacts Server(int version) {
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

}  // namespace pglayout::migrator::fixtures
