#include "migrator/test_facts.h"

#include <cctype>

#include "common/quote.h"
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
  t.security.owner = "app";
  t.storage.heap_size = 800 * kMiB;
  t.storage.index_size = 200 * kMiB;
  t.storage.reltuples = 1e6;
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
  t.keys.row_key = {"id"};
  t.keys.row_key_index = "orders_pkey";
  t.rule.keys = {
      {KeyConstraintFact::Kind::kPrimaryKey, "orders_pkey", {"id"}, false}};
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
  t.partition.is_partition = true;
  t.partition.parent = "public.sales";
  t.partition.bound = "FOR VALUES FROM (1000) TO (2000)";
  t.partition.constraint =
      "((id IS NOT NULL) AND (id >= 1000) AND "
      "(id < 2000))";
  t.partition.default_partition = "public.sales_rest";
  t.partition.inherited_fks_out = {
      {"sales_customer_fkey", "public.customers",
       "FOREIGN KEY (customer) REFERENCES customers(id)", true}};
  return t;
}

Plan MovePlan() {
  Plan p = HashPlan();
  p.placements[0].strategy = Strategy::kMove;
  p.placements[0].tablespaces = {"a"};
  p.settings.clear();
  return p;
}

std::vector<std::string> HostileNames() {
  std::string accented = "Zq";
  for (int i = 0; i < 30; ++i) accented += "\xc3\xa9";  // e acute
  accented += "x";
  return {
      "Zq\"uote", "Zq\\back", "Zq\nnew", "ZqMixed", "Zq" + std::string(61, 'L'),
      accented};
}

std::string Prefixed(const std::string& prefix, const std::string& name) {
  std::string out = prefix + name;
  if (out.size() > 63) out.resize(63);
  // Never end inside a UTF-8 character.
  while (!out.empty() &&
         (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) {
    out.pop_back();
  }
  if (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0xC0) {
    out.pop_back();
  }
  return out;
}

TableFacts HostileTable(const std::string& name) {
  TableFacts t = Orders();
  t.schema = Prefixed("S", name);
  t.name = name;
  t.security.owner = Prefixed("O", name);
  const std::string key = Prefixed("K", name);
  const std::string other = Prefixed("C", name);
  t.columns[0].name = key;
  t.columns[1].name = other;
  t.columns.pop_back();
  t.indexes[0].name = t.indexes[0].constraint = Prefixed("P", name);
  t.indexes[0].columns = {key};
  t.indexes[0].using_clause = "USING btree (" + QuoteIdent(key) + ")";
  t.indexes[1].name = Prefixed("I", name);
  t.indexes[1].columns = {other};
  t.indexes[1].using_clause = "USING btree (" + QuoteIdent(other) + ")";
  t.keys.row_key = {key};
  t.keys.row_key_index = t.indexes[0].name;
  return t;
}

SqlWords SplitSqlWords(const std::string& sql) {
  SqlWords words;
  size_t i = 0;
  auto quoted = [&](char quote, bool backslashes, std::string* into) {
    for (++i; i < sql.size(); ++i) {
      if (backslashes && sql[i] == '\\' && i + 1 < sql.size()) {
        into->push_back(sql[++i]);
      } else if (sql[i] != quote) {
        into->push_back(sql[i]);
      } else if (i + 1 < sql.size() && sql[i + 1] == quote) {
        into->push_back(quote);
        ++i;
      } else {
        ++i;
        return;
      }
    }
  };
  while (i < sql.size()) {
    const char c = sql[i];
    if (c == '"') {
      words.identifiers.emplace_back();
      quoted('"', false, &words.identifiers.back());
      words.outside += " \"\" ";
    } else if (c == '\'') {
      const bool escape =
          !words.outside.empty() &&
          (words.outside.back() == 'E' || words.outside.back() == 'e');
      std::string literal;
      quoted('\'', escape, &literal);
      words.outside += " '' ";
    } else if (c == '-' && i + 1 < sql.size() && sql[i + 1] == '-') {
      while (i < sql.size() && sql[i] != '\n') ++i;
    } else {
      words.outside += c;
      ++i;
    }
  }
  return words;
}

std::string HostileNameProblems(const std::vector<std::string>& sql) {
  std::string problems;
  for (const std::string& statement : sql) {
    SqlWords words = SplitSqlWords(statement);
    std::string lower = words.outside;
    for (char& c : lower) c = static_cast<char>(std::tolower(c));
    if (lower.find("zq") != std::string::npos) {
      problems += "a name outside quotes in: " + statement + "\n";
    }
    for (const std::string& id : words.identifiers) {
      if (id.size() > 63) {
        problems +=
            "identifier over 63 bytes (" + id + ") in: " + statement + "\n";
      }
    }
  }
  return problems;
}

}  // namespace pglayout::migrator::fixtures
