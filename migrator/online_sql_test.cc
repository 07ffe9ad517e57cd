// The SQL of an online move and hash conversion (online_sql.h), built from
// facts without a server.

#include "migrator/online_sql.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "common/quote.h"
#include "common/units.h"
#include "migrator/sql_util.h"
#include "migrator/test_facts.h"

namespace pglayout::migrator {
namespace {

using fixtures::HashPlan;
using fixtures::MovePlan;
using fixtures::Orders;
using fixtures::SalesPartition;
using fixtures::Server;

// Hash partition 1 of 3 split in 2: the copy is partitioned by the same key
// with modulus 6, remainders 1 and 4 (every row of remainder 1 of 3 has one
// of them), carries the partition constraint and, on each of its
// partitions, the parent's foreign key; the swap attaches it with the
// partition's bounds.
TEST(OnlineSql, ASplitPartitionsTheCopyByRemaindersOfTheParentsModulus) {
  TableFacts t = SalesPartition();
  t.partition.bound = "FOR VALUES WITH (modulus 3, remainder 1)";
  t.partition.constraint = "satisfies_hash_partition('16385'::oid, 3, 1, id)";
  t.partition.default_partition = "";
  Plan plan = HashPlan();
  OnlineTarget target = TargetOf(plan.placements[0], t);
  EXPECT_EQ(TargetModulus(target), 6);
  EXPECT_EQ(TargetRemainder(target, 0), 1);
  EXPECT_EQ(TargetRemainder(target, 1), 4);
  OnlineNames names = MakeOnlineNames(t, target);
  std::string create = Join(ShadowCreateSql(t, target, names, 150000), "\n");
  for (const char* want :
       {R"(CREATE TABLE "public"."orders_p0" PARTITION OF "public".)"
        R"("pglayout_new_16384" FOR VALUES WITH (MODULUS 6, REMAINDER 1))",
        R"(CREATE TABLE "public"."orders_p1" PARTITION OF "public".)"
        R"("pglayout_new_16384" FOR VALUES WITH (MODULUS 6, REMAINDER 4))",
        R"(ALTER TABLE "public"."pglayout_new_16384" ADD CONSTRAINT )"
        R"("pglayout_bound_16384" CHECK (satisfies_hash_partition()"}) {
    EXPECT_NE(create.find(want), std::string::npos) << want << "\n" << create;
  }
  std::vector<AttachPrep> preps = AttachPrepSql(t, names);
  ASSERT_EQ(preps.size(), 2u);
  EXPECT_EQ(preps[1].add,
            R"(ALTER TABLE "public"."orders_p1" ADD CONSTRAINT )"
            R"("sales_customer_fkey" FOREIGN KEY (customer) REFERENCES )"
            "customers(id) NOT VALID");
  std::string swap = Join(SwapSql(t, target, names, SwapInputs()), "\n");
  EXPECT_NE(swap.find(R"(ALTER TABLE public.sales ATTACH PARTITION )"
                      R"("public"."orders" FOR VALUES WITH (modulus 3, )"
                      "remainder 1)"),
            std::string::npos)
      << swap;
  // A conversion keeps modulus k, remainder i.
  OnlineTarget plain = TargetOf(plan.placements[0], Orders());
  EXPECT_EQ(TargetModulus(plain), 2);
  EXPECT_EQ(TargetRemainder(plain, 1), 1);
}

TEST(OnlineSql, HashBoundsParseAndOtherBoundsDoNot) {
  int m = 0, r = 0;
  EXPECT_TRUE(
      ParseHashBound("FOR VALUES WITH (modulus 12, remainder 11)", &m, &r));
  EXPECT_EQ(m, 12);
  EXPECT_EQ(r, 11);
  for (const char* bad : {"FOR VALUES FROM (1) TO (9)", "DEFAULT", "",
                          "FOR VALUES WITH (modulus 3, remainder 3)",
                          "FOR VALUES WITH (modulus 0, remainder 0)",
                          "FOR VALUES WITH (modulus 3, remainder 1) x"}) {
    EXPECT_FALSE(ParseHashBound(bad, &m, &r)) << bad;
  }
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
  // The table its inherited key references comes first: dropping that key
  // locks it.
  EXPECT_EQ(SwapLockSql(t, names),
            "LOCK TABLE public.customers, ONLY public.sales, " + table + ", " +
                shadow + ", public.sales_rest IN ACCESS EXCLUSIVE MODE");
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

// Keys of other tables to the parent: dropped before DETACH (which would
// check their rows against the partition), added back NOT VALID after
// ATTACH in the same transaction, validated after the swap unless they
// were NOT VALID before it.
TEST(OnlineSql, KeysToTheParentAreDroppedAroundTheSwapThenValidated) {
  TableFacts t = SalesPartition();
  t.partition.parent_fks_in = {
      {"line_sale_fkey", R"(public."Line;x")",
       "FOREIGN KEY (sale) REFERENCES public.sales(id)", true, false},
      {"old_sale_fkey", "public.archive",
       "FOREIGN KEY (sale) REFERENCES public.sales(id)", false, false}};
  OnlineTarget target;
  target.tablespaces = {"a"};
  OnlineNames names = MakeOnlineNames(t, target);
  const std::string table = R"("public"."orders")";
  std::vector<std::string> swap = SwapSql(t, target, names, SwapInputs());
  auto at = [&](const std::string& sql) {
    auto it = std::find(swap.begin(), swap.end(), sql);
    EXPECT_NE(it, swap.end()) << sql << "\n" << Join(swap, "\n");
    return it - swap.begin();
  };
  // Every other table of a key the swap drops, once, before the parent;
  // never the table itself (a key to itself is its own).
  t.dependents.fks_out = {
      {"self_fkey", "public.orders",
       "FOREIGN KEY (up) REFERENCES public.orders(id)", true},
      {"again_fkey", "public.customers",
       "FOREIGN KEY (c2) REFERENCES public.customers(id)", true}};
  EXPECT_EQ(Join(SwapLockedTables(t, names), " "),
            R"(public.customers public."Line;x" public.archive public.sales )" +
                table + R"( "public"."pglayout_new_16384" public.sales_rest)");
  t.dependents.fks_out.clear();
  auto drop_line =
      at(R"(ALTER TABLE public."Line;x" DROP CONSTRAINT "line_sale_fkey")");
  auto drop_old =
      at(R"(ALTER TABLE public.archive DROP CONSTRAINT "old_sale_fkey")");
  auto detach = at("ALTER TABLE public.sales DETACH PARTITION " + table);
  auto attach = at("ALTER TABLE public.sales ATTACH PARTITION " + table +
                   " FOR VALUES FROM (1000) TO (2000)");
  auto add_line =
      at(R"(ALTER TABLE public."Line;x" ADD CONSTRAINT "line_sale_fkey" )"
         "FOREIGN KEY (sale) REFERENCES public.sales(id) NOT VALID");
  auto add_old =
      at(R"(ALTER TABLE public.archive ADD CONSTRAINT "old_sale_fkey" )"
         "FOREIGN KEY (sale) REFERENCES public.sales(id) NOT VALID");
  EXPECT_LT(drop_line, detach);
  EXPECT_LT(drop_old, detach);
  EXPECT_LT(attach, add_line);
  EXPECT_LT(attach, add_old);
  const std::vector<std::string> not_valid = NotValidForeignKeys(t);
  EXPECT_EQ(not_valid,
            std::vector<std::string>{"parent:public.archive:old_sale_fkey"});
  const std::vector<std::string> post =
      PostSwapSql(t, names, {not_valid.begin(), not_valid.end()});
  EXPECT_NE(std::find(post.begin(), post.end(),
                      R"(ALTER TABLE public."Line;x" VALIDATE CONSTRAINT )"
                      R"("line_sale_fkey")"),
            post.end())
      << Join(post, "\n");
  EXPECT_EQ(Join(post, "\n").find("old_sale_fkey"), std::string::npos)
      << "a key NOT VALID before the swap stays so";
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
  t.columns[0].cast_type = "pg_catalog.int8";
  t.columns[1].cast_type = "pg_catalog.int4";
  t.keys.row_key = {"order id", "line"};
  return t;
}

TEST(OnlineSql, CompositeKeysUseRowComparisonsAndArrays) {
  TableFacts t = Composite();
  OnlineTarget target;
  target.tablespaces = {"a"};
  OnlineNames names = MakeOnlineNames(t, target);
  std::string copy = CopyBatchSql(t, names, 500, false);
  // The key's types by their schema: "$1::bigint" would be looked up.
  EXPECT_NE(copy.find("WHERE (\"order id\", \"line\") > ($1::pg_catalog.int8, "
                      "$2::pg_catalog.int4) ORDER BY \"order id\", \"line\" "
                      "LIMIT 500"),
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
  b.keys.row_key = {"b", "line"};
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
                          "FROM (pg_catalog.unnest($1::pg_catalog.int8[]), "
                          "pg_catalog.unnest($2::pg_catalog.int4[])))"),
            std::string::npos)
      << r.remove;
  EXPECT_NE(names.QualifiedTable().find("\"My \"\"Items\"\"\""),
            std::string::npos);
  std::vector<std::string> capture = CaptureCreateSql(t, names, 7, false);
  ASSERT_FALSE(capture.empty());
  EXPECT_NE(capture[0].find("k1 pg_catalog.int8 NOT NULL, k2 pg_catalog.int4 "
                            "NOT NULL"),
            std::string::npos)
      << capture[0];
  ASSERT_GE(capture.size(), 5u);
  EXPECT_EQ(capture[4],
            "REVOKE EXECUTE ON FUNCTION pglayout.capture_16384(), "
            "pglayout.block_truncate_16384() FROM PUBLIC")
      << "right after the functions, before the triggers use them";
}

TEST(OnlineSql, ShadowHasNoIndexUntilTheCopyEndsThenTheKeyFirst) {
  TableFacts t = Orders();
  // Listed after the other index, and its tablespace named by
  // pg_get_constraintdef, which must not follow it to the shadow.
  std::swap(t.indexes[0], t.indexes[1]);
  t.indexes[1].constraint_def =
      "PRIMARY KEY (id) USING INDEX TABLESPACE \"old \"\"ts\"\"\"";
  t.storage.reloptions = {"autovacuum_enabled=on", "fillfactor=90"};
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
  EXPECT_EQ(CopyTidRangeSql(t, names, BlockCopyFilter::kLoggedKeys),
            insert + not_logged);
  // Only rows written since $3 are looked up in the log.
  const std::string older =
      "pg_catalog.age(t.xmin) > pg_catalog.age($3::pg_catalog.xid)";
  EXPECT_EQ(CopyTidRangeSql(t, names, BlockCopyFilter::kLoggedSinceXmin),
            insert + "(" + older + " OR " + not_logged + ")");
  // Logical capture: rows since $3 go to the log, in the same snapshot, and
  // only older ones to the shadow.
  EXPECT_EQ(CopyTidRangeSql(t, names, BlockCopyFilter::kSinceXmin),
            "WITH logged AS (INSERT INTO pglayout.log_16384 (k1, k2) SELECT "
            "t.\"order id\", t.\"line\" FROM ONLY \"public\".\"My "
            "\"\"Items\"\"\" t WHERE t.ctid >= $1::pg_catalog.tid AND t.ctid < "
            "$2::pg_catalog.tid AND NOT " +
                older + ") " + insert + older);
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

// ------------------------------------------- the builders, hostile names

// Every statement the online SQL builders make for |t| going to |target|.
std::vector<std::string> AllOnlineSql(const TableFacts& t,
                                      const OnlineTarget& target,
                                      int server_version) {
  OnlineNames names = MakeOnlineNames(t, target);
  std::vector<std::string> all;
  auto add = [&all](const std::vector<std::string>& more) {
    all.insert(all.end(), more.begin(), more.end());
  };
  add(ShadowCreateSql(t, target, names, server_version));
  add(CaptureCreateSql(t, names, 7, false));
  add(CaptureCreateSql(t, names, 7, true));
  add({CopyBatchSql(t, names, 100, true), CopyBatchSql(t, names, 100, false),
       CopyTidRangeSql(t, names, BlockCopyFilter::kLoggedKeys),
       CopyTidRangeSql(t, names, BlockCopyFilter::kLoggedSinceXmin),
       CopyTidRangeSql(t, names, BlockCopyFilter::kSinceXmin)});
  for (const ShadowIndex& index : ShadowIndexSql(t, target, names)) {
    add(index.sql);
  }
  for (const AttachPrep& prep : AttachPrepSql(t, names)) {
    add({prep.add, prep.validate});
  }
  ReplaySql replay = MakeReplaySql(t, names);
  add({replay.take, replay.remove, replay.insert});
  for (VerifyScope scope :
       {VerifyScope::kAll, VerifyScope::kBlockRange, VerifyScope::kLoggedKeys,
        VerifyScope::kKeyArrays}) {
    add({VerifySumSql(t, names, "ONLY " + names.QualifiedTable(), scope),
         VerifySumSql(t, names, names.QualifiedShadow(), scope, true)});
  }
  add({DifferingKeysSql(t, names, 10), SwapLockSql(t, names)});
  add(SwapSql(t, target, names, SwapInputs()));
  add(PostSwapSql(t, names, {}));
  add(CaptureDropSql(names, true));
  add(CaptureDropSql(names, false));
  return all;
}

TEST(OnlineSql, EveryBuilderQuotesHostileNames) {
  for (const std::string& name : fixtures::HostileNames()) {
    SCOPED_TRACE(name);
    TableFacts t = fixtures::HostileTable(name);
    t.comment = "it's \\ a comment\nwith Zq in it";
    OnlineTarget move;
    move.tablespaces = {fixtures::Prefixed("T", name)};
    OnlineTarget hash;
    hash.partitioned = true;
    hash.partitions = 3;
    hash.tablespaces = {fixtures::Prefixed("T", name), "pg_default"};
    hash.key = {t.columns[0].name};
    for (int version : {120000, 150000, 180000}) {
      SCOPED_TRACE(version);
      EXPECT_EQ(fixtures::HostileNameProblems(AllOnlineSql(t, move, version)),
                "");
      EXPECT_EQ(fixtures::HostileNameProblems(AllOnlineSql(t, hash, version)),
                "");
    }
    // The partition of a hostile parent, with a DEFAULT partition beside it.
    TableFacts part = t;
    part.partition.is_partition = true;
    part.partition.parent =
        QuoteIdent(t.schema) + "." + QuoteIdent(fixtures::Prefixed("R", name));
    part.partition.bound = "FOR VALUES FROM (1) TO (9)";
    part.partition.constraint = "(" + QuoteIdent(t.columns[0].name) + " >= 1)";
    part.partition.default_partition =
        QuoteIdent(t.schema) + "." + QuoteIdent(fixtures::Prefixed("D", name));
    EXPECT_EQ(fixtures::HostileNameProblems(AllOnlineSql(part, move, 150000)),
              "");
  }
}

// A 63-byte table name: every name derived from it is cut to 63 bytes, a
// multibyte character is never split, and the partitions stay distinct.
TEST(OnlineNames, DerivedNamesOfALongNameStayDistinctWithin63Bytes) {
  for (const std::string& name : fixtures::HostileNames()) {
    SCOPED_TRACE(name);
    TableFacts t = fixtures::HostileTable(name);
    OnlineTarget hash;
    hash.partitioned = true;
    hash.partitions = 12;
    hash.tablespaces = {"a"};
    hash.key = {t.columns[0].name};
    OnlineNames names = MakeOnlineNames(t, hash);
    std::set<std::string> distinct;
    for (const std::string& n : PartitionRelationNames(t, hash)) {
      EXPECT_LE(n.size(), 63u) << n;
      EXPECT_NE(static_cast<unsigned char>(n.back()) & 0xC0, 0xC0) << n;
      EXPECT_TRUE(distinct.insert(n).second) << "twice: " << n;
    }
    EXPECT_EQ(distinct.size(), 12u * (1 + t.indexes.size()));
    EXPECT_EQ(names.partitions[11].substr(names.partitions[11].size() - 4),
              "_p11");
  }
}

// The swap for hostile names, in its order: capture triggers dropped, the
// old table renamed and moved away before the shadow takes its name, and
// the table's comment carried over as a literal.
TEST(OnlineSql, TheSwapRenamesInOrderAndCarriesTheCommentAsALiteral) {
  TableFacts t = fixtures::HostileTable("Zq\"uote");
  t.comment = "it's";
  OnlineTarget move;
  move.tablespaces = {"a"};
  OnlineNames names = MakeOnlineNames(t, move);
  std::vector<std::string> swap = SwapSql(t, move, names, SwapInputs());
  const std::string table = "\"SZq\"\"uote\".\"Zq\"\"uote\"";
  auto at = [&](const std::string& sql) {
    auto it = std::find(swap.begin(), swap.end(), sql);
    EXPECT_NE(it, swap.end()) << sql << "\n" << Join(swap, "\n");
    return it - swap.begin();
  };
  auto drop = at("DROP TRIGGER IF EXISTS pglayout_capture ON " + table);
  auto retire = at("ALTER TABLE " + table + " RENAME TO \"old_16384\"");
  auto away =
      at("ALTER TABLE \"SZq\"\"uote\".\"old_16384\" SET SCHEMA pglayout");
  auto rename =
      at("ALTER TABLE \"SZq\"\"uote\".\"pglayout_new_16384\" RENAME "
         "TO \"Zq\"\"uote\"");
  auto comment = at("COMMENT ON TABLE " + table + " IS 'it''s'");
  EXPECT_LT(drop, retire);
  EXPECT_LT(retire, away);
  EXPECT_LT(away, rename);
  EXPECT_LT(rename, comment);
}

}  // namespace
}  // namespace pglayout::migrator
