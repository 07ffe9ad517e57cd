#include "migrator/server_facts.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "common/units.h"
#include "migrator/sql_util.h"
#include "pg/pg_catalog_read.h"
#include "pg/sql_row.h"
#include "pg/table_facts_read.h"

namespace pglayout::migrator {
namespace {

// The first character of a "char" cell, 0 when empty or NULL.
char FirstChar(const std::string& text) { return text.empty() ? 0 : text[0]; }

// Column 0 of every row of |r|, appended to |out|.
Status ReadTexts(const SqlResult& r, const std::string& what,
                 std::vector<std::string>* out) {
  return ReadRows(r, what,
                  [&](SqlRowReader& row) { out->push_back(row.Text(0)); });
}

// The settings read for every run: those the checkpoint guard reads and
// may change, and maintenance_work_mem (the index builds' sort memory).
constexpr const char* kGuardSettings[] = {
    "max_wal_size",        "min_wal_size",
    "checkpoint_timeout",  "checkpoint_completion_target",
    "wal_level",           "server_version_num",
    "maintenance_work_mem"};

// The tablespaces of temp_tablespaces this session may create temp files
// in, as a text[]; NULL if none (then the database's default is used).
// An entry is an identifier: quoted ("Temp TS", with "" for a quote; only
// the outer quotes are stripped) or folded to lower case. A name with a comma
// in it is not understood.
constexpr char kTempTablespacesSql[] =
    "SELECT pg_catalog.array_agg(t.spcname::pg_catalog.text ORDER BY "
    "t.spcname) "
    "FROM pg_catalog.pg_tablespace t, pg_catalog.unnest(pg_catalog."
    "string_to_array(pg_catalog.current_setting('temp_tablespaces'),"
    " ',')) e WHERE "
    "CASE WHEN pg_catalog.btrim(e) LIKE '\"%' THEN pg_catalog.replace("
    "pg_catalog.substr(pg_catalog.btrim(e), 2, "
    "pg_catalog.length(pg_catalog.btrim(e)) - 2), '\"\"', '\"') ELSE "
    "pg_catalog.lower(pg_catalog.btrim(e)) END = t.spcname AND (t.spcname = "
    "'pg_default' OR pg_catalog.has_tablespace_privilege(t.oid, 'CREATE'))";

Status ReadServerBasics(SqlSession* s, ServerFacts* f) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(s->Execute(
      "SELECT pg_catalog.current_setting('server_version_num')::int, "
      "r.rolsuper, "
      "pg_catalog.has_database_privilege(pg_catalog.current_database(), "
      "'CREATE'), pg_catalog.pg_is_in_recovery(), current_user, "
      "pg_catalog.current_database(), "
      "CASE WHEN r.rolsuper THEN pg_catalog.current_setting('data_directory') "
      "END, "
      "coalesce(pg_catalog.current_setting('allow_alter_system', true), 'on'), "
      "pg_catalog.to_regnamespace('pglayout') IS NOT NULL, "
      "coalesce((" +
          std::string(kTempTablespacesSql) +
          "), (SELECT ARRAY[t.spcname::pg_catalog.text] FROM "
          "pg_catalog.pg_database d JOIN pg_catalog.pg_tablespace t ON t.oid "
          "= d.dattablespace WHERE d.datname = "
          "pg_catalog.current_database())) "
          "FROM pg_catalog.pg_roles r WHERE r.rolname = current_user",
      {}, &r));
  if (r.rows.empty()) return Status::Internal("current role not in pg_roles");
  SqlRowReader row(r, 0, "the server and the current role");
  f->version_num = static_cast<int>(row.Int(0));
  f->superuser = row.Bool(1);
  f->create_db_privilege = row.Bool(2);
  f->in_recovery = row.Bool(3);
  f->user = row.Text(4);
  f->database = row.Text(5);
  f->data_directory = row.Text(6);
  f->alter_system_allowed = row.Text(7) != "off";
  f->journal_schema_exists = row.Bool(8);
  for (const SqlValue& ts : ParseArrayLiteral(row.Text(9))) {
    if (ts) f->temp_tablespaces.push_back(*ts);
  }
  return row.status();
}

// pg_stat_file and pg_ls_dir are for superusers (or explicit grants); a
// non-superuser cannot create tablespaces anyway and is refused for that.
Status ReadPaths(SqlSession* s, const Plan& plan, ServerFacts* f) {
  if (!f->superuser) return Status::Ok();
  for (const TablespaceSpec& ts : plan.tablespaces) {
    SqlResult r;
    PGLAYOUT_RETURN_IF_ERROR(s->Execute(
        "SELECT (pg_catalog.pg_stat_file($1, true)).isdir", {ts.path}, &r));
    if (r.rows.empty() || !r.rows[0][0]) continue;  // missing
    SqlRowReader row(r, 0, "pg_stat_file of " + ts.path);
    bool is_dir = row.Bool(0);
    PGLAYOUT_RETURN_IF_ERROR(row.status());
    f->path_is_directory[ts.path] = is_dir;
    if (!is_dir) continue;
    SqlResult entries;
    PGLAYOUT_RETURN_IF_ERROR(s->Execute(
        "SELECT pg_catalog.pg_ls_dir($1) ORDER BY 1", {ts.path}, &entries));
    PGLAYOUT_RETURN_IF_ERROR(ReadTexts(entries, "pg_ls_dir of " + ts.path,
                                       &f->path_entries[ts.path]));
  }
  return Status::Ok();
}

Status ReadSettings(SqlSession* s, const Plan& plan, ServerFacts* f) {
  std::vector<std::string> names(std::begin(kGuardSettings),
                                 std::end(kGuardSettings));
  for (const SettingChange& c : plan.settings) names.push_back(c.name);
  std::map<std::string, PgSetting> settings;
  PGLAYOUT_RETURN_IF_ERROR(ReadPgSettings(s, names, &settings));
  for (const auto& [name, setting] : settings) {
    f->settings[name] = setting.setting;
    f->setting_units[name] = setting.unit;
    f->setting_contexts[name] = setting.context;
  }
  return Status::Ok();
}

Status ReadLockHolder(SqlSession* s, ServerFacts* f) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(s->Execute(
      "SELECT l.pid, a.application_name, a.backend_start::pg_catalog.text "
      "FROM pg_catalog.pg_locks l "
      "JOIN pg_catalog.pg_stat_activity a ON a.pid = l.pid "
      "WHERE l.locktype = 'advisory' AND l.granted "
      "AND l.classid = $1::pg_catalog.oid AND l.objid = $2::pg_catalog.oid AND "
      "l.objsubid = 2 "
      "AND l.database = (SELECT oid FROM pg_catalog.pg_database "
      "WHERE datname = pg_catalog.current_database()) "
      "AND l.pid <> pg_catalog.pg_backend_pid()",
      {std::to_string(kRunLockClass), std::to_string(kRunLockObject)}, &r));
  if (r.rows.empty()) return Status::Ok();
  SqlRowReader row(r, 0, "pg_locks (the run lock's holder)");
  f->lock_holder = fmt::format("pid {} ({}), connected since {}", row.Text(0),
                               row.Text(1), row.Text(2));
  return row.status();
}

// ------------------------------------------------------------- the table --

Status ReadTableRow(SqlSession* s, uint32_t oid, TableFacts* t) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(s->Execute(
      "SELECT c.oid, n.nspname, c.relname, c.relkind, c.relpersistence, "
      "c.relispartition, "
      "EXISTS (SELECT 1 FROM pg_catalog.pg_inherits i WHERE (i.inhrelid = "
      "c.oid AND NOT c.relispartition) OR (i.inhparent = c.oid AND c.relkind "
      "<> 'p')), "
      "c.reloftype <> 0, "
      "EXISTS (SELECT 1 FROM pg_catalog.pg_depend d WHERE d.classid = "
      "'pg_catalog.pg_class'::pg_catalog.regclass AND d.objid = c.oid AND "
      "d.deptype = "
      "'e'), "
      "n.nspname IN ('pg_catalog', 'information_schema') OR n.nspname LIKE "
      "'pg\\_toast%', "
      "pg_catalog.pg_get_userbyid(c.relowner), coalesce(t.spcname, ''), "
      "coalesce((SELECT pg_catalog.format('%I.%I', tn.nspname, tc.relname) "
      "  FROM pg_catalog.pg_index x "
      "  JOIN pg_catalog.pg_class tc ON tc.oid = x.indrelid "
      "  JOIN pg_catalog.pg_namespace tn ON tn.oid = tc.relnamespace "
      "  WHERE x.indexrelid = c.oid), ''), "
      "pg_catalog.pg_relation_size(c.oid, 'main') + "
      "pg_catalog.pg_relation_size(c.oid, 'fsm') + "
      "pg_catalog.pg_relation_size(c.oid, 'vm'), "
      "CASE WHEN c.reltoastrelid <> 0 "
      "THEN pg_catalog.pg_total_relation_size(c.reltoastrelid) ELSE 0 END, "
      "CASE WHEN c.relkind IN ('r', 'm', 'p') "
      "THEN pg_catalog.pg_indexes_size(c.oid) ELSE 0 END, "
      "greatest(c.reltuples, 0), c.relrowsecurity, c.relforcerowsecurity, "
      "c.relreplident, "
      "coalesce(pg_catalog.obj_description(c.oid, 'pg_class'), ''), "
      "pg_catalog.pg_has_role(c.relowner, 'USAGE') "
      "FROM pg_catalog.pg_class c "
      "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
      "LEFT JOIN pg_catalog.pg_tablespace t ON t.oid = c.reltablespace "
      "WHERE c.oid = $1::pg_catalog.oid",
      {std::to_string(oid)}, &r));
  if (r.rows.empty()) return Status::Ok();
  SqlRowReader row(r, 0, "pg_class (the table)");
  t->exists = true;
  t->oid = oid;
  t->schema = row.Text(1);
  t->name = row.Text(2);
  t->kind = FirstChar(row.Text(3));
  t->storage.persistence = PersistenceFromCode(FirstChar(row.Text(4)));
  t->partition.is_partition = row.Bool(5);
  t->has_inheritance = row.Bool(6);
  t->typed = row.Bool(7);
  t->extension_member = row.Bool(8);
  t->system = row.Bool(9);
  t->security.owner = row.Text(10);
  t->storage.tablespace = row.Text(11);
  t->table = row.Text(12);
  t->storage.heap_size = static_cast<uint64_t>(row.Int(13));
  t->storage.toast_size = static_cast<uint64_t>(row.Int(14));
  t->storage.index_size = static_cast<uint64_t>(row.Int(15));
  t->storage.reltuples = row.Double(16);
  t->security.row_security = row.Bool(17);
  t->security.force_row_security = row.Bool(18);
  t->storage.replica_identity =
      ReplicaIdentityFromCode(FirstChar(row.Text(19)));
  t->comment = row.Text(20);
  t->security.owner_privileges = row.Bool(21);
  return row.status();
}

Status ReadRelOptions(SqlSession* s, uint32_t oid, TableFacts* t) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(
      s->Execute("SELECT 'main', pg_catalog.unnest(c.reloptions) "
                 "FROM pg_catalog.pg_class c WHERE c.oid = $1::pg_catalog.oid "
                 "UNION ALL SELECT 'toast', pg_catalog.unnest(tc.reloptions) "
                 "FROM pg_catalog.pg_class c "
                 "JOIN pg_catalog.pg_class tc ON tc.oid = c.reltoastrelid "
                 "WHERE c.oid = $1::pg_catalog.oid",
                 {std::to_string(oid)}, &r));
  return ReadRows(r, "reloptions", [&](SqlRowReader& row) {
    (row.Text(0) == "main" ? t->storage.reloptions
                           : t->storage.toast_reloptions)
        .push_back(row.Text(1));
  });
}

// The default hash operator class of the column's type (of a domain's base
// type), or else of the preferred type of its category if it is
// binary-coercible to it (varchar -> text; not bpchar, which ignores
// trailing spaces; anything else hashes its text form); its
// support function 2 is the extended (seeded, 64-bit) hash. Names are
// spelled schema-qualified from the catalogs: regtype would print bpchar as
// "character", which as a cast target means character(1). The cast is a
// join, not a correlated IN subquery: PostgreSQL 18.4 plans that as a
// hashed subplan although it depends on the column, and found no cast for
// varchar.
constexpr char kColumnHashSql[] =
    "SELECT a.attname, coalesce(h.fn, ''), coalesce(h.intype, '') FROM "
    "pg_catalog.pg_attribute a JOIN pg_catalog.pg_type ty ON ty.oid = "
    "a.atttypid CROSS JOIN LATERAL (SELECT CASE WHEN ty.typtype = 'd' THEN "
    "ty.typbasetype ELSE ty.oid END AS base) b LEFT JOIN LATERAL (SELECT "
    "pg_catalog.format('%I.%I', pn.nspname, pr.proname) AS fn, "
    "pg_catalog.format('%I.%I', tn.nspname, it.typname) AS intype FROM "
    "pg_catalog.pg_opclass c JOIN pg_catalog.pg_am m ON m.oid = c.opcmethod "
    "AND m.amname = 'hash' JOIN pg_catalog.pg_amproc p ON p.amprocfamily = "
    "c.opcfamily AND p.amprocnum = 2 AND p.amproclefttype = c.opcintype AND "
    "p.amprocrighttype = c.opcintype JOIN pg_catalog.pg_proc pr ON pr.oid = "
    "p.amproc JOIN pg_catalog.pg_namespace pn ON pn.oid = pr.pronamespace "
    "JOIN pg_catalog.pg_type it ON it.oid = c.opcintype JOIN "
    "pg_catalog.pg_namespace tn ON tn.oid = it.typnamespace LEFT JOIN "
    "pg_catalog.pg_cast k ON k.castsource = b.base AND k.casttarget = "
    "c.opcintype AND k.castmethod = 'b' WHERE c.opcdefault AND (c.opcintype "
    "= b.base OR (it.typispreferred AND k.oid IS NOT NULL)) ORDER BY "
    "c.opcintype = b.base DESC LIMIT 1) h ON "
    "true WHERE a.attrelid = $1::pg_catalog.oid AND a.attnum > 0 AND "
    "NOT a.attisdropped ORDER BY a.attnum";

Status ReadColumns(SqlSession* s, uint32_t oid, TableFacts* t) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(s->Execute(
      "SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), "
      "a.attnotnull, a.attidentity, a.attgenerated, "
      "coalesce(a.attstattarget::int, -1), coalesce((SELECT "
      "pg_catalog.quote_ident(n.nspname) || '.' || "
      "pg_catalog.quote_ident(co.collname) FROM pg_catalog.pg_collation co "
      "JOIN pg_catalog.pg_namespace n ON n.oid = co.collnamespace WHERE "
      "co.oid = a.attcollation AND co.oid <> (SELECT typcollation FROM "
      "pg_catalog.pg_type WHERE oid = a.atttypid)), ''), (SELECT "
      "pg_catalog.format('%I.%I', tn.nspname, ty.typname) FROM "
      "pg_catalog.pg_type ty JOIN pg_catalog.pg_namespace tn ON tn.oid = "
      "ty.typnamespace WHERE ty.oid = a.atttypid) "
      "FROM pg_catalog.pg_attribute a WHERE a.attrelid = $1::pg_catalog.oid "
      "AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
      {std::to_string(oid)}, &r));
  PGLAYOUT_RETURN_IF_ERROR(ReadRows(r, "pg_attribute", [&](SqlRowReader& row) {
    ColumnFacts c;
    c.name = row.Text(0);
    c.type = row.Text(1);
    c.not_null = row.Bool(2);
    c.identity = FirstChar(row.Text(3));
    c.generated = FirstChar(row.Text(4));
    c.stat_target = static_cast<int>(row.Int(5));
    c.collation = row.Text(6);
    c.cast_type = row.Text(7);
    t->columns.push_back(std::move(c));
  }));
  SqlResult hashes;
  PGLAYOUT_RETURN_IF_ERROR(
      s->Execute(kColumnHashSql, {std::to_string(oid)}, &hashes));
  for (size_t i = 0; i < hashes.rows.size() && i < t->columns.size(); ++i) {
    SqlRowReader row(hashes, i, "the columns' hash functions");
    t->columns[i].hash_function = row.Text(1);
    t->columns[i].hash_input_type = row.Text(2);
    PGLAYOUT_RETURN_IF_ERROR(row.status());
  }
  SqlResult opts;
  PGLAYOUT_RETURN_IF_ERROR(s->Execute(
      "SELECT a.attname, pg_catalog.unnest(a.attoptions) "
      "FROM pg_catalog.pg_attribute a WHERE a.attrelid = $1::pg_catalog.oid "
      "AND a.attnum > 0 AND NOT a.attisdropped AND a.attoptions IS NOT NULL",
      {std::to_string(oid)}, &opts));
  return ReadRows(opts, "attoptions", [&](SqlRowReader& row) {
    // Only the options ALTER COLUMN SET accepts (n_distinct,
    // n_distinct_inherited); a server may keep private entries there.
    const std::string name = row.Text(0), option = row.Text(1);
    if (!option.starts_with("n_distinct")) return;
    for (ColumnFacts& c : t->columns) {
      if (c.name == name) c.options.push_back(option);
    }
  });
}

// "CREATE UNIQUE INDEX i ON public.t USING btree (id)" -> "USING btree (id)".
std::string UsingClause(const std::string& def, const std::string& printed) {
  std::string marker = " ON " + printed + " USING ";
  size_t at = def.find(marker);
  if (at == std::string::npos) {
    marker = " ON ONLY " + printed + " USING ";
    at = def.find(marker);
  }
  if (at == std::string::npos) return "";
  return def.substr(at + marker.size() - std::string("USING ").size());
}

Status ReadIndexes(SqlSession* s, uint32_t oid, TableFacts* t) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(s->Execute(
      "SELECT ic.relname, coalesce(ts.spcname, ''), "
      "pg_catalog.pg_relation_size(ic.oid), x.indisvalid, x.indisunique, "
      "x.indisprimary, x.indpred IS NOT NULL, x.indexprs IS NOT NULL, "
      "coalesce(con.conname, ''), coalesce(con.contype::pg_catalog.text, ''), "
      "pg_catalog.pg_get_indexdef(x.indexrelid), "
      "pg_catalog.format('%I.%I', n.nspname, c.relname), "
      "CASE WHEN con.oid IS NULL THEN '' "
      "ELSE pg_catalog.pg_get_constraintdef(con.oid) END, "
      "x.indisclustered, x.indisreplident, ic.reloptions "
      "FROM pg_catalog.pg_index x "
      "JOIN pg_catalog.pg_class ic ON ic.oid = x.indexrelid "
      "JOIN pg_catalog.pg_class c ON c.oid = x.indrelid "
      "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
      "LEFT JOIN pg_catalog.pg_tablespace ts ON ts.oid = ic.reltablespace "
      "LEFT JOIN pg_catalog.pg_constraint con ON con.conindid = x.indexrelid "
      "AND con.conrelid = x.indrelid AND con.contype IN ('p', 'u', 'x') "
      "WHERE x.indrelid = $1::pg_catalog.oid ORDER BY x.indisprimary DESC, "
      "ic.relname",
      {std::to_string(oid)}, &r));
  PGLAYOUT_RETURN_IF_ERROR(ReadRows(r, "pg_index", [&](SqlRowReader& row) {
    IndexFacts i;
    i.name = row.Text(0);
    i.tablespace = row.Text(1);
    i.size = static_cast<uint64_t>(row.Int(2));
    i.valid = row.Bool(3);
    i.unique = row.Bool(4);
    i.primary = row.Bool(5);
    i.partial = row.Bool(6);
    i.has_expressions = row.Bool(7);
    i.constraint = row.Text(8);
    i.constraint_type = FirstChar(row.Text(9));
    i.using_clause = UsingClause(row.Text(10), row.Text(11));
    i.constraint_def = row.Text(12);
    i.clustered = row.Bool(13);
    i.replica_identity = row.Bool(14);
    for (const SqlValue& o : ParseArrayLiteral(row.Text(15))) {
      if (o) i.options.push_back(*o);
    }
    t->indexes.push_back(std::move(i));
  }));
  SqlResult targets;
  PGLAYOUT_RETURN_IF_ERROR(s->Execute(
      "SELECT ic.relname, a.attnum, a.attstattarget::int FROM "
      "pg_catalog.pg_index x JOIN pg_catalog.pg_class ic ON ic.oid = "
      "x.indexrelid JOIN pg_catalog.pg_attribute a ON a.attrelid = ic.oid "
      "WHERE x.indrelid = $1::pg_catalog.oid AND a.attnum > 0 AND "
      "coalesce(a.attstattarget::int, -1) >= 0 ORDER BY 1, 2",
      {std::to_string(oid)}, &targets));
  PGLAYOUT_RETURN_IF_ERROR(ReadRows(
      targets, "the indexes' statistics targets", [&](SqlRowReader& row) {
        const std::string name = row.Text(0);
        const int column = static_cast<int>(row.Int(1));
        const int target = static_cast<int>(row.Int(2));
        for (IndexFacts& i : t->indexes) {
          if (i.name == name)
            i.column_stat_targets.emplace_back(column, target);
        }
      }));
  SqlResult cols;
  PGLAYOUT_RETURN_IF_ERROR(s->Execute(
      "SELECT ic.relname, a.attname FROM pg_catalog.pg_index x "
      "JOIN pg_catalog.pg_class ic ON ic.oid = x.indexrelid "
      "CROSS JOIN LATERAL pg_catalog.unnest(x.indkey::pg_catalog.int2[]) "
      "WITH ORDINALITY k(attnum, ord) "
      "JOIN pg_catalog.pg_attribute a ON a.attrelid = x.indrelid "
      "AND a.attnum = k.attnum "
      "WHERE x.indrelid = $1::pg_catalog.oid AND k.ord <= x.indnkeyatts "
      "ORDER BY ic.relname, k.ord",
      {std::to_string(oid)}, &cols));
  return ReadRows(cols, "the indexes' key columns", [&](SqlRowReader& row) {
    const std::string name = row.Text(0), column = row.Text(1);
    for (IndexFacts& i : t->indexes) {
      if (i.name == name) i.columns.push_back(column);
    }
  });
}

// The primary key, else the first usable unique index (pg_repack's rule).
void ChooseRowKey(TableFacts* t) {
  for (const IndexFacts& i : t->indexes) {
    if (i.primary && i.valid) {
      t->keys.row_key = i.columns;
      t->keys.row_key_index = i.name;
      return;
    }
  }
  for (const IndexFacts& i : t->indexes) {
    if (!i.unique || !i.valid || i.partial || i.has_expressions) continue;
    bool all_not_null = !i.columns.empty();
    for (const std::string& col : i.columns) {
      const ColumnFacts* c = t->FindColumn(col);
      if (!c || !c->not_null) all_not_null = false;
    }
    if (!all_not_null) continue;
    t->keys.row_key = i.columns;
    t->keys.row_key_index = i.name;
    return;
  }
}

// pg_get_constraintdef() ends a constraint that is not validated with
// " NOT VALID"; the SQL generators add it where they need it.
std::string WithoutNotValid(std::string definition) {
  constexpr std::string_view kSuffix = " NOT VALID";
  if (definition.ends_with(kSuffix)) {
    definition.resize(definition.size() - kSuffix.size());
  }
  return definition;
}

// Foreign keys from and to the table, and its CHECK constraints marked NOT
// VALID (which CREATE TABLE ... LIKE would copy as valid) or NO INHERIT
// (which a partitioned table cannot have).
Status ReadForeignKeys(SqlSession* s, uint32_t oid, TableFacts* t) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(
      s->Execute("SELECT c.conname, c.conrelid = $1::pg_catalog.oid, "
                 "c.confrelid = $1::pg_catalog.oid, "
                 "pg_catalog.format('%I.%I', rn.nspname, r.relname), "
                 "pg_catalog.format('%I.%I', fn.nspname, f.relname), "
                 "pg_catalog.pg_get_constraintdef(c.oid), c.convalidated, "
                 "r.relkind = 'p' "
                 "FROM pg_catalog.pg_constraint c "
                 "JOIN pg_catalog.pg_class r ON r.oid = c.conrelid "
                 "JOIN pg_catalog.pg_namespace rn ON rn.oid = r.relnamespace "
                 "JOIN pg_catalog.pg_class f ON f.oid = c.confrelid "
                 "JOIN pg_catalog.pg_namespace fn ON fn.oid = f.relnamespace "
                 "WHERE c.contype = 'f' AND c.conparentid = 0 "
                 "AND (c.conrelid = $1::pg_catalog.oid OR c.confrelid = "
                 "$1::pg_catalog.oid) ORDER BY 1",
                 {std::to_string(oid)}, &r));
  PGLAYOUT_RETURN_IF_ERROR(ReadRows(r, "foreign keys", [&](SqlRowReader& row) {
    bool out = row.Bool(1), in = row.Bool(2);
    bool valid = row.Bool(6);
    std::string definition = WithoutNotValid(row.Text(5));
    if (out)
      t->dependents.fks_out.push_back(
          {row.Text(0), row.Text(4), definition, valid});
    // A foreign key to the table itself is one of its own (fks_out): the
    // swap drops it with the old table's keys and adds it to the new one,
    // whose definition names the table, so it references the new table.
    if (in && !out) {
      t->dependents.fks_in.push_back(
          {row.Text(0), row.Text(3), definition, valid, row.Bool(7)});
    }
  }));
  SqlResult checks;
  PGLAYOUT_RETURN_IF_ERROR(s->Execute(
      "SELECT conname, pg_catalog.pg_get_constraintdef(oid), convalidated, "
      "connoinherit FROM pg_catalog.pg_constraint WHERE conrelid = "
      "$1::pg_catalog.oid "
      "AND contype = 'c' AND (NOT convalidated OR connoinherit) ORDER BY 1",
      {std::to_string(oid)}, &checks));
  return ReadRows(checks, "CHECK constraints", [&](SqlRowReader& row) {
    const std::string name = row.Text(0), definition = row.Text(1);
    const bool validated = row.Bool(2), no_inherit = row.Bool(3);
    if (!validated) {
      t->keys.not_valid_checks.push_back({name, WithoutNotValid(definition)});
    }
    if (validated && no_inherit) {
      t->keys.valid_no_inherit_checks.push_back({name, definition});
    }
  });
}

// What the hash rule judges, through the reader observe uses too
// (pg/table_facts_read.h), so that plan and preflight judge one reading.
Status ReadRuleFacts(SqlSession* s, uint32_t oid, TableFacts* t) {
  TableRuleFacts read;
  PGLAYOUT_RETURN_IF_ERROR(ReadTableRuleFacts(s, oid, &read));
  t->rule = RuleFactsOf(read, s->server_version());
  return Status::Ok();
}

// A partition's copies of its parent's row triggers: PostgreSQL makes them
// and ATTACH PARTITION makes them again (internal ones on 12, marked by
// tgparentid from 13 on).
std::string InheritedTriggers(SqlSession* s) {
  return s->server_version() >= 130000 ? " AND tgparentid = 0" : "";
}

Status ReadTriggersAndPolicies(SqlSession* s, uint32_t oid, TableFacts* t) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(s->Execute(
      "SELECT tgname, pg_catalog.pg_get_triggerdef(oid), tgenabled "
      "FROM pg_catalog.pg_trigger WHERE tgrelid = $1::pg_catalog.oid "
      "AND NOT tgisinternal AND tgname NOT IN " +
          std::string(kOwnTriggerNames) + InheritedTriggers(s) + " ORDER BY 1",
      {std::to_string(oid)}, &r));
  PGLAYOUT_RETURN_IF_ERROR(ReadRows(r, "pg_trigger", [&](SqlRowReader& row) {
    t->dependents.triggers.push_back(
        {row.Text(0), row.Text(1), FirstChar(row.Text(2))});
  }));
  // A trigger of ours calls a function in schema pglayout; one that does
  // not is the user's, under a name an online copy needs.
  SqlResult taken;
  PGLAYOUT_RETURN_IF_ERROR(s->Execute(
      "SELECT t.tgname FROM pg_catalog.pg_trigger t JOIN pg_catalog.pg_proc f "
      "ON f.oid = t.tgfoid JOIN pg_catalog.pg_namespace n ON n.oid = "
      "f.pronamespace WHERE t.tgrelid = $1::pg_catalog.oid AND n.nspname <> "
      "'pglayout' "
      "AND t.tgname IN " +
          std::string(kOwnTriggerNames) + " ORDER BY 1",
      {std::to_string(oid)}, &taken));
  PGLAYOUT_RETURN_IF_ERROR(ReadTexts(taken, "triggers named like ours",
                                     &t->dependents.triggers_named_like_ours));
  SqlResult p;
  PGLAYOUT_RETURN_IF_ERROR(s->Execute(
      "SELECT p.polname, 'AS ' || CASE WHEN p.polpermissive "
      "THEN 'PERMISSIVE' ELSE 'RESTRICTIVE' END || ' FOR ' || "
      "CASE p.polcmd WHEN 'r' THEN 'SELECT' WHEN 'a' THEN 'INSERT' "
      "WHEN 'w' THEN 'UPDATE' WHEN 'd' THEN 'DELETE' ELSE 'ALL' END || "
      "' TO ' || (SELECT pg_catalog.string_agg(CASE WHEN r = 0 THEN "
      "'PUBLIC' ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(r)) "
      "END, ', ') FROM pg_catalog.unnest(p.polroles) r) || "
      "coalesce(' USING (' || pg_catalog.pg_get_expr(p.polqual, "
      "p.polrelid) || ')', '') || coalesce(' WITH CHECK (' || "
      "pg_catalog.pg_get_expr(p.polwithcheck, p.polrelid) || ')', '') "
      "FROM pg_catalog.pg_policy p WHERE p.polrelid = $1::pg_catalog.oid ORDER "
      "BY 1",
      {std::to_string(oid)}, &p));
  return ReadRows(p, "pg_policy", [&](SqlRowReader& row) {
    t->security.policies.push_back({row.Text(0), row.Text(1)});
  });
}

// The table's extended statistics objects, oldest first. Targets exist
// from PostgreSQL 13 on (NULL for the default from 17).
Status ReadStatistics(SqlSession* s, uint32_t oid, TableFacts* t) {
  std::string target = s->server_version() >= 130000
                           ? "coalesce(x.stxstattarget::int, -1)"
                           : "-1";
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(s->Execute(
      "SELECT n.nspname, x.stxname, " + target +
          ", pg_catalog.pg_get_userbyid(x.stxowner) FROM "
          "pg_catalog.pg_statistic_ext x JOIN pg_catalog.pg_namespace n "
          "ON n.oid = x.stxnamespace WHERE x.stxrelid = $1::pg_catalog.oid "
          "ORDER BY "
          "x.oid",
      {std::to_string(oid)}, &r));
  return ReadRows(r, "pg_statistic_ext", [&](SqlRowReader& row) {
    t->statistics.push_back(
        {row.Text(0), row.Text(1), static_cast<int>(row.Int(2)), row.Text(3)});
  });
}

// COMMENT statements for what the swap makes anew and LIKE does not copy:
// the table's indexes, its key, exclusion, foreign-key and NOT VALID check
// constraints, triggers and policies, and the foreign keys of other tables
// to it. "{table}" stands for the table.
Status ReadObjectComments(SqlSession* s, uint32_t oid, TableFacts* t) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(s->Execute(
      "SELECT pg_catalog.format('COMMENT ON INDEX %I.%I IS %L', n.nspname, "
      "ic.relname, d.description) FROM pg_catalog.pg_index x JOIN "
      "pg_catalog.pg_class ic ON ic.oid = x.indexrelid JOIN "
      "pg_catalog.pg_namespace n ON n.oid = ic.relnamespace JOIN "
      "pg_catalog.pg_description d ON d.objoid = ic.oid AND d.classoid = "
      "'pg_catalog.pg_class'::pg_catalog.regclass AND d.objsubid = 0 WHERE "
      "x.indrelid = "
      "$1::pg_catalog.oid "
      "UNION ALL SELECT pg_catalog.format('COMMENT ON CONSTRAINT %I ON %s IS "
      "%L', c.conname, CASE WHEN c.conrelid = $1::pg_catalog.oid THEN "
      "'{table}' ELSE "
      "c.conrelid::pg_catalog.regclass::pg_catalog.text END, d.description) "
      "FROM "
      "pg_catalog.pg_constraint c JOIN pg_catalog.pg_description d ON "
      "d.objoid = c.oid AND d.classoid = "
      "'pg_catalog.pg_constraint'::pg_catalog.regclass "
      "WHERE (c.conrelid = $1::pg_catalog.oid AND (c.contype IN ('p', 'u', "
      "'x', 'f') OR "
      "(c.contype = 'c' AND NOT c.convalidated))) OR (c.confrelid = "
      "$1::pg_catalog.oid "
      "AND c.contype = 'f' AND c.conrelid <> $1::pg_catalog.oid AND "
      "c.conparentid = 0) "
      "UNION ALL SELECT pg_catalog.format('COMMENT ON TRIGGER %I ON {table} IS "
      "%L', tr.tgname, d.description) FROM pg_catalog.pg_trigger tr JOIN "
      "pg_catalog.pg_description d ON d.objoid = tr.oid AND d.classoid = "
      "'pg_catalog.pg_trigger'::pg_catalog.regclass WHERE tr.tgrelid = "
      "$1::pg_catalog.oid AND NOT "
      "tr.tgisinternal "
      "UNION ALL SELECT pg_catalog.format('COMMENT ON POLICY %I ON {table} IS "
      "%L', p.polname, d.description) FROM pg_catalog.pg_policy p JOIN "
      "pg_catalog.pg_description d ON d.objoid = p.oid AND d.classoid = "
      "'pg_catalog.pg_policy'::pg_catalog.regclass WHERE p.polrelid = "
      "$1::pg_catalog.oid ORDER BY 1",
      {std::to_string(oid)}, &r));
  return ReadTexts(r, "pg_description", &t->object_comments);
}

// The statements that give the new table the old one's privileges, with
// "{table}" standing for the table (pg_repack keeps them with the table;
// a swap must make them again, and exactly):
// - what the owner revoked from itself stays revoked (a new table gives
//   its owner everything);
// - a privilege granted by another role (one that holds it WITH GRANT
//   OPTION) is granted again by that role, under SET LOCAL ROLE, so that
//   REVOKE ... CASCADE from it still takes it away; a grantor's own grant
//   option comes first.
// A superuser's grant is recorded as the owner's, so the owner's need no
// role change. Grantors without USAGE on the table's schema could not name
// it: GatherTableFacts lists them for the preflight.
// |object| names what they are for: "TABLE {table}", or an identity
// sequence ("SEQUENCE s.t_id_seq"), which the swap makes anew too.
Status ReadGrants(SqlSession* s, uint32_t oid, const std::string& object,
                  TableFacts* t) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(s->Execute(
      "SELECT a.privilege_type, '', a.grantor = c.relowner, "
      "pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantor)), CASE "
      "WHEN a.grantee = 0 THEN 'PUBLIC' ELSE "
      "pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)) END, "
      "a.is_grantable, pg_catalog.has_schema_privilege(a.grantor, "
      "c.relnamespace, 'USAGE') FROM pg_catalog.pg_class c, "
      "pg_catalog.aclexplode(c.relacl) a WHERE c.oid = $1::pg_catalog.oid "
      "AND a.grantee <> c.relowner "
      "UNION ALL SELECT a.privilege_type, att.attname, a.grantor = "
      "c.relowner, "
      "pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantor)), CASE "
      "WHEN a.grantee = 0 THEN 'PUBLIC' ELSE "
      "pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)) END, "
      "a.is_grantable, pg_catalog.has_schema_privilege(a.grantor, "
      "c.relnamespace, 'USAGE') FROM pg_catalog.pg_class c JOIN "
      "pg_catalog.pg_attribute att ON att.attrelid = c.oid, "
      "pg_catalog.aclexplode(att.attacl) a WHERE c.oid = $1::pg_catalog.oid "
      "AND att.attacl IS NOT NULL AND NOT att.attisdropped ORDER BY 2, 5, 1",
      {std::to_string(oid)}, &r));
  struct Grant {
    std::string privilege, column, grantor, grantee;
    bool by_owner, grantable, grantor_sees_schema;
  };
  std::vector<Grant> pending;
  PGLAYOUT_RETURN_IF_ERROR(ReadRows(r, "grants", [&](SqlRowReader& row) {
    pending.push_back({row.Text(0), row.Text(1), row.Text(3), row.Text(4),
                       row.Bool(2), row.Bool(5), row.Bool(6)});
  }));
  SqlResult revoked;
  PGLAYOUT_RETURN_IF_ERROR(s->Execute(
      "SELECT d.privilege_type, "
      "pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(c.relowner)) FROM "
      "pg_catalog.pg_class c, pg_catalog.aclexplode(pg_catalog.acldefault("
      "CASE c.relkind WHEN 'S' THEN 's' ELSE 'r' END::pg_catalog.\"char\", "
      "c.relowner)) d WHERE c.oid = $1::pg_catalog.oid AND c.relacl IS NOT "
      "NULL "
      "AND NOT EXISTS (SELECT FROM pg_catalog.aclexplode(c.relacl) a WHERE "
      "a.grantee = c.relowner AND a.privilege_type = d.privilege_type) "
      "ORDER BY 1",
      {std::to_string(oid)}, &revoked));
  PGLAYOUT_RETURN_IF_ERROR(ReadRows(
      revoked, "the owner's revoked privileges", [&](SqlRowReader& row) {
        t->security.grants.push_back(fmt::format(
            "REVOKE {} ON {} FROM {}", row.Text(0), object, row.Text(1)));
      }));
  // Grants in an order where every grantor holds its grant option first:
  // the owner's, then rounds of those whose grantor's option is granted.
  std::set<std::string> options;  // "grantee|privilege|column" given
  auto held = [&](const Grant& g) {
    return g.by_owner ||
           options.count(g.grantor + "|" + g.privilege + "|" + g.column) ||
           options.count(g.grantor + "|" + g.privilege + "|");
  };
  auto emit = [&](const Grant& g) {
    if (!g.by_owner) {
      t->security.grants.push_back("SET LOCAL ROLE " + g.grantor);
      if (!g.grantor_sees_schema) {
        t->security.grantors_without_usage.push_back(g.grantor);
      }
    }
    t->security.grants.push_back(fmt::format(
        "GRANT {}{} ON {} TO {}{}", g.privilege,
        g.column.empty() ? "" : " (" + QuoteIdent(g.column) + ")", object,
        g.grantee, g.grantable ? " WITH GRANT OPTION" : ""));
    if (!g.by_owner) t->security.grants.push_back("SET LOCAL ROLE NONE");
    if (g.grantable) {
      options.insert(g.grantee + "|" + g.privilege + "|" + g.column);
    }
  };
  while (!pending.empty()) {
    std::vector<Grant> next;
    for (const Grant& g : pending) {
      if (held(g)) {
        emit(g);
      } else {
        next.push_back(g);
      }
    }
    if (next.size() == pending.size()) {    // no grantor holds its option:
      for (const Grant& g : next) emit(g);  // the server will say why
      break;
    }
    pending = std::move(next);
  }
  return Status::Ok();
}

// Every other object that refers to the table by oid (pg_depend, normal
// dependencies, and other tables' constraint triggers FROM it) and that the
// swap neither recreates nor re-points: a policy or a rule of another
// table, for example. What the swap carries (the
// table's own indexes, constraints, triggers, policies, rules and
// statistics; other tables' foreign keys and their triggers; views) and
// what other facts refuse on their own (functions, publications,
// inheritance children, materialized views) are left out here.
Status ReadBoundDependents(SqlSession* s, uint32_t oid, TableFacts* t) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(s->Execute(
      "SELECT DISTINCT pg_catalog.pg_describe_object(d.classid, d.objid, 0) "
      "FROM pg_catalog.pg_depend d "
      "WHERE d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass "
      "AND d.refobjid = $1::pg_catalog.oid AND d.deptype = 'n' "
      "AND d.classid NOT IN ('pg_catalog.pg_proc'::pg_catalog.regclass, "
      "'pg_catalog.pg_publication_rel'::pg_catalog.regclass) "
      "AND NOT (d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND "
      "(d.objid = $1::pg_catalog.oid OR d.objid IN (SELECT inhrelid FROM "
      "pg_catalog.pg_inherits WHERE inhparent = $1::pg_catalog.oid) OR d.objid "
      "IN "
      "(SELECT indexrelid FROM pg_catalog.pg_index WHERE indrelid = "
      "$1::pg_catalog.oid))) "
      "AND NOT (d.classid = 'pg_catalog.pg_constraint'::pg_catalog.regclass "
      "AND d.objid "
      "IN (SELECT oid FROM pg_catalog.pg_constraint WHERE conrelid = "
      "$1::pg_catalog.oid "
      "OR contype = 'f')) "
      "AND NOT (d.classid = 'pg_catalog.pg_trigger'::pg_catalog.regclass AND "
      "d.objid IN "
      "(SELECT oid FROM pg_catalog.pg_trigger WHERE tgrelid = "
      "$1::pg_catalog.oid OR "
      "tgconstraint <> 0)) "
      "AND NOT (d.classid = 'pg_catalog.pg_policy'::pg_catalog.regclass AND "
      "d.objid IN "
      "(SELECT oid FROM pg_catalog.pg_policy WHERE polrelid = "
      "$1::pg_catalog.oid)) "
      "AND NOT (d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass AND "
      "d.objid IN "
      "(SELECT rw.oid FROM pg_catalog.pg_rewrite rw JOIN pg_catalog.pg_class v "
      "ON v.oid = rw.ev_class WHERE rw.ev_class = $1::pg_catalog.oid OR "
      "(rw.rulename = "
      "'_RETURN' AND v.relkind IN ('v', 'm')))) "
      "AND NOT (d.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass AND "
      "d.objid IN "
      "(SELECT oid FROM pg_catalog.pg_attrdef WHERE adrelid = "
      "$1::pg_catalog.oid)) "
      "AND NOT (d.classid = 'pg_catalog.pg_statistic_ext'::pg_catalog.regclass "
      "AND "
      "d.objid IN (SELECT oid FROM pg_catalog.pg_statistic_ext WHERE "
      "stxrelid = $1::pg_catalog.oid)) "
      // Another table's constraint trigger naming it (FROM): an automatic
      // dependency, so it would go with the old copy at --finalize.
      "UNION SELECT pg_catalog.pg_describe_object('pg_catalog.pg_trigger'"
      "::pg_catalog.regclass, tg.oid, 0) FROM pg_catalog.pg_trigger tg WHERE "
      "tg.tgconstrrelid = $1::pg_catalog.oid AND tg.tgrelid <> "
      "$1::pg_catalog.oid AND NOT "
      "tg.tgisinternal ORDER BY 1",
      {std::to_string(oid)}, &r));
  return ReadTexts(r, "pg_depend (objects bound by oid)", &t->dependents.bound);
}

// Objects that refer to the table by oid and would keep pointing at the old
// copy after a rename swap (docs/online-migration.md#objects-bound-by-oid,
// #row-type-users).
Status ReadDependents(SqlSession* s, uint32_t oid, TableFacts* t) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(s->Execute(
      "SELECT DISTINCT pg_catalog.format('%I.%I', vn.nspname, v.relname), "
      "v.relkind, CASE WHEN v.relkind = 'v' THEN "
      "pg_catalog.pg_get_viewdef(v.oid) END FROM pg_catalog.pg_depend d "
      "JOIN pg_catalog.pg_rewrite rw ON rw.oid = d.objid "
      "JOIN pg_catalog.pg_class v ON v.oid = rw.ev_class "
      "JOIN pg_catalog.pg_namespace vn ON vn.oid = v.relnamespace "
      "WHERE d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass "
      "AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass "
      "AND d.refobjid = $1::pg_catalog.oid AND v.oid <> $1::pg_catalog.oid "
      "AND rw.rulename = '_RETURN' AND v.relkind IN ('v', 'm') ORDER BY 1",
      {std::to_string(oid)}, &r));
  PGLAYOUT_RETURN_IF_ERROR(
      ReadRows(r, "dependent views", [&](SqlRowReader& row) {
        if (FirstChar(row.Text(1)) == 'm') {
          t->dependents.matviews.push_back(row.Text(0));
        } else {
          t->dependents.views.push_back({row.Text(0), row.Text(2), {}});
        }
      }));
  for (ViewFacts& v : t->dependents.views) {
    SqlResult opts;
    PGLAYOUT_RETURN_IF_ERROR(s->Execute(
        "SELECT pg_catalog.unnest(reloptions) FROM pg_catalog.pg_class "
        "WHERE oid = $1::pg_catalog.regclass",
        {v.name}, &opts));
    PGLAYOUT_RETURN_IF_ERROR(
        ReadTexts(opts, "reloptions of " + v.name, &v.options));
  }
  SqlResult rules;
  PGLAYOUT_RETURN_IF_ERROR(
      s->Execute("SELECT rulename FROM pg_catalog.pg_rewrite WHERE ev_class = "
                 "$1::pg_catalog.oid "
                 "AND rulename <> '_RETURN' ORDER BY 1",
                 {std::to_string(oid)}, &rules));
  PGLAYOUT_RETURN_IF_ERROR(
      ReadTexts(rules, "pg_rewrite", &t->dependents.rules));
  SqlResult users;
  PGLAYOUT_RETURN_IF_ERROR(s->Execute(
      "SELECT pg_catalog.pg_describe_object(d.classid, d.objid, d.objsubid) "
      "FROM pg_catalog.pg_depend d WHERE d.deptype = 'n' AND ("
      "(d.refclassid = 'pg_catalog.pg_type'::pg_catalog.regclass AND "
      "d.refobjid = "
      "(SELECT reltype FROM pg_catalog.pg_class WHERE oid = "
      "$1::pg_catalog.oid)) OR "
      "(d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND d.refclassid "
      "= "
      "'pg_catalog.pg_class'::pg_catalog.regclass AND d.refobjid = "
      "$1::pg_catalog.oid)) ORDER BY 1",
      {std::to_string(oid)}, &users));
  PGLAYOUT_RETURN_IF_ERROR(
      ReadTexts(users, "users of the row type", &t->dependents.rowtype_users));
  return ReadBoundDependents(s, oid, t);
}

Status ReadReplicationAndSequences(SqlSession* s, uint32_t oid, TableFacts* t) {
  // PostgreSQL 12 grants no role but a superuser pg_subscription.oid: the
  // subscription is then named by its oid.
  SqlValue named;
  PGLAYOUT_RETURN_IF_ERROR(QueryValue(
      s,
      "SELECT pg_catalog.has_column_privilege("
      "'pg_catalog.pg_subscription'::pg_catalog.regclass, 'oid', 'SELECT')",
      {}, &named));
  SqlResult sub;
  PGLAYOUT_RETURN_IF_ERROR(s->Execute(
      named && *named == "t"
          ? "SELECT s.subname FROM pg_catalog.pg_subscription_rel r JOIN "
            "pg_catalog.pg_subscription s ON s.oid = r.srsubid WHERE "
            "r.srrelid = $1::pg_catalog.oid ORDER BY 1"
          : "SELECT pg_catalog.concat('subscription ', r.srsubid) FROM "
            "pg_catalog.pg_subscription_rel r WHERE r.srrelid = "
            "$1::pg_catalog.oid "
            "ORDER BY 1",
      {std::to_string(oid)}, &sub));
  PGLAYOUT_RETURN_IF_ERROR(
      ReadTexts(sub, "pg_subscription_rel", &t->dependents.subscriptions));
  SqlResult seq;
  PGLAYOUT_RETURN_IF_ERROR(s->Execute(
      "SELECT d.deptype, pg_catalog.format('%I.%I', sn.nspname, s.relname), "
      "a.attname, pg_catalog.format_type(q.seqtypid, NULL), s.oid, "
      "pg_catalog.obj_description(s.oid, 'pg_class') FROM "
      "pg_catalog.pg_depend d "
      "JOIN pg_catalog.pg_class s ON s.oid = d.objid AND s.relkind = 'S' "
      "JOIN pg_catalog.pg_sequence q ON q.seqrelid = s.oid "
      "JOIN pg_catalog.pg_namespace sn ON sn.oid = s.relnamespace "
      "JOIN pg_catalog.pg_attribute a ON a.attrelid = d.refobjid "
      "AND a.attnum = d.refobjsubid "
      "WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass "
      "AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass "
      "AND d.refobjid = $1::pg_catalog.oid AND d.deptype IN ('a', 'i') ORDER "
      "BY 2",
      {std::to_string(oid)}, &seq));
  for (size_t i = 0; i < seq.rows.size(); ++i) {
    SqlRowReader row(seq, i, "the table's sequences");
    const char deptype = FirstChar(row.Text(0));
    const std::string sequence = row.Text(1), column = row.Text(2);
    const std::string type = row.Text(3);
    const uint32_t sequence_oid = static_cast<uint32_t>(row.Int(4));
    const bool has_comment = !row.IsNull(5);
    const std::string comment = row.Text(5);
    PGLAYOUT_RETURN_IF_ERROR(row.status());
    (deptype == 'a' ? t->dependents.owned_sequences
                    : t->dependents.identity_sequences)
        .push_back(sequence + "|" + column);
    if (deptype != 'i') continue;
    // The swap makes identity sequences anew: their type, privileges and
    // comment come back by name.
    t->dependents.identity_sequence_types[column] = type;
    PGLAYOUT_RETURN_IF_ERROR(
        ReadGrants(s, sequence_oid, "SEQUENCE " + sequence, t));
    if (has_comment) {
      t->object_comments.push_back(fmt::format(
          "COMMENT ON SEQUENCE {} IS {}", sequence, QuoteLiteral(comment)));
    }
  }
  return Status::Ok();
}

// A partition's parent, bound and partition constraint, the parent's
// DEFAULT partition, the foreign keys it has from its parent and those
// that reference an ancestor (docs/online-migration.md#moving-a-partition).
// Code of other roles (TableFacts::security.untrusted_code). The column types
// are followed through domains, arrays, composite types and ranges to every
// domain whose constraints a value is checked against; the expressions'
// functions are found through pg_depend, which records each function and
// operator an expression calls (recordDependencyOnExpr): for a default,
// a constraint or an index on the pg_attrdef, pg_constraint or pg_class
// row; for a generated column on PostgreSQL 12 on the column itself.
constexpr char kUntrustedCodeSql[] =
    "WITH RECURSIVE types(typ, col) AS (SELECT a.atttypid, "
    "a.attname::pg_catalog.text FROM pg_catalog.pg_attribute a WHERE "
    "a.attrelid = $1::pg_catalog.oid AND a.attnum > 0 AND NOT a.attisdropped "
    "UNION SELECT n.typ, types.col FROM types JOIN pg_catalog.pg_type t ON "
    "t.oid = types.typ CROSS JOIN LATERAL (SELECT t.typbasetype WHERE "
    "t.typtype = 'd' UNION ALL SELECT t.typelem WHERE t.typelem <> 0 AND "
    "t.typlen = -1 UNION ALL SELECT e.atttypid FROM pg_catalog.pg_attribute e "
    "WHERE t.typtype = 'c' AND e.attrelid = t.typrelid AND e.attnum > 0 AND "
    "NOT e.attisdropped UNION ALL SELECT r.rngsubtype FROM "
    "pg_catalog.pg_range r WHERE r.rngtypid = t.oid) n(typ)), "
    "objects(classid, objid, objsubid, what) AS ("
    "SELECT 'pg_catalog.pg_constraint'::pg_catalog.regclass, k.oid, 0, "
    "pg_catalog.format('constraint %I', k.conname) FROM "
    "pg_catalog.pg_constraint k WHERE k.conrelid = $1::pg_catalog.oid "
    "UNION ALL SELECT 'pg_catalog.pg_attrdef'::pg_catalog.regclass, d.oid, 0, "
    "pg_catalog.format(CASE WHEN a.attgenerated <> '' THEN 'generated "
    "column %I' ELSE 'default of column %I' END, a.attname) FROM "
    "pg_catalog.pg_attrdef d JOIN pg_catalog.pg_attribute a ON a.attrelid = "
    "d.adrelid AND a.attnum = d.adnum WHERE d.adrelid = $1::pg_catalog.oid "
    "UNION ALL SELECT 'pg_catalog.pg_class'::pg_catalog.regclass, "
    "a.attrelid, a.attnum, pg_catalog.format('generated column %I', "
    "a.attname) FROM pg_catalog.pg_attribute a WHERE a.attrelid = "
    "$1::pg_catalog.oid AND a.attgenerated <> '' "
    "UNION ALL SELECT 'pg_catalog.pg_class'::pg_catalog.regclass, "
    "i.indexrelid, 0, pg_catalog.format('index %I', c.relname) FROM "
    "pg_catalog.pg_index i JOIN pg_catalog.pg_class c ON c.oid = "
    "i.indexrelid WHERE i.indrelid = $1::pg_catalog.oid "
    "UNION ALL SELECT 'pg_catalog.pg_constraint'::pg_catalog.regclass, "
    "k.oid, 0, pg_catalog.format('constraint %I of domain %s (column %I)', "
    "k.conname, k.contypid::pg_catalog.regtype, types.col) FROM types JOIN "
    "pg_catalog.pg_constraint k ON k.contypid = types.typ "
    "UNION ALL SELECT 'pg_catalog.pg_class'::pg_catalog.regclass, a.relid, "
    "0, pg_catalog.format('the partition key of %s', "
    "a.relid::pg_catalog.regclass) FROM "
    "pg_catalog.pg_partition_ancestors($1::pg_catalog.oid) a WHERE a.relid "
    "<> $1::pg_catalog.oid), "
    "funcs(what, fn) AS (SELECT o.what, d.refobjid FROM objects o JOIN "
    "pg_catalog.pg_depend d ON d.classid = o.classid AND d.objid = o.objid "
    "AND d.objsubid = o.objsubid "
    "AND d.refclassid = 'pg_catalog.pg_proc'::pg_catalog.regclass "
    "UNION ALL SELECT o.what, op.oprcode::pg_catalog.oid FROM objects o JOIN "
    "pg_catalog.pg_depend d ON d.classid = o.classid AND d.objid = o.objid "
    "AND d.objsubid = o.objsubid "
    "AND d.refclassid = 'pg_catalog.pg_operator'::pg_catalog.regclass JOIN "
    "pg_catalog.pg_operator op ON op.oid = d.refobjid "
    "UNION ALL SELECT pg_catalog.format('the hash function of the type of "
    "column %I', a.attname), p.amproc::pg_catalog.oid FROM "
    "pg_catalog.pg_attribute a JOIN pg_catalog.pg_type ty ON ty.oid = "
    "a.atttypid JOIN pg_catalog.pg_opclass c ON c.opcdefault AND "
    "c.opcintype = CASE WHEN ty.typtype = 'd' THEN ty.typbasetype ELSE "
    "ty.oid END JOIN pg_catalog.pg_am m ON m.oid = c.opcmethod AND m.amname "
    "= 'hash' JOIN pg_catalog.pg_amproc p ON p.amprocfamily = c.opcfamily "
    "WHERE a.attrelid = $1::pg_catalog.oid AND a.attnum > 0 AND NOT "
    "a.attisdropped) "
    "SELECT DISTINCT f.what, f.fn::pg_catalog.regprocedure::pg_catalog.text, "
    "pg_catalog.pg_get_userbyid(p.proowner)::pg_catalog.text FROM funcs f "
    "JOIN pg_catalog.pg_proc p ON p.oid = f.fn WHERE NOT EXISTS (SELECT FROM "
    "pg_catalog.pg_roles r WHERE r.oid = p.proowner AND r.rolsuper) "
    "ORDER BY 1, 2";

Status ReadUntrustedCode(SqlSession* s, uint32_t oid, TableFacts* t) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(
      s->Execute(kUntrustedCodeSql, {std::to_string(oid)}, &r));
  return ReadRows(r, "functions of other roles", [&](SqlRowReader& row) {
    t->security.untrusted_code.push_back(
        {row.Text(0), row.Text(1), row.Text(2)});
  });
}

Status ReadPartition(SqlSession* s, uint32_t oid, TableFacts* t) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(s->Execute(
      "SELECT pg_catalog.format('%I.%I', pn.nspname, p.relname), "
      "pg_catalog.pg_get_expr(c.relpartbound, c.oid), "
      "coalesce(pg_catalog.pg_get_partition_constraintdef(c.oid), ''), "
      "coalesce((SELECT pg_catalog.format('%I.%I', dn.nspname, d.relname) "
      "FROM pg_catalog.pg_partitioned_table pt JOIN pg_catalog.pg_class d ON "
      "d.oid = pt.partdefid JOIN pg_catalog.pg_namespace dn ON dn.oid = "
      "d.relnamespace WHERE pt.partrelid = p.oid AND d.oid <> c.oid), ''), "
      "coalesce((SELECT d.relkind = 'p' FROM pg_catalog.pg_partitioned_table "
      "pt JOIN pg_catalog.pg_class d ON d.oid = pt.partdefid WHERE "
      "pt.partrelid = p.oid AND d.oid <> c.oid), false), "
      "pg_catalog.pg_get_partkeydef(p.oid) "
      "FROM pg_catalog.pg_class c JOIN pg_catalog.pg_inherits i ON "
      "i.inhrelid = c.oid JOIN pg_catalog.pg_class p ON p.oid = i.inhparent "
      "JOIN pg_catalog.pg_namespace pn ON pn.oid = p.relnamespace WHERE "
      "c.oid = $1::pg_catalog.oid",
      {std::to_string(oid)}, &r));
  if (r.rows.empty()) return Status::Ok();
  SqlRowReader row(r, 0, "the partition's parent");
  t->partition.parent = row.Text(0);
  t->partition.bound = row.Text(1);
  t->partition.constraint = row.Text(2);
  t->partition.default_partition = row.Text(3);
  t->partition.default_partition_partitioned = row.Bool(4);
  t->partition.parent_key = row.Text(5);
  PGLAYOUT_RETURN_IF_ERROR(row.status());
  SqlResult fks;
  PGLAYOUT_RETURN_IF_ERROR(s->Execute(
      "SELECT c.conname, pg_catalog.format('%I.%I', fn.nspname, f.relname), "
      "pg_catalog.pg_get_constraintdef(c.oid), c.convalidated FROM "
      "pg_catalog.pg_constraint c JOIN pg_catalog.pg_class f ON f.oid = "
      "c.confrelid JOIN pg_catalog.pg_namespace fn ON fn.oid = "
      "f.relnamespace WHERE c.contype = 'f' AND c.conrelid = "
      "$1::pg_catalog.oid AND "
      "c.conparentid <> 0 ORDER BY 1",
      {std::to_string(oid)}, &fks));
  PGLAYOUT_RETURN_IF_ERROR(
      ReadRows(fks, "foreign keys from the parent", [&](SqlRowReader& row) {
        t->partition.inherited_fks_out.push_back({row.Text(0), row.Text(1),
                                                  WithoutNotValid(row.Text(2)),
                                                  row.Bool(3)});
      }));
  SqlResult refs;
  PGLAYOUT_RETURN_IF_ERROR(s->Execute(
      "SELECT c.conname, pg_catalog.format('%I.%I', rn.nspname, r.relname), "
      "pg_catalog.pg_get_constraintdef(c.oid), c.convalidated, r.relkind = "
      "'p' FROM pg_catalog.pg_constraint c JOIN pg_catalog.pg_class r ON "
      "r.oid = c.conrelid JOIN pg_catalog.pg_namespace rn ON rn.oid = "
      "r.relnamespace WHERE c.contype = 'f' AND c.conparentid = 0 AND "
      "c.confrelid IN (SELECT a.relid FROM "
      "pg_catalog.pg_partition_ancestors($1::pg_catalog.oid) a WHERE a.relid "
      "<> $1::pg_catalog.oid) ORDER BY 2, 1",
      {std::to_string(oid)}, &refs));
  return ReadRows(refs, "foreign keys to an ancestor", [&](SqlRowReader& row) {
    t->partition.parent_fks_in.push_back({row.Text(0), row.Text(1),
                                          WithoutNotValid(row.Text(2)),
                                          row.Bool(3), row.Bool(4)});
  });
}

}  // namespace

Status HardenSession(SqlSession* session) {
  std::string sql =
      "SELECT pg_catalog.set_config('default_transaction_read_only', 'off', "
      "false), pg_catalog.set_config('default_transaction_isolation', "
      "'read committed', false), pg_catalog.set_config('synchronous_commit', "
      "'on', false), pg_catalog.set_config('jit', 'off', false)";
  if (session->server_version() >= 140000) {
    sql +=
        ", pg_catalog.set_config('client_connection_check_interval', '1s', "
        "false)";
  }
  return ExecuteSql(session, sql);
}

// The user's search_path is the session's reset value: what the connection
// started with (role, database, PGOPTIONS), before OpenPgSession's
// hardening. It is set for the one to_regclass call, which calls no
// function and no operator by an unqualified name, and the hardened path
// is put back whatever that call did (in a transaction block, the block's
// rollback also undoes the first set_config).
Status ResolveRelation(SqlSession* session, const std::string& name,
                       uint32_t* oid) {
  PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(
      session,
      "SELECT pg_catalog.set_config('search_path', s.reset_val, false) FROM "
      "pg_catalog.pg_settings s WHERE s.name = 'search_path'"));
  SqlResult r;
  Status resolved = session->Execute(
      "SELECT pg_catalog.to_regclass($1)::pg_catalog.oid", {name}, &r);
  Status restored = ExecuteSql(
      session, std::string("SELECT pg_catalog.set_config('search_path', '") +
                   kSessionSearchPath + "', false)");
  PGLAYOUT_RETURN_IF_ERROR(resolved);
  PGLAYOUT_RETURN_IF_ERROR(restored);
  if (r.rows.empty()) {
    return Status::NotFound("query returned no rows: to_regclass of " + name);
  }
  SqlRowReader row(r, 0, "to_regclass of " + name);
  *oid = static_cast<uint32_t>(row.Int(0));
  return row.status();
}

// Walsenders of physical standbys: they are connected to no database (a
// logical walsender is, also a subscription's table sync before it has its
// slot), and not sending a base backup. Only those connected now.
Status ReadStreamingStandbys(SqlSession* s, ServerFacts* f) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(s->Execute(
      "SELECT coalesce(nullif(r.application_name, ''), 'pid ' || r.pid) || "
      "coalesce(' at ' || pg_catalog.host(r.client_addr), '') FROM "
      "pg_catalog.pg_stat_replication r JOIN pg_catalog.pg_stat_activity a "
      "ON a.pid = r.pid WHERE a.datid IS NULL AND r.state <> 'backup' "
      "ORDER BY 1",
      {}, &r));
  return ReadTexts(r, "pg_stat_replication", &f->streaming_standbys);
}

// Slots and archiving keep WAL that the copies' WAL adds to
// (docs/online-migration.md#wal-retention).
// PostgreSQL 12 has neither a slot's wal_status nor max_slot_wal_keep_size
// (13+): its slots keep WAL without limit.
Status ReadWalRetention(SqlSession* s, ServerFacts* f) {
  const bool slot_limits = s->server_version() >= 130000;
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(s->Execute(
      fmt::format("SELECT slot_name, active, {}, CASE WHEN ",
                  slot_limits ? "coalesce(wal_status, '')" : "''") +
          "pg_catalog.pg_is_in_recovery() OR restart_lsn IS NULL THEN 0 ELSE "
          "pg_catalog.pg_wal_lsn_diff(pg_catalog.pg_current_wal_lsn(), "
          "restart_lsn)::bigint END FROM pg_catalog.pg_replication_slots ORDER "
          "BY "
          "1",
      {}, &r));
  PGLAYOUT_RETURN_IF_ERROR(
      ReadRows(r, "pg_replication_slots", [&](SqlRowReader& row) {
        f->replication_slots.push_back(
            {row.Text(0), row.Bool(1), row.Text(2),
             static_cast<uint64_t>(std::max<int64_t>(row.Int(3), 0))});
      }));
  SqlResult a;
  PGLAYOUT_RETURN_IF_ERROR(s->Execute(
      fmt::format("SELECT {}, ",
                  slot_limits
                      ? "pg_catalog.current_setting('max_slot_wal_keep_size')"
                      : "'-1'") +
          "coalesce((SELECT last_failed_time > coalesce(last_archived_time, "
          "'-infinity') FROM pg_catalog.pg_stat_archiver), false)",
      {}, &a));
  if (a.rows.empty()) return Status::Ok();
  SqlRowReader row(a, 0, "max_slot_wal_keep_size and pg_stat_archiver");
  uint64_t bytes = 0;
  std::string keep = row.Text(0);
  f->max_slot_wal_keep_size_mb = keep == "-1" || !ParseSize(keep, &bytes).ok()
                                     ? -1
                                     : static_cast<int64_t>(bytes / kMiB);
  f->archiver_failing = row.Bool(1);
  return row.status();
}

// Tablespaces this role may not create relations in; the database's
// default tablespace needs no privilege.
Status ReadTablespacesWithoutCreate(SqlSession* s, ServerFacts* f) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(s->Execute(
      "SELECT t.spcname FROM pg_catalog.pg_tablespace t WHERE NOT "
      "pg_catalog.has_tablespace_privilege(t.oid, 'CREATE') AND t.oid <> "
      "(SELECT d.dattablespace FROM pg_catalog.pg_database d WHERE "
      "d.datname = pg_catalog.current_database()) ORDER BY 1",
      {}, &r));
  return ReadRows(r, "pg_tablespace (CREATE)", [&](SqlRowReader& row) {
    f->tablespaces_without_create.push_back(row.Text(0));
  });
}

Status GatherServerFacts(SqlSession* session, const Plan& plan,
                         ServerFacts* facts) {
  ServerFacts f;
  PGLAYOUT_RETURN_IF_ERROR(ReadServerBasics(session, &f));
  PGLAYOUT_RETURN_IF_ERROR(ReadPgTablespaces(session, &f.tablespaces));
  PGLAYOUT_RETURN_IF_ERROR(ReadTablespacesWithoutCreate(session, &f));
  PGLAYOUT_RETURN_IF_ERROR(ReadPaths(session, plan, &f));
  PGLAYOUT_RETURN_IF_ERROR(ReadSettings(session, plan, &f));
  PGLAYOUT_RETURN_IF_ERROR(ReadLockHolder(session, &f));
  PGLAYOUT_RETURN_IF_ERROR(ReadWalRetention(session, &f));
  PGLAYOUT_RETURN_IF_ERROR(ReadStreamingStandbys(session, &f));
  *facts = std::move(f);
  return Status::Ok();
}

Status GatherTableFacts(SqlSession* session, uint32_t oid, TableFacts* facts) {
  TableFacts t;
  PGLAYOUT_RETURN_IF_ERROR(ReadTableRow(session, oid, &t));
  if (!t.exists) {
    *facts = std::move(t);
    return Status::Ok();
  }
  PGLAYOUT_RETURN_IF_ERROR(ReadRelOptions(session, oid, &t));
  PGLAYOUT_RETURN_IF_ERROR(ReadColumns(session, oid, &t));
  PGLAYOUT_RETURN_IF_ERROR(ReadIndexes(session, oid, &t));
  ChooseRowKey(&t);
  PGLAYOUT_RETURN_IF_ERROR(ReadForeignKeys(session, oid, &t));
  PGLAYOUT_RETURN_IF_ERROR(ReadTriggersAndPolicies(session, oid, &t));
  PGLAYOUT_RETURN_IF_ERROR(ReadRuleFacts(session, oid, &t));
  PGLAYOUT_RETURN_IF_ERROR(ReadGrants(session, oid, "TABLE {table}", &t));
  PGLAYOUT_RETURN_IF_ERROR(ReadObjectComments(session, oid, &t));
  PGLAYOUT_RETURN_IF_ERROR(ReadStatistics(session, oid, &t));
  PGLAYOUT_RETURN_IF_ERROR(ReadDependents(session, oid, &t));
  PGLAYOUT_RETURN_IF_ERROR(ReadReplicationAndSequences(session, oid, &t));
  if (t.partition.is_partition)
    PGLAYOUT_RETURN_IF_ERROR(ReadPartition(session, oid, &t));
  PGLAYOUT_RETURN_IF_ERROR(ReadStructureHash(session, oid, &t.structure_hash));
  PGLAYOUT_RETURN_IF_ERROR(ReadUntrustedCode(session, oid, &t));
  PGLAYOUT_RETURN_IF_ERROR(
      ReadPreparedLocks(session, oid, &t.dependents.prepared_xacts));
  *facts = std::move(t);
  return Status::Ok();
}

Status ReadTakenNames(SqlSession* session, const std::string& schema,
                      const std::vector<std::string>& names,
                      std::vector<std::string>* taken) {
  taken->clear();
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(session->Execute(
      "SELECT c.relname FROM pg_catalog.pg_class c JOIN "
      "pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = "
      "$1 AND c.relname = ANY ($2::pg_catalog.text[]) ORDER BY 1",
      {schema, TextArrayLiteral(names)}, &r));
  return ReadTexts(r, "pg_class (names taken)", taken);
}

Status ReadPreparedLocks(SqlSession* session, uint32_t oid,
                         std::vector<std::string>* gids) {
  // A prepared transaction's locks have no pid; they share a virtual
  // transaction with the lock on its own xid, which names it.
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(session->Execute(
      "SELECT DISTINCT pg_catalog.quote_literal(p.gid) FROM "
      "pg_catalog.pg_prepared_xacts p JOIN pg_catalog.pg_locks x ON "
      "x.locktype = 'transactionid' AND x.transactionid = p.transaction AND "
      "x.pid IS NULL JOIN pg_catalog.pg_locks l ON l.virtualtransaction = "
      "x.virtualtransaction AND l.pid IS NULL WHERE l.locktype = 'relation' "
      "AND l.relation = $1::pg_catalog.oid ORDER BY 1",
      {std::to_string(oid)}, &r));
  gids->clear();
  return ReadTexts(r, "pg_prepared_xacts", gids);
}

namespace {

// The hash's parts common to both forms: indexes and constraints.
constexpr char kIndexesAndConstraintsHash[] =
    "coalesce((SELECT pg_catalog.string_agg("
    "pg_catalog.pg_get_indexdef(indexrelid), ',' ORDER BY indexrelid) "
    "FROM pg_catalog.pg_index WHERE indrelid = $1::pg_catalog.oid), '') || '|' "
    "|| "
    "coalesce((SELECT pg_catalog.string_agg("
    "pg_catalog.pg_get_constraintdef(oid), ',' ORDER BY oid) "
    "FROM pg_catalog.pg_constraint WHERE conrelid = $1::pg_catalog.oid), '')";

// The form written before the hash covered what LIKE takes over (no tag):
// columns' names, types, NOT NULL and dropped state only.
std::string LegacyStructureHashSql() {
  return std::string(
             "SELECT pg_catalog.md5(coalesce((SELECT pg_catalog.string_agg("
             "pg_catalog.format('%s:%s:%s:%s:%s', attnum, attname, "
             "pg_catalog.format_type(atttypid, atttypmod), attnotnull, "
             "attisdropped), ',' ORDER BY attnum) FROM pg_catalog.pg_attribute "
             "WHERE attrelid = $1::pg_catalog.oid AND attnum > 0), '') || '|' "
             "|| ") +
         kIndexesAndConstraintsHash + ")";
}

std::string StructureHashSql(int server_version) {
  // attcompression: 14+.
  const char* compression =
      server_version >= 140000 ? "a.attcompression" : "''";
  return fmt::format(
             "SELECT '{}' || pg_catalog.md5(coalesce((SELECT "
             "pg_catalog.string_agg(pg_catalog.format("
             "'%s:%s:%s:%s:%s:%s:%s:%s:%s:%s:%s', a.attnum, a.attname, "
             "pg_catalog.format_type(a.atttypid, a.atttypmod), a.attnotnull, "
             "a.attisdropped, a.attidentity, a.attgenerated, a.attcollation, "
             "a.attstorage, {}, pg_catalog.pg_get_expr(d.adbin, d.adrelid)), "
             "',' ORDER BY a.attnum) FROM pg_catalog.pg_attribute a LEFT JOIN "
             "pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = "
             "a.attnum WHERE a.attrelid = $1::pg_catalog.oid AND a.attnum > "
             "0), '') || "
             "'|' || (SELECT pg_catalog.format('%s:%s:%s', c.relowner, "
             "c.relpersistence, c.reloptions) FROM pg_catalog.pg_class c "
             "WHERE c.oid = $1::pg_catalog.oid) || '|' || ",
             kStructureHashTag, compression) +
         kIndexesAndConstraintsHash + ")";
}

}  // namespace

Status ReadStructureHash(SqlSession* session, uint32_t oid, std::string* hash,
                         bool legacy) {
  SqlValue v;
  PGLAYOUT_RETURN_IF_ERROR(
      QueryValue(session,
                 legacy ? LegacyStructureHashSql()
                        : StructureHashSql(session->server_version()),
                 {std::to_string(oid)}, &v));
  *hash = v.value_or("");
  return Status::Ok();
}

const ColumnFacts* TableFacts::FindColumn(const std::string& column) const {
  for (const ColumnFacts& c : columns) {
    if (c.name == column) return &c;
  }
  return nullptr;
}

const TablespaceFacts* ServerFacts::FindTablespace(
    const std::string& name) const {
  for (const TablespaceFacts& t : tablespaces) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

}  // namespace pglayout::migrator
