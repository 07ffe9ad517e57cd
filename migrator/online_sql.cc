#include "migrator/online_sql.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <regex>
#include <set>

#include "common/ddl.h"
#include "migrator/sql_util.h"
#include "pg/sql.h"

namespace pglayout::migrator {
namespace {

constexpr size_t kMaxIdentifierBytes = 63;  // NAMEDATALEN - 1

// The key column's type for a cast, schema-qualified (ColumnFacts::cast_type):
// "$1::text" would resolve "text" through the search_path.
std::string KeyType(const TableFacts& t, const std::string& column) {
  const ColumnFacts* c = t.FindColumn(column);
  return c && !c->cast_type.empty() ? c->cast_type : "pg_catalog.text";
}

// The type of a log column holding key |column|, with the column's
// collation: "l.k1 = t.k" compares in the source column's collation, and
// only an index of that collation serves it.
std::string LogKeyType(const TableFacts& t, const std::string& column) {
  const ColumnFacts* c = t.FindColumn(column);
  if (c == nullptr || c->collation.empty()) return KeyType(t, column);
  return KeyType(t, column) + " COLLATE " + c->collation;
}

// "(t."a", t."b")" or without an alias: "("a", "b")".
std::string KeyTuple(const TableFacts& t, const std::string& alias) {
  std::vector<std::string> parts;
  for (const std::string& k : t.keys.row_key) {
    parts.push_back(alias.empty() ? QuoteIdent(k)
                                  : alias + "." + QuoteIdent(k));
  }
  return "(" + JoinComma(parts) + ")";
}

// The key columns qualified by |alias|: {n."a", n."b"}.
std::vector<std::string> KeyColumnsOf(const TableFacts& t,
                                      const std::string& alias) {
  std::vector<std::string> out;
  for (const std::string& k : t.keys.row_key) {
    out.push_back(alias + "." + QuoteIdent(k));
  }
  return out;
}

// "($1::pg_catalog.int4, $2::pg_catalog.text)" starting at parameter |first|.
std::string ParamTuple(const TableFacts& t, int first) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < t.keys.row_key.size(); ++i) {
    parts.push_back(fmt::format("${}::{}", first + static_cast<int>(i),
                                KeyType(t, t.keys.row_key[i])));
  }
  return "(" + JoinComma(parts) + ")";
}

// |alias| qualifies the columns: in "SELECT k::text FROM src ORDER BY k" the
// output column k (text) would win over the input column and sort as text.
std::string OrderByKey(const TableFacts& t, const char* direction,
                       const std::string& alias = "") {
  std::vector<std::string> parts;
  for (const std::string& k : t.keys.row_key) {
    parts.push_back((alias.empty() ? "" : alias + ".") + QuoteIdent(k) +
                    direction);
  }
  return JoinComma(parts);
}

bool HasIdentityAlways(const TableFacts& t) {
  for (const ColumnFacts& c : t.columns) {
    if (c.identity == 'a') return true;
  }
  return false;
}

std::string Overriding(const TableFacts& t) {
  return HasIdentityAlways(t) ? " OVERRIDING SYSTEM VALUE" : "";
}

// WHERE clause matching the keys in the $1.. arrays.
std::string KeyInArrays(const TableFacts& t) {
  if (t.keys.row_key.size() == 1) {
    return fmt::format("{} = ANY ($1::{}[])", QuoteIdent(t.keys.row_key[0]),
                       KeyType(t, t.keys.row_key[0]));
  }
  // The multi-argument unnest() is only sugar for ROWS FROM when written
  // unqualified; ROWS FROM keeps every function schema-qualified.
  std::vector<std::string> arrays;
  for (size_t i = 0; i < t.keys.row_key.size(); ++i) {
    arrays.push_back(fmt::format("pg_catalog.unnest(${}::{}[])", i + 1,
                                 KeyType(t, t.keys.row_key[i])));
  }
  return fmt::format("{} IN (SELECT * FROM ROWS FROM ({}))", KeyTuple(t, ""),
                     JoinComma(arrays));
}

std::string LogKeyColumns(const TableFacts& t) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < t.keys.row_key.size(); ++i) {
    parts.push_back(fmt::format("k{}", i + 1));
  }
  return JoinComma(parts);
}

std::string LikeClause(const std::string& table, int server_version) {
  return fmt::format(
      "LIKE {} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING GENERATED "
      "INCLUDING IDENTITY INCLUDING STORAGE INCLUDING COMMENTS{} INCLUDING "
      "STATISTICS",
      table, server_version >= 140000 ? " INCLUDING COMPRESSION" : "");
}

// LIKE ... INCLUDING CONSTRAINTS copies a NOT VALID check as valid, and
// the copy of the older rows it does not hold for would then fail. The
// shadow goes without it until the swap adds it back, NOT VALID.
void AppendDropNotValidChecks(const TableFacts& t, const std::string& shadow,
                              std::vector<std::string>* out) {
  for (const CheckFacts& c : t.keys.not_valid_checks) {
    out->push_back(fmt::format("ALTER TABLE {} DROP CONSTRAINT {}", shadow,
                               QuoteIdent(c.name)));
  }
}

// PostgreSQL 12's LIKE copies a NO INHERIT check as inheritable: the
// (empty) shadow gets it again as it is.
void AppendNoInheritChecks(const TableFacts& t, const std::string& shadow,
                           std::vector<std::string>* out) {
  for (const CheckFacts& c : t.keys.valid_no_inherit_checks) {
    out->push_back(fmt::format(
        "ALTER TABLE {0} DROP CONSTRAINT {1}, ADD CONSTRAINT {1} {2}", shadow,
        QuoteIdent(c.name), c.definition));
  }
}

void AppendColumnSettings(const TableFacts& t, const std::string& shadow,
                          std::vector<std::string>* out) {
  for (const ColumnFacts& c : t.columns) {
    if (c.stat_target >= 0) {
      out->push_back(
          fmt::format("ALTER TABLE {} ALTER COLUMN {} SET STATISTICS {}",
                      shadow, QuoteIdent(c.name), c.stat_target));
    }
    if (!c.options.empty()) {
      std::string with = WithOptionsClause(c.options, {});
      out->push_back(fmt::format("ALTER TABLE {} ALTER COLUMN {} SET {}",
                                 shadow, QuoteIdent(c.name),
                                 with.substr(std::string("WITH ").size())));
    }
  }
}

// Indexes that belong to a constraint (primary key, unique, exclusion) are
// made with ADD CONSTRAINT so that the swap carries the constraint too.
bool IsConstraintIndex(const IndexFacts& index) {
  return index.constraint_type == 'p' || index.constraint_type == 'u' ||
         index.constraint_type == 'x';
}

// pg_get_constraintdef() names the index's tablespace when it is not the
// default ("PRIMARY KEY (id) USING INDEX TABLESPACE old"); the shadow's
// copy goes where default_tablespace says, so that clause is dropped.
std::string ConstraintDefinition(const IndexFacts& index) {
  if (index.constraint_def.empty() && index.constraint_type == 'p') {
    return "PRIMARY KEY (" + QuoteIdentList(index.columns) + ")";
  }
  static const std::regex kTablespace(
      R"( USING INDEX TABLESPACE ("(?:[^"]|"")*"|[^ "]+))");
  std::string def = std::regex_replace(index.constraint_def, kTablespace, "");
  if (index.options.empty()) return def;
  // WITH (...) belongs among the index parameters: before an exclusion
  // constraint's predicate and before the deferral attributes.
  size_t at = def.size();
  for (const char* tail :
       {" WHERE (", " DEFERRABLE", " NOT DEFERRABLE", " INITIALLY "}) {
    at = std::min(at, def.find(tail));
  }
  def.insert(at, " " + WithOptionsClause(index.options, {}));
  return def;
}

constexpr char kAutovacuumEnabled[] = "autovacuum_enabled";

bool IsAutovacuumOption(const std::string& option) {
  return option.rfind(std::string(kAutovacuumEnabled) + "=", 0) == 0;
}

// The table's reloptions with autovacuum off: a vacuum of the growing
// shadow would compete with the copy and hold a lock that the swap waits
// for. The swap gives the table's own setting back (AutovacuumRestoreSql).
std::vector<std::string> ShadowReloptions(const TableFacts& t) {
  std::vector<std::string> out;
  for (const std::string& o : t.storage.reloptions) {
    if (!IsAutovacuumOption(o)) out.push_back(o);
  }
  out.push_back(std::string(kAutovacuumEnabled) + "=false");
  return out;
}

// A partition's copy holds only rows within its bounds, checked as they
// come (on each partition of a split's copy too): ATTACH PARTITION then
// need not scan it.
void AppendBoundCheck(const TableFacts& t, const OnlineNames& names,
                      std::vector<std::string>* tx) {
  if (t.partition.parent.empty() || t.partition.constraint.empty()) return;
  tx->push_back(fmt::format(
      "ALTER TABLE {} ADD CONSTRAINT {} CHECK ({})", names.QualifiedShadow(),
      QuoteIdent(names.bound_check), t.partition.constraint));
}

std::string SetDefaultTablespace(const std::string& ts) {
  return "SET LOCAL default_tablespace = " + QuoteLiteral(ts);
}

// One secondary index of a partitioned shadow: the parent index ON ONLY,
// one index per partition in that partition's tablespace, attached.
std::vector<std::string> PartitionedIndexSql(const IndexFacts& index,
                                             size_t pos,
                                             const OnlineTarget& target,
                                             const OnlineNames& names) {
  std::vector<std::string> tx;
  std::string parent = QuoteIdent(names.TempIndexName(pos));
  bool constraint = IsConstraintIndex(index);
  const char* unique = index.unique ? "UNIQUE " : "";
  if (constraint) {
    tx.push_back(fmt::format("ALTER TABLE ONLY {} ADD CONSTRAINT {} {}",
                             names.QualifiedShadow(), parent,
                             ConstraintDefinition(index)));
  } else {
    tx.push_back(fmt::format("CREATE {}INDEX {} ON ONLY {} {}", unique, parent,
                             names.QualifiedShadow(), index.using_clause));
  }
  for (int r = 0; r < target.partitions; ++r) {
    std::string child = PartitionIndexName(index, names, r);
    tx.push_back(SetDefaultTablespace(PartitionTablespace(target, r)));
    if (constraint) {
      tx.push_back(fmt::format("ALTER TABLE ONLY {} ADD CONSTRAINT {} {}",
                               names.QualifiedPartition(r), QuoteIdent(child),
                               ConstraintDefinition(index)));
    } else {
      tx.push_back(fmt::format("CREATE {}INDEX {} ON {} {}", unique,
                               QuoteIdent(child), names.QualifiedPartition(r),
                               index.using_clause));
    }
    tx.push_back(fmt::format("ALTER INDEX {}.{} ATTACH PARTITION {}.{}",
                             QuoteIdent(names.schema), parent,
                             QuoteIdent(names.schema), QuoteIdent(child)));
  }
  return tx;
}

std::vector<std::string> PlainIndexSql(const IndexFacts& index, size_t pos,
                                       const OnlineTarget& target,
                                       const OnlineNames& names) {
  std::string temp = QuoteIdent(names.TempIndexName(pos));
  std::vector<std::string> tx = {SetDefaultTablespace(target.tablespaces[0])};
  if (IsConstraintIndex(index)) {
    tx.push_back(fmt::format("ALTER TABLE {} ADD CONSTRAINT {} {}",
                             names.QualifiedShadow(), temp,
                             ConstraintDefinition(index)));
  } else {
    tx.push_back(fmt::format("CREATE {}INDEX {} ON {} {}",
                             index.unique ? "UNIQUE " : "", temp,
                             names.QualifiedShadow(), index.using_clause));
  }
  return tx;
}

std::string CaptureBody(const TableFacts& t, const OnlineNames& names) {
  auto insert = [&](const char* record) {
    std::vector<std::string> values;
    for (const std::string& k : t.keys.row_key) {
      values.push_back(std::string(record) + "." + QuoteIdent(k));
    }
    return fmt::format("INSERT INTO {} ({}) VALUES ({});", names.log,
                       LogKeyColumns(t), JoinComma(values));
  };
  return fmt::format(
      "BEGIN\n"
      "  IF TG_OP = 'INSERT' THEN\n    {0}\n"
      "  ELSIF TG_OP = 'DELETE' THEN\n    {1}\n"
      "  ELSE\n    {1}\n"
      "    IF {2} IS DISTINCT FROM {3} THEN\n      {0}\n    END IF;\n"
      "  END IF;\n"
      "  RETURN NULL;\n"
      "END",
      insert("NEW"), insert("OLD"), KeyTuple(t, "NEW"), KeyTuple(t, "OLD"));
}

}  // namespace

std::string OnlineNames::QualifiedTable() const {
  return QuoteIdent(schema) + "." + QuoteIdent(table);
}
std::string OnlineNames::QualifiedShadow() const {
  return QuoteIdent(schema) + "." + QuoteIdent(shadow);
}
std::string OnlineNames::QualifiedOld() const {
  return "pglayout." + QuoteIdent(old_name);
}
std::string OnlineNames::QualifiedPartition(int r) const {
  return QuoteIdent(schema) + "." + QuoteIdent(partitions[r]);
}
std::string OnlineNames::TempIndexName(size_t i) const {
  return fmt::format("{}_i{}", shadow, i);
}

std::string TruncatedName(const std::string& name, const std::string& suffix) {
  size_t room =
      kMaxIdentifierBytes - std::min(suffix.size(), kMaxIdentifierBytes);
  if (name.size() <= room) return name + suffix;
  size_t cut = room;
  // Do not split a UTF-8 sequence: back up over continuation bytes.
  while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) {
    --cut;
  }
  return name.substr(0, cut) + suffix;
}

std::string PartitionIndexName(const IndexFacts& index,
                               const OnlineNames& names, int r) {
  if (index.constraint_type != 'p') {
    return TruncatedName(index.name, fmt::format("_p{}", r));
  }
  std::string name = names.partitions[static_cast<size_t>(r)] + "_pkey";
  if (name.size() <= kMaxIdentifierBytes) return name;
  return TruncatedName(names.table, fmt::format("_p{}_pkey", r));
}

std::vector<std::string> PartitionRelationNames(const TableFacts& table,
                                                const OnlineTarget& target) {
  OnlineNames names = MakeOnlineNames(table, target);
  std::vector<std::string> out = names.partitions;
  for (const IndexFacts& index : table.indexes) {
    for (int r = 0; r < target.partitions; ++r) {
      out.push_back(PartitionIndexName(index, names, r));
    }
  }
  return out;
}

const std::string& PartitionTablespace(const OnlineTarget& target, int r) {
  return target.tablespaces[static_cast<size_t>(r) % target.tablespaces.size()];
}

OnlineTarget TargetOf(const Placement& p) {
  OnlineTarget target;
  target.tablespaces = p.tablespaces;
  if (p.strategy == Strategy::kHashPartition) {
    target.partitioned = true;
    target.partitions = p.partitions;
    target.key = p.key;
  }
  return target;
}

OnlineTarget TargetOf(const Placement& p, const TableFacts& t) {
  OnlineTarget target = TargetOf(p);
  int modulus = 0, remainder = 0;
  if (target.partitioned && t.partition.is_partition &&
      ParseHashBound(t.partition.bound, &modulus, &remainder)) {
    target.parent_modulus = modulus;
    target.parent_remainder = remainder;
  }
  return target;
}

int TargetModulus(const OnlineTarget& target) {
  return target.parent_modulus > 0 ? target.parent_modulus * target.partitions
                                   : target.partitions;
}

int TargetRemainder(const OnlineTarget& target, int i) {
  return target.parent_modulus > 0
             ? target.parent_remainder + i * target.parent_modulus
             : i;
}

bool ParseHashBound(const std::string& bound, int* modulus, int* remainder) {
  int m = 0, r = 0, used = 0;
  if (std::sscanf(bound.c_str(), "FOR VALUES WITH (modulus %d, remainder %d)%n",
                  &m, &r, &used) != 2 ||
      static_cast<size_t>(used) != bound.size() || m < 1 || r < 0 || r >= m) {
    return false;
  }
  *modulus = m;
  *remainder = r;
  return true;
}

OnlineNames MakeOnlineNames(const TableFacts& table,
                            const OnlineTarget& target) {
  OnlineNames n;
  n.schema = table.schema;
  n.table = table.name;
  n.shadow = fmt::format("pglayout_new_{}", table.oid);
  n.log = fmt::format("pglayout.log_{}", table.oid);
  n.capture_function = fmt::format("pglayout.capture_{}", table.oid);
  n.truncate_function = fmt::format("pglayout.block_truncate_{}", table.oid);
  n.old_name = fmt::format("old_{}", table.oid);
  n.bound_check = fmt::format("pglayout_bound_{}", table.oid);
  n.default_check = fmt::format("pglayout_excl_{}", table.oid);
  if (target.partitioned) {
    for (int r = 0; r < target.partitions; ++r) {
      n.partitions.push_back(TruncatedName(table.name, fmt::format("_p{}", r)));
    }
  }
  return n;
}

std::vector<std::string> InsertColumns(const TableFacts& t) {
  std::vector<std::string> cols;
  for (const ColumnFacts& c : t.columns) {
    if (c.generated == 0) cols.push_back(QuoteIdent(c.name));
  }
  return cols;
}

std::vector<std::string> ShadowCreateSql(const TableFacts& t,
                                         const OnlineTarget& target,
                                         const OnlineNames& names,
                                         int server_version) {
  std::vector<std::string> tx;
  std::string shadow = names.QualifiedShadow();
  std::string like = LikeClause(names.QualifiedTable(), server_version);
  std::string with =
      WithOptionsClause(ShadowReloptions(t), t.storage.toast_reloptions);
  if (!target.partitioned) {
    tx.push_back(SetDefaultTablespace(target.tablespaces[0]));
    tx.push_back(fmt::format("CREATE TABLE {} ({}){} TABLESPACE {}", shadow,
                             like, with.empty() ? "" : " " + with,
                             QuoteIdent(target.tablespaces[0])));
    AppendDropNotValidChecks(t, shadow, &tx);
    if (server_version < 130000) AppendNoInheritChecks(t, shadow, &tx);
    AppendColumnSettings(t, shadow, &tx);
    AppendBoundCheck(t, names, &tx);
    return tx;
  }
  tx.push_back(fmt::format("CREATE TABLE {} ({}) PARTITION BY HASH ({})",
                           shadow, like, QuoteIdentList(target.key)));
  AppendDropNotValidChecks(t, shadow, &tx);
  for (int r = 0; r < target.partitions; ++r) {
    const std::string& ts = PartitionTablespace(target, r);
    tx.push_back(SetDefaultTablespace(ts));
    tx.push_back(fmt::format(
        "CREATE TABLE {} PARTITION OF {} FOR VALUES WITH (MODULUS {}, "
        "REMAINDER {}){} TABLESPACE {}",
        names.QualifiedPartition(r), shadow, TargetModulus(target),
        TargetRemainder(target, r), with.empty() ? "" : " " + with,
        QuoteIdent(ts)));
  }
  tx.push_back("SET LOCAL default_tablespace = ''");
  AppendColumnSettings(t, shadow, &tx);
  AppendBoundCheck(t, names, &tx);
  return tx;
}

std::vector<ShadowIndex> ShadowIndexSql(const TableFacts& t,
                                        const OnlineTarget& target,
                                        const OnlineNames& names) {
  std::vector<ShadowIndex> out;
  auto add = [&](size_t i) {
    const IndexFacts& index = t.indexes[i];
    ShadowIndex built;
    built.source = index.name;
    built.temp_name = names.TempIndexName(i);
    built.row_key = index.name == t.keys.row_key_index;
    built.sql = target.partitioned
                    ? PartitionedIndexSql(index, i, target, names)
                    : PlainIndexSql(index, i, target, names);
    out.push_back(std::move(built));
  };
  for (size_t i = 0; i < t.indexes.size(); ++i) {
    if (t.indexes[i].name == t.keys.row_key_index) add(i);
  }
  for (size_t i = 0; i < t.indexes.size(); ++i) {
    if (t.indexes[i].name != t.keys.row_key_index) add(i);
  }
  return out;
}

std::vector<std::string> CaptureCreateSql(const TableFacts& t,
                                          const OnlineNames& names,
                                          uint64_t run_id, bool key_index,
                                          bool row_trigger) {
  std::vector<std::string> key_defs;
  for (size_t i = 0; i < t.keys.row_key.size(); ++i) {
    key_defs.push_back(fmt::format("k{} {} NOT NULL", i + 1,
                                   LogKeyType(t, t.keys.row_key[i])));
  }
  std::string message = fmt::format(
      "pglayout migrate run {} is moving table {}; TRUNCATE is blocked until "
      "the run finishes or is aborted (pglayout migrate --abort)",
      run_id, names.QualifiedTable());
  std::string truncate_body =
      "BEGIN RAISE EXCEPTION USING MESSAGE = " + QuoteLiteral(message) +
      ", ERRCODE = 'object_in_use'; END";
  std::string table = names.QualifiedTable();
  std::vector<std::string> out = {
      fmt::format("CREATE TABLE {} (id bigint GENERATED ALWAYS AS IDENTITY "
                  "PRIMARY KEY, {})",
                  names.log, JoinComma(key_defs)),
      key_index
          ? fmt::format("CREATE INDEX ON {} ({})", names.log, LogKeyColumns(t))
          : std::string(),
      fmt::format("CREATE FUNCTION {}() RETURNS trigger LANGUAGE plpgsql "
                  "SECURITY DEFINER SET search_path = pg_catalog, pg_temp "
                  "AS {}",
                  names.capture_function, QuoteLiteral(CaptureBody(t, names))),
      fmt::format("CREATE FUNCTION {}() RETURNS trigger LANGUAGE plpgsql "
                  "SET search_path = pg_catalog, pg_temp AS {}",
                  names.truncate_function, QuoteLiteral(truncate_body)),
      // A new function's EXECUTE is PUBLIC's: taken back in the same
      // transaction, so that no other role can hang the capture function
      // (SECURITY DEFINER: it writes the log as its owner) on a table of
      // its own.
      fmt::format("REVOKE EXECUTE ON FUNCTION {}(), {}() FROM PUBLIC",
                  names.capture_function, names.truncate_function),
      fmt::format("CREATE TRIGGER pglayout_capture AFTER INSERT OR UPDATE OR "
                  "DELETE ON {} FOR EACH ROW EXECUTE FUNCTION {}()",
                  table, names.capture_function),
      fmt::format("CREATE TRIGGER pglayout_block_truncate BEFORE TRUNCATE ON "
                  "{} FOR EACH STATEMENT EXECUTE FUNCTION {}()",
                  table, names.truncate_function),
      fmt::format("ALTER TABLE {} ENABLE ALWAYS TRIGGER pglayout_capture",
                  table),
      fmt::format(
          "ALTER TABLE {} ENABLE ALWAYS TRIGGER pglayout_block_truncate",
          table),
  };
  if (row_trigger) return out;
  // Logical capture: the log and the TRUNCATE block only.
  return {out[0],
          out[1],
          out[3],
          fmt::format("REVOKE EXECUTE ON FUNCTION {}() FROM PUBLIC",
                      names.truncate_function),
          out[6],
          out[8]};
}

std::vector<AttachPrep> AttachPrepSql(const TableFacts& t,
                                      const OnlineNames& names) {
  std::vector<AttachPrep> out;
  std::vector<std::string> heaps;
  for (size_t r = 0; r < names.partitions.size(); ++r) {
    heaps.push_back(names.QualifiedPartition(static_cast<int>(r)));
  }
  if (heaps.empty()) heaps.push_back(names.QualifiedShadow());
  for (const ForeignKeyFacts& fk : t.partition.inherited_fks_out) {
    for (const std::string& heap : heaps) {
      AttachPrep prep;
      prep.table = heap;
      prep.constraint = fk.name;
      prep.add = fmt::format("ALTER TABLE {} ADD CONSTRAINT {} {} NOT VALID",
                             prep.table, QuoteIdent(fk.name), fk.definition);
      prep.locks = {prep.table, fk.table};
      out.push_back(std::move(prep));
    }
  }
  // A partitioned DEFAULT partition is left alone: ATTACH scans it.
  if (!t.partition.default_partition.empty() &&
      !t.partition.default_partition_partitioned &&
      !t.partition.constraint.empty()) {
    AttachPrep prep;
    prep.table = t.partition.default_partition;
    prep.constraint = names.default_check;
    prep.add = fmt::format(
        "ALTER TABLE {} ADD CONSTRAINT {} CHECK (NOT ({})) NOT VALID",
        prep.table, QuoteIdent(names.default_check), t.partition.constraint);
    prep.locks = {prep.table};
    out.push_back(std::move(prep));
  }
  for (AttachPrep& prep : out) {
    prep.validate = fmt::format("ALTER TABLE {} VALIDATE CONSTRAINT {}",
                                prep.table, QuoteIdent(prep.constraint));
  }
  return out;
}

std::vector<std::string> CaptureDropSql(const OnlineNames& names,
                                        bool source_exists) {
  std::vector<std::string> out;
  if (source_exists) {
    out.push_back("DROP TRIGGER IF EXISTS pglayout_capture ON " +
                  names.QualifiedTable());
    out.push_back("DROP TRIGGER IF EXISTS pglayout_block_truncate ON " +
                  names.QualifiedTable());
  }
  out.push_back("DROP FUNCTION IF EXISTS " + names.capture_function + "()");
  out.push_back("DROP FUNCTION IF EXISTS " + names.truncate_function + "()");
  out.push_back("DROP TABLE IF EXISTS " + names.log);
  return out;
}

namespace {

// "WHERE (k1, k2) > ($1::t1, $2::t2)" after the cursor, "" for the first
// batch.
std::string AfterCursor(const TableFacts& t, bool first) {
  return first ? "" : " WHERE " + KeyTuple(t, "") + " > " + ParamTuple(t, 1);
}

// The name of the copied rows' size beside their key columns: "b", or
// "b_", "b__"... when a key column is named so (it would be ambiguous).
std::string SizeColumn(const TableFacts& t) {
  std::string name = "b";
  while (std::find(t.keys.row_key.begin(), t.keys.row_key.end(), name) !=
         t.keys.row_key.end()) {
    name += "_";
  }
  return name;
}

// The batch's result row from a CTE |rows| that holds the copied rows' key
// columns and their size (SizeColumn): (count, bytes, last key as text...).
// The LEFT JOIN keeps one row when the batch is empty.
std::string BatchSummary(const TableFacts& t, const std::string& rows) {
  std::vector<std::string> last;
  for (const std::string& k : t.keys.row_key) {
    last.push_back(rows + "." + QuoteIdent(k) + "::pg_catalog.text");
  }
  return fmt::format(
      "SELECT (SELECT pg_catalog.count(*) FROM {0}), (SELECT "
      "coalesce(pg_catalog.sum({3}), 0) "
      "FROM {0}), last.* FROM (SELECT 1) AS one LEFT JOIN (SELECT {1} FROM "
      "{0} ORDER BY {2} LIMIT 1) AS last ON true",
      rows, JoinComma(last), OrderByKey(t, " DESC", rows),
      QuoteIdent(SizeColumn(t)));
}

}  // namespace

std::string CopyBatchSql(const TableFacts& t, const OnlineNames& names,
                         int64_t batch_rows, bool first, CopyMode mode) {
  std::string cols = JoinComma(InsertColumns(t));
  if (mode == CopyMode::kPlain) {
    // The shadow has no unique index yet and the batches' key ranges are
    // disjoint: no conflict is possible, so no ON CONFLICT (3x faster).
    // RETURNING keeps only the key and the size, not the whole row.
    return fmt::format(
        "WITH ins AS (INSERT INTO {0} AS n ({1}){2} SELECT {1} FROM ONLY {3}"
        "{4} ORDER BY {5} LIMIT {6} RETURNING {7}, "
        "pg_catalog.pg_column_size(n.*) AS {9}) {8}",
        names.QualifiedShadow(), cols, Overriding(t), names.QualifiedTable(),
        AfterCursor(t, first), OrderByKey(t, ""), batch_rows,
        JoinComma(KeyColumnsOf(t, "n")), BatchSummary(t, "ins"),
        QuoteIdent(SizeColumn(t)));
  }
  // A shadow of an older layout already has its key index and may hold
  // rows that replay put above the cursor: skip those, count what was read.
  return fmt::format(
      "WITH src AS (SELECT {0} FROM ONLY {1}{2} ORDER BY {3} LIMIT {4}), "
      "ins AS (INSERT INTO {5} ({0}){6} SELECT {0} FROM src "
      "ON CONFLICT DO NOTHING), "
      "sized AS (SELECT {7}, pg_catalog.pg_column_size(src.*) AS {9} FROM "
      "src) {8}",
      cols, names.QualifiedTable(), AfterCursor(t, first), OrderByKey(t, ""),
      batch_rows, names.QualifiedShadow(), Overriding(t),
      JoinComma(KeyColumnsOf(t, "src")), BatchSummary(t, "sized"),
      QuoteIdent(SizeColumn(t)));
}

ReplaySql MakeReplaySql(const TableFacts& t, const OnlineNames& names) {
  std::string keys = LogKeyColumns(t);
  std::vector<std::string> arrays;
  for (size_t i = 0; i < t.keys.row_key.size(); ++i) {
    arrays.push_back(
        fmt::format("pg_catalog.array_agg(k{})::pg_catalog.text", i + 1));
  }
  ReplaySql r;
  r.take = fmt::format(
      "WITH l AS (DELETE FROM {0} WHERE id IN (SELECT id FROM {0} ORDER BY id "
      "LIMIT $1) RETURNING {1}), d AS (SELECT DISTINCT {1} FROM l) "
      "SELECT (SELECT pg_catalog.count(*) FROM l), pg_catalog.count(*), {2} "
      "FROM d",
      names.log, keys, JoinComma(arrays));
  r.remove = fmt::format("DELETE FROM {} WHERE {}", names.QualifiedShadow(),
                         KeyInArrays(t));
  std::string cols = JoinComma(InsertColumns(t));
  r.insert = fmt::format(
      "INSERT INTO {0} ({1}){2} SELECT {1} FROM ONLY {3} "
      "WHERE {4}",
      names.QualifiedShadow(), cols, Overriding(t), names.QualifiedTable(),
      KeyInArrays(t));
  return r;
}

std::string LogKeysInsertSql(const TableFacts& t, const OnlineNames& names) {
  std::vector<std::string> arrays;
  for (size_t i = 0; i < t.keys.row_key.size(); ++i) {
    arrays.push_back(fmt::format("pg_catalog.unnest(${}::{}[])", i + 1,
                                 KeyType(t, t.keys.row_key[i])));
  }
  return fmt::format("INSERT INTO {} ({}) SELECT * FROM ROWS FROM ({})",
                     names.log, LogKeyColumns(t), JoinComma(arrays));
}

std::string UnloggedKeysSql(const TableFacts& t, const OnlineNames& names) {
  std::vector<std::string> arrays, aggregates;
  for (size_t i = 0; i < t.keys.row_key.size(); ++i) {
    arrays.push_back(fmt::format("pg_catalog.unnest(${}::{}[])", i + 1,
                                 KeyType(t, t.keys.row_key[i])));
    aggregates.push_back(
        fmt::format("pg_catalog.array_agg(d.k{})::pg_catalog.text", i + 1));
  }
  std::vector<std::string> columns;
  for (size_t i = 0; i < t.keys.row_key.size(); ++i) {
    columns.push_back(fmt::format("k{}", i + 1));
  }
  return fmt::format(
      "SELECT {0} FROM (SELECT * FROM ROWS FROM ({1}) AS u({2}) EXCEPT "
      "SELECT {2} FROM {3}) d",
      JoinComma(aggregates), JoinComma(arrays), JoinComma(columns), names.log);
}

std::string BlockTid(int64_t block) { return fmt::format("({},0)", block); }

bool ParseBlockTid(const std::string& tid, int64_t* block) {
  static const std::regex kTid(R"(\((\d{1,10}),0\))");
  std::smatch m;
  if (!std::regex_match(tid, m, kTid)) return false;
  *block = std::stoll(m[1].str());
  return true;
}

namespace {

// The hash of one column of |alias|: never NULL (a NULL hashes to |seed|),
// and |seed| differs per column, so values swapped between columns change
// the row's hash.
std::string ColumnHashExpr(const ColumnFacts& c, int seed,
                           const std::string& alias, bool text_form) {
  std::string column = alias + "." + QuoteIdent(c.name);
  std::string call =
      text_form || c.hash_function.empty()
          ? fmt::format("pg_catalog.hashtextextended({}::pg_catalog.text, {})",
                        column, seed)
          : fmt::format("{}({}::{}, {})", c.hash_function, column,
                        c.hash_input_type, seed);
  return fmt::format("COALESCE({}, {})", call, seed);
}

}  // namespace

namespace {

std::string RowHashExpr(const TableFacts& t, const std::string& alias,
                        bool text_form_only) {
  std::string out;
  for (size_t i = 0; i < t.columns.size(); ++i) {
    out +=
        (i ? " # " : "") + ColumnHashExpr(t.columns[i], static_cast<int>(i) + 1,
                                          alias, text_form_only);
  }
  return out.empty() ? "0" : out;
}

// (key columns of |alias|) IN (the log's keys).
std::string KeyIsLogged(const TableFacts& t, const OnlineNames& names,
                        const std::string& alias) {
  return fmt::format("{} IN (SELECT {} FROM {})", KeyTuple(t, alias),
                     LogKeyColumns(t), names.log);
}

// No row of the log has the key of |alias|. NOT EXISTS, not NOT IN: a NOT
// IN is hashed only while the log fits in work_mem; past that (a long copy
// under a busy foreground: 500,000 keys at the default 4MB) it rescans the
// log for every row, and one batch ran for a quarter of an hour. The anti
// join hashes the log in batches whatever its size. Keys are never NULL
// (a primary key), so both mean the same.
std::string KeyNotLogged(const TableFacts& t, const OnlineNames& names,
                         const std::string& alias) {
  std::vector<std::string> match;
  for (size_t i = 0; i < t.keys.row_key.size(); ++i) {
    match.push_back(fmt::format("l.k{} = {}.{}", i + 1, alias,
                                QuoteIdent(t.keys.row_key[i])));
  }
  return fmt::format("NOT EXISTS (SELECT FROM {} l WHERE {})", names.log,
                     Join(match, " AND "));
}

}  // namespace

std::vector<std::string> CopyByXminSettingsSql() {
  return {"SET LOCAL work_mem = '64kB'", "SET LOCAL hash_mem_multiplier = 1"};
}

std::string CopyTidRangeSql(const TableFacts& t, const OnlineNames& names,
                            BlockCopyFilter filter) {
  std::vector<std::string> cols = InsertColumns(t);
  std::vector<std::string> source_cols;
  for (const std::string& c : cols) source_cols.push_back("t." + c);
  const std::string range = fmt::format(
      "FROM ONLY {} t WHERE t.ctid >= $1::pg_catalog.tid AND t.ctid < "
      "$2::pg_catalog.tid",
      names.QualifiedTable());
  // Both age()s count back from the same xid, fixed for the transaction.
  const std::string older =
      "pg_catalog.age(t.xmin) > pg_catalog.age($3::pg_catalog.xid)";
  const std::string insert = fmt::format(
      "INSERT INTO {} ({}){} SELECT {} {} AND ", names.QualifiedShadow(),
      JoinComma(cols), Overriding(t), JoinComma(source_cols), range);
  switch (filter) {
    case BlockCopyFilter::kLoggedKeys:
      return insert + KeyNotLogged(t, names, "t");
    case BlockCopyFilter::kLoggedSinceXmin:
      return insert +
             fmt::format("({} OR {})", older, KeyNotLogged(t, names, "t"));
    case BlockCopyFilter::kSinceXmin:
      break;
  }
  return fmt::format(
      "WITH logged AS (INSERT INTO {} ({}) SELECT {} {} AND NOT {}) {}{}",
      names.log, LogKeyColumns(t), JoinComma(KeyColumnsOf(t, "t")), range,
      older, insert, older);
}

std::string VerifySumSql(const TableFacts& t, const OnlineNames& names,
                         const std::string& relation, VerifyScope scope,
                         bool text_form_only) {
  std::string where;
  if (scope == VerifyScope::kBlockRange) {
    where =
        " WHERE t.ctid >= $1::pg_catalog.tid AND t.ctid < "
        "$2::pg_catalog.tid";
  } else if (scope == VerifyScope::kLoggedKeys) {
    where = " WHERE " + KeyIsLogged(t, names, "t");
  } else if (scope == VerifyScope::kKeyArrays) {
    where = " WHERE " + KeyInArrays(t);
  }
  // sum(bigint) is numeric (an int128 accumulator): reduce it into bigint.
  return fmt::format(
      "SELECT pg_catalog.count(*), (COALESCE(pg_catalog.sum({}), 0) % "
      "9223372036854775807)::bigint "
      "FROM {} t{}",
      RowHashExpr(t, "t", text_form_only), relation, where);
}

std::string DifferingKeysSql(const TableFacts& t, const OnlineNames& names,
                             int limit, bool text_form_only) {
  auto side = [&](const std::string& relation) {
    return fmt::format("SELECT {}, {} AS h FROM {} t WHERE {}",
                       JoinComma(KeyColumnsOf(t, "t")),
                       RowHashExpr(t, "t", text_form_only), relation,
                       KeyNotLogged(t, names, "t"));
  };
  std::string source = side("ONLY " + names.QualifiedTable());
  std::string shadow = side(names.QualifiedShadow());
  std::vector<std::string> key_text;
  for (const std::string& k : t.keys.row_key) {
    key_text.push_back("d." + QuoteIdent(k) + "::pg_catalog.text");
  }
  return fmt::format(
      "SELECT DISTINCT {0} FROM (({1} EXCEPT ALL {2}) UNION ALL ({2} EXCEPT "
      "ALL {1})) d LIMIT {3}",
      JoinComma(key_text), source, shadow, limit);
}

namespace {

std::string Split(const std::string& entry, bool first) {
  size_t bar = entry.rfind('|');
  if (first) return entry.substr(0, bar);
  return bar == std::string::npos ? "" : entry.substr(bar + 1);
}

// Moves the old table out of the application's schema, renaming what would
// collide in schema pglayout first.
void AppendRetireOld(const TableFacts& t, const OnlineNames& names,
                     std::vector<std::string>* out) {
  std::string schema = QuoteIdent(names.schema);
  for (size_t i = 0; i < t.indexes.size(); ++i) {
    out->push_back(fmt::format(
        "ALTER INDEX {}.{} RENAME TO {}", schema, QuoteIdent(t.indexes[i].name),
        QuoteIdent(fmt::format("{}_i{}", names.old_name, i))));
  }
  for (size_t i = 0; i < t.dependents.identity_sequences.size(); ++i) {
    out->push_back(
        fmt::format("ALTER SEQUENCE {} RENAME TO {}",
                    Split(t.dependents.identity_sequences[i], true),
                    QuoteIdent(fmt::format("{}_s{}", names.old_name, i))));
  }
  // A statistics object stays in its schema when its table moves: the old
  // one's go to pglayout under names of their own, freeing the originals.
  for (size_t i = 0; i < t.statistics.size(); ++i) {
    const StatisticsFacts& st = t.statistics[i];
    std::string old_name = fmt::format("{}_x{}", names.old_name, i);
    out->push_back(fmt::format("ALTER STATISTICS {}.{} RENAME TO {}",
                               QuoteIdent(st.schema), QuoteIdent(st.name),
                               QuoteIdent(old_name)));
    out->push_back(fmt::format("ALTER STATISTICS {}.{} SET SCHEMA pglayout",
                               QuoteIdent(st.schema), QuoteIdent(old_name)));
  }
  out->push_back(fmt::format("ALTER TABLE {} RENAME TO {}",
                             names.QualifiedTable(),
                             QuoteIdent(names.old_name)));
  out->push_back(fmt::format("ALTER TABLE {}.{} SET SCHEMA pglayout", schema,
                             QuoteIdent(names.old_name)));
}

// The shadow's statistics objects (LIKE named them after the shadow) get
// the originals' names, schemas and targets.
void AppendNameStatistics(const TableFacts& t, const OnlineNames& names,
                          const SwapInputs& inputs,
                          std::vector<std::string>* out) {
  if (inputs.shadow_statistics.size() != t.statistics.size()) return;
  for (size_t i = 0; i < t.statistics.size(); ++i) {
    const StatisticsFacts& st = t.statistics[i];
    std::string now = inputs.shadow_statistics[i];
    if (st.schema != names.schema) {
      out->push_back(fmt::format("ALTER STATISTICS {} SET SCHEMA {}", now,
                                 QuoteIdent(st.schema)));
      std::string schema, name;
      if (SplitQualifiedName(now, &schema, &name).ok()) {
        now = QuoteIdent(st.schema) + "." + QuoteIdent(name);
      }
    }
    out->push_back(fmt::format("ALTER STATISTICS {} RENAME TO {}", now,
                               QuoteIdent(st.name)));
    if (st.target >= 0) {
      out->push_back(fmt::format("ALTER STATISTICS {}.{} SET STATISTICS {}",
                                 QuoteIdent(st.schema), QuoteIdent(st.name),
                                 st.target));
    }
    // LIKE made the copy the running role's.
    if (!st.owner.empty()) {
      out->push_back(fmt::format("ALTER STATISTICS {}.{} OWNER TO {}",
                                 QuoteIdent(st.schema), QuoteIdent(st.name),
                                 QuoteIdent(st.owner)));
    }
  }
}

// The shadow's heaps (the table, or each partition) get the table's own
// autovacuum setting back (ShadowReloptions turned it off).
void AppendAutovacuumRestore(const TableFacts& t, const OnlineTarget& target,
                             const OnlineNames& names,
                             std::vector<std::string>* out) {
  std::string restore = fmt::format("RESET ({})", kAutovacuumEnabled);
  for (const std::string& o : t.storage.reloptions) {
    if (IsAutovacuumOption(o)) {
      restore = "SET " + WithOptionsClause({o}, {}).substr(strlen("WITH "));
    }
  }
  std::vector<std::string> heaps;
  if (!target.partitioned) heaps.push_back(names.QualifiedShadow());
  for (int r = 0; r < target.partitions && target.partitioned; ++r) {
    heaps.push_back(names.QualifiedPartition(r));
  }
  for (const std::string& heap : heaps) {
    out->push_back(fmt::format("ALTER TABLE {} {}", heap, restore));
  }
}

void AppendNameNew(const TableFacts& t, const OnlineNames& names,
                   const SwapInputs& inputs, std::vector<std::string>* out) {
  std::string schema = QuoteIdent(names.schema);
  out->push_back(fmt::format("ALTER TABLE {} RENAME TO {}",
                             names.QualifiedShadow(), QuoteIdent(names.table)));
  for (size_t i = 0; i < t.indexes.size(); ++i) {
    out->push_back(fmt::format("ALTER INDEX {}.{} RENAME TO {}", schema,
                               QuoteIdent(names.TempIndexName(i)),
                               QuoteIdent(t.indexes[i].name)));
  }
  for (size_t i = 0; i < t.dependents.identity_sequences.size(); ++i) {
    // identity_sequences holds "schema.sequence|column".
    std::string column = Split(t.dependents.identity_sequences[i], false);
    std::string old_seq = fmt::format(
        "pglayout.{}", QuoteIdent(fmt::format("{}_s{}", names.old_name, i)));
    auto it = inputs.shadow_identity_sequences.find(column);
    std::string new_seq = it == inputs.shadow_identity_sequences.end()
                              ? "<identity sequence of " + column + ">"
                              : it->second;
    auto type = t.dependents.identity_sequence_types.find(column);
    if (type != t.dependents.identity_sequence_types.end() &&
        type->second != "bigint") {
      out->push_back(
          fmt::format("ALTER SEQUENCE {} AS {}", new_seq, type->second));
    }
    out->push_back(
        fmt::format("SELECT pg_catalog.setval({}::pg_catalog.regclass, "
                    "s.last_value, s.is_called) "
                    "FROM {} s",
                    QuoteLiteral(new_seq), old_seq));
    std::string original = Split(t.dependents.identity_sequences[i], true);
    std::string seq_schema, seq_name;
    if (SplitQualifiedName(original, &seq_schema, &seq_name).ok()) {
      out->push_back(fmt::format("ALTER SEQUENCE {} RENAME TO {}", new_seq,
                                 QuoteIdent(seq_name)));
    }
  }
}

// The shadow stays the running role's until the swap, so that no other
// role can hang a trigger, a rule or a policy on it while the copy and
// replay insert into it (docs/security.md#code-of-other-roles); under the
// swap's lock it becomes the table owner's, with its indexes, TOAST table
// and identity sequences (which ALTER TABLE ... OWNER TO takes along) and
// each partition. First, as ALTER SEQUENCE ... OWNED BY wants the table
// and the sequence to have the same owner.
void AppendGiveShadow(const TableFacts& t, const OnlineTarget& target,
                      const OnlineNames& names, std::vector<std::string>* out) {
  out->push_back(fmt::format("ALTER TABLE {} OWNER TO {}",
                             names.QualifiedShadow(),
                             QuoteIdent(t.security.owner)));
  for (int r = 0; target.partitioned && r < target.partitions; ++r) {
    out->push_back(fmt::format("ALTER TABLE {} OWNER TO {}",
                               names.QualifiedPartition(r),
                               QuoteIdent(t.security.owner)));
  }
}

// |sql| with its "{table}" placeholder replaced by |table|.
std::string ForTable(std::string sql, const std::string& table) {
  size_t at = sql.find("{table}");
  if (at != std::string::npos) sql.replace(at, 7, table);
  return sql;
}

void AppendCarryOver(const TableFacts& t, const OnlineNames& names,
                     std::vector<std::string>* out) {
  std::string table = names.QualifiedTable();
  for (const std::string& g : t.security.grants)
    out->push_back(ForTable(g, table));
  if (!t.comment.empty()) {
    out->push_back(fmt::format("COMMENT ON TABLE {} IS {}", table,
                               QuoteLiteral(t.comment)));
  }
  if (t.security.row_security) {
    out->push_back("ALTER TABLE " + table + " ENABLE ROW LEVEL SECURITY");
  }
  if (t.security.force_row_security) {
    out->push_back("ALTER TABLE " + table + " FORCE ROW LEVEL SECURITY");
  }
  for (const PolicyFacts& p : t.security.policies) {
    out->push_back(fmt::format("CREATE POLICY {} ON {} {}", QuoteIdent(p.name),
                               table, p.definition));
  }
  const char* identity =
      t.storage.replica_identity == ReplicaIdentity::kFull      ? "FULL"
      : t.storage.replica_identity == ReplicaIdentity::kNothing ? "NOTHING"
                                                                : nullptr;
  for (size_t r = 0; identity && r <= names.partitions.size(); ++r) {
    out->push_back(fmt::format(
        "ALTER TABLE {} REPLICA IDENTITY {}",
        r == 0 ? table : names.QualifiedPartition(static_cast<int>(r - 1)),
        identity));
  }
  // The indexes have their own names again by now. A partitioned table
  // cannot be marked for CLUSTER: its partitions, ordinary tables, are,
  // each on its copy of the index (a plain CLUSTER then orders every
  // partition as the table was). The replica identity marks the table and
  // each partition, whose own identity logical replication uses.
  const int partitions = static_cast<int>(names.partitions.size());
  for (const IndexFacts& i : t.indexes) {
    if (i.replica_identity) {
      out->push_back(
          fmt::format("ALTER TABLE {} REPLICA IDENTITY USING INDEX {}", table,
                      QuoteIdent(i.name)));
      for (int r = 0; r < partitions; ++r) {
        out->push_back(
            fmt::format("ALTER TABLE {} REPLICA IDENTITY USING INDEX {}",
                        names.QualifiedPartition(r),
                        QuoteIdent(PartitionIndexName(i, names, r))));
      }
    }
    if (i.clustered && partitions == 0) {
      out->push_back(fmt::format("ALTER TABLE {} CLUSTER ON {}", table,
                                 QuoteIdent(i.name)));
    }
    for (int r = 0; r < partitions && i.clustered; ++r) {
      out->push_back(fmt::format("ALTER TABLE {} CLUSTER ON {}",
                                 names.QualifiedPartition(r),
                                 QuoteIdent(PartitionIndexName(i, names, r))));
    }
    for (const auto& [column, target] : i.column_stat_targets) {
      out->push_back(fmt::format(
          "ALTER INDEX {}.{} ALTER COLUMN {} SET STATISTICS {}",
          QuoteIdent(names.schema), QuoteIdent(i.name), column, target));
    }
  }
  for (const TriggerFacts& tr : t.dependents.triggers) {
    out->push_back(tr.definition);
    const char* state = tr.enabled == 'D'   ? "DISABLE"
                        : tr.enabled == 'A' ? "ENABLE ALWAYS"
                        : tr.enabled == 'R' ? "ENABLE REPLICA"
                                            : nullptr;
    if (state) {
      out->push_back(fmt::format("ALTER TABLE {} {} TRIGGER {}", table, state,
                                 QuoteIdent(tr.name)));
    }
  }
  for (const ViewFacts& v : t.dependents.views) {
    std::string with = WithOptionsClause(v.options, {});
    std::string def = v.definition;
    while (!def.empty() &&
           (def.back() == ';' || def.back() == ' ' || def.back() == '\n')) {
      def.pop_back();
    }
    out->push_back(fmt::format("CREATE OR REPLACE VIEW {}{} AS {}", v.name,
                               with.empty() ? "" : " " + with, def));
  }
}

// A partition leaves its parent (docs/online-migration.md#moving-a-partition);
// the keys it had from the parent are its own then, and go: the old copy
// must not keep rows of the referenced tables from being deleted.
void AppendDetach(const TableFacts& t, const OnlineNames& names,
                  std::vector<std::string>* out) {
  if (t.partition.parent.empty()) return;
  // DETACH would check the rows of the keys to the parent: they go first
  // and come back with the copy (AppendAttach).
  for (const ForeignKeyFacts& fk : t.partition.parent_fks_in) {
    out->push_back(fmt::format("ALTER TABLE {} DROP CONSTRAINT {}", fk.table,
                               QuoteIdent(fk.name)));
  }
  out->push_back(fmt::format("ALTER TABLE {} DETACH PARTITION {}",
                             t.partition.parent, names.QualifiedTable()));
  for (const ForeignKeyFacts& fk : t.partition.inherited_fks_out) {
    out->push_back(fmt::format("ALTER TABLE {} DROP CONSTRAINT {}",
                               names.QualifiedTable(), QuoteIdent(fk.name)));
  }
}

// The copy, under the partition's name, takes its place with the same
// bounds. Its CHECK of the partition constraint and the DEFAULT
// partition's exclusion (AttachPrepSql) spare ATTACH its scans; ATTACH
// attaches the copy's indexes and foreign keys to the parent's and clones
// the parent's row triggers; then both checks go.
void AppendAttach(const TableFacts& t, const OnlineNames& names,
                  std::vector<std::string>* out) {
  if (t.partition.parent.empty()) return;
  out->push_back(fmt::format("ALTER TABLE {} ATTACH PARTITION {} {}",
                             t.partition.parent, names.QualifiedTable(),
                             t.partition.bound));
  // IF EXISTS: a DEFAULT partition's constraint may have been empty when
  // its copy was made (it was the parent's only partition then).
  out->push_back(fmt::format("ALTER TABLE {} DROP CONSTRAINT IF EXISTS {}",
                             names.QualifiedTable(),
                             QuoteIdent(names.bound_check)));
  if (!t.partition.default_partition.empty()) {
    out->push_back(fmt::format("ALTER TABLE {} DROP CONSTRAINT IF EXISTS {}",
                               t.partition.default_partition,
                               QuoteIdent(names.default_check)));
  }
  // NOT VALID: the rows were valid and are the same; PostSwapSql
  // validates them outside the lock.
  for (const ForeignKeyFacts& fk : t.partition.parent_fks_in) {
    out->push_back(fmt::format("ALTER TABLE {} ADD CONSTRAINT {} {} NOT VALID",
                               fk.table, QuoteIdent(fk.name), fk.definition));
  }
}

}  // namespace

std::vector<std::string> SwapSql(const TableFacts& t,
                                 const OnlineTarget& target,
                                 const OnlineNames& names,
                                 const SwapInputs& inputs) {
  std::vector<std::string> out = {
      "DROP TRIGGER IF EXISTS pglayout_capture ON " + names.QualifiedTable(),
      "DROP TRIGGER pglayout_block_truncate ON " + names.QualifiedTable()};
  AppendGiveShadow(t, target, names, &out);
  for (const CheckFacts& c : t.keys.not_valid_checks) {
    out.push_back(fmt::format("ALTER TABLE {} ADD CONSTRAINT {} {} NOT VALID",
                              names.QualifiedShadow(), QuoteIdent(c.name),
                              c.definition));
  }
  for (const std::string& seq : t.dependents.owned_sequences) {
    out.push_back(fmt::format("ALTER SEQUENCE {} OWNED BY {}.{}",
                              Split(seq, true), names.QualifiedShadow(),
                              QuoteIdent(Split(seq, false))));
  }
  for (const ForeignKeyFacts& fk : t.dependents.fks_in) {
    out.push_back(fmt::format("ALTER TABLE {} DROP CONSTRAINT {}", fk.table,
                              QuoteIdent(fk.name)));
  }
  for (const ForeignKeyFacts& fk : t.dependents.fks_out) {
    out.push_back(fmt::format("ALTER TABLE {} DROP CONSTRAINT {}",
                              names.QualifiedTable(), QuoteIdent(fk.name)));
  }
  AppendDetach(t, names, &out);
  AppendAutovacuumRestore(t, target, names, &out);
  AppendRetireOld(t, names, &out);
  AppendNameNew(t, names, inputs, &out);
  AppendNameStatistics(t, names, inputs, &out);
  AppendAttach(t, names, &out);
  AppendCarryOver(t, names, &out);
  for (const ForeignKeyFacts& fk : t.dependents.fks_in) {
    out.push_back(fmt::format("ALTER TABLE {} ADD CONSTRAINT {} {} NOT VALID",
                              fk.table, QuoteIdent(fk.name), fk.definition));
  }
  for (const ForeignKeyFacts& fk : t.dependents.fks_out) {
    out.push_back(fmt::format("ALTER TABLE {} ADD CONSTRAINT {} {} NOT VALID",
                              names.QualifiedTable(), QuoteIdent(fk.name),
                              fk.definition));
  }
  // Last: every object commented on exists again under its own name.
  for (const std::string& c : t.object_comments) {
    out.push_back(ForTable(c, names.QualifiedTable()));
  }
  return out;
}

namespace {

// The other tables of the foreign keys the swap drops and adds again,
// each once, in the order first seen (SwapLockedTables).
std::vector<std::string> ForeignKeyTables(const TableFacts& t,
                                          const OnlineNames& names) {
  // Compared as quoted: the catalog prints public.orders where the names
  // say "public"."orders".
  std::set<std::string> seen = {names.QualifiedTable(),
                                QuoteQualified(t.partition.parent),
                                QuoteQualified(t.partition.default_partition)};
  std::vector<std::string> out;
  for (const std::vector<ForeignKeyFacts>* keys :
       {&t.dependents.fks_in, &t.dependents.fks_out, &t.partition.parent_fks_in,
        &t.partition.inherited_fks_out}) {
    for (const ForeignKeyFacts& fk : *keys) {
      if (seen.insert(QuoteQualified(fk.table)).second) out.push_back(fk.table);
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> SwapLockedTables(const TableFacts& t,
                                          const OnlineNames& names) {
  std::vector<std::string> out = ForeignKeyTables(t, names);
  if (!t.partition.parent.empty()) out.push_back(t.partition.parent);
  out.push_back(names.QualifiedTable());
  out.push_back(names.QualifiedShadow());
  if (!t.partition.default_partition.empty())
    out.push_back(t.partition.default_partition);
  return out;
}

std::string SwapLockSql(const TableFacts& t, const OnlineNames& names) {
  std::vector<std::string> tables = SwapLockedTables(t, names);
  for (std::string& table : tables) {
    if (table == t.partition.parent) table = "ONLY " + table;
  }
  return fmt::format("LOCK TABLE {} IN ACCESS EXCLUSIVE MODE",
                     JoinComma(tables));
}

std::string ForeignKeyKey(const ForeignKeyFacts& fk, bool incoming) {
  return incoming ? "in:" + fk.table + ":" + fk.name : "out:" + fk.name;
}

namespace {

// A key to the parent, by its table and name as an incoming one's.
std::string ParentKeyKey(const ForeignKeyFacts& fk) {
  return "parent:" + fk.table + ":" + fk.name;
}

}  // namespace

std::vector<std::string> NotValidForeignKeys(const TableFacts& t) {
  std::vector<std::string> out;
  for (const ForeignKeyFacts& fk : t.dependents.fks_in) {
    if (!fk.valid) out.push_back(ForeignKeyKey(fk, true));
  }
  for (const ForeignKeyFacts& fk : t.partition.parent_fks_in) {
    if (!fk.valid) out.push_back(ParentKeyKey(fk));
  }
  for (const ForeignKeyFacts& fk : t.dependents.fks_out) {
    if (!fk.valid) out.push_back(ForeignKeyKey(fk, false));
  }
  return out;
}

std::vector<std::string> PostSwapSql(const TableFacts& t,
                                     const OnlineNames& names,
                                     const std::set<std::string>& not_valid) {
  std::vector<std::string> out;
  // A key that was NOT VALID before the swap stays so: its older rows may
  // not hold, and validating them is the user's decision.
  for (const ForeignKeyFacts& fk : t.dependents.fks_in) {
    if (not_valid.count(ForeignKeyKey(fk, true))) continue;
    out.push_back(fmt::format("ALTER TABLE {} VALIDATE CONSTRAINT {}", fk.table,
                              QuoteIdent(fk.name)));
  }
  for (const ForeignKeyFacts& fk : t.dependents.fks_out) {
    if (not_valid.count(ForeignKeyKey(fk, false))) continue;
    out.push_back(fmt::format("ALTER TABLE {} VALIDATE CONSTRAINT {}",
                              names.QualifiedTable(), QuoteIdent(fk.name)));
  }
  for (const ForeignKeyFacts& fk : t.partition.parent_fks_in) {
    if (not_valid.count(ParentKeyKey(fk))) continue;
    out.push_back(fmt::format("ALTER TABLE {} VALIDATE CONSTRAINT {}", fk.table,
                              QuoteIdent(fk.name)));
  }
  out.push_back("ANALYZE " + names.QualifiedTable());
  return out;
}

}  // namespace pglayout::migrator
