#include "migrator/online_sql.h"

#include <fmt/format.h>

#include "common/ddl.h"
#include "common/sql.h"
#include "migrator/sql_util.h"

namespace pglayout::migrator {
namespace {

constexpr size_t kMaxIdentifierBytes = 63;  // NAMEDATALEN - 1

std::string KeyType(const TableFacts& t, const std::string& column) {
  const ColumnFacts* c = t.FindColumn(column);
  return c ? c->type : "text";
}

// "(t."a", t."b")" or without an alias: "("a", "b")".
std::string KeyTuple(const TableFacts& t, const std::string& alias) {
  std::vector<std::string> parts;
  for (const std::string& k : t.row_key) {
    parts.push_back(alias.empty() ? QuoteIdent(k)
                                  : alias + "." + QuoteIdent(k));
  }
  return "(" + JoinComma(parts) + ")";
}

// "($1::integer, $2::text)" starting at parameter |first|.
std::string ParamTuple(const TableFacts& t, int first) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < t.row_key.size(); ++i) {
    parts.push_back(fmt::format("${}::{}", first + static_cast<int>(i),
                                KeyType(t, t.row_key[i])));
  }
  return "(" + JoinComma(parts) + ")";
}

// |alias| qualifies the columns: in "SELECT k::text FROM src ORDER BY k" the
// output column k (text) would win over the input column and sort as text.
std::string OrderByKey(const TableFacts& t, const char* direction,
                       const std::string& alias = "") {
  std::vector<std::string> parts;
  for (const std::string& k : t.row_key) {
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
  if (t.row_key.size() == 1) {
    return fmt::format("{} = ANY ($1::{}[])", QuoteIdent(t.row_key[0]),
                       KeyType(t, t.row_key[0]));
  }
  // The multi-argument unnest() is only sugar for ROWS FROM when written
  // unqualified; ROWS FROM keeps every function schema-qualified.
  std::vector<std::string> arrays;
  for (size_t i = 0; i < t.row_key.size(); ++i) {
    arrays.push_back(fmt::format("pg_catalog.unnest(${}::{}[])", i + 1,
                                 KeyType(t, t.row_key[i])));
  }
  return fmt::format("{} IN (SELECT * FROM ROWS FROM ({}))", KeyTuple(t, ""),
                     JoinComma(arrays));
}

std::string LogKeyColumns(const TableFacts& t) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < t.row_key.size(); ++i) {
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

const IndexFacts* RowKeyIndex(const TableFacts& t, size_t* position) {
  for (size_t i = 0; i < t.indexes.size(); ++i) {
    if (t.indexes[i].name == t.row_key_index) {
      *position = i;
      return &t.indexes[i];
    }
  }
  return nullptr;
}

// The row key's index on the shadow, created before the copy: replay looks
// keys up through it and the copy's ON CONFLICT needs it.
std::string RowKeyIndexSql(const TableFacts& t, const OnlineNames& names) {
  size_t pos = 0;
  const IndexFacts* index = RowKeyIndex(t, &pos);
  if (!index) return "";
  std::string temp = QuoteIdent(names.TempIndexName(pos));
  if (index->constraint_type == 'p') {
    return fmt::format("ALTER TABLE {} ADD CONSTRAINT {} PRIMARY KEY ({})",
                       names.QualifiedShadow(), temp,
                       QuoteIdentList(index->columns));
  }
  return fmt::format("CREATE UNIQUE INDEX {} ON {} {}", temp,
                     names.QualifiedShadow(), index->using_clause);
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
  bool constraint =
      index.constraint_type == 'u' || index.constraint_type == 'x';
  const char* unique = index.unique ? "UNIQUE " : "";
  if (constraint) {
    tx.push_back(fmt::format("ALTER TABLE ONLY {} ADD CONSTRAINT {} {}",
                             names.QualifiedShadow(), parent,
                             index.constraint_def));
  } else {
    tx.push_back(fmt::format("CREATE {}INDEX {} ON ONLY {} {}", unique, parent,
                             names.QualifiedShadow(), index.using_clause));
  }
  for (int r = 0; r < target.partitions; ++r) {
    std::string child = TruncatedName(index.name, fmt::format("_p{}", r));
    tx.push_back(SetDefaultTablespace(PartitionTablespace(target, r)));
    if (constraint) {
      tx.push_back(fmt::format("ALTER TABLE ONLY {} ADD CONSTRAINT {} {}",
                               names.QualifiedPartition(r), QuoteIdent(child),
                               index.constraint_def));
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
  if (index.constraint_type == 'u' || index.constraint_type == 'x') {
    tx.push_back(fmt::format("ALTER TABLE {} ADD CONSTRAINT {} {}",
                             names.QualifiedShadow(), temp,
                             index.constraint_def));
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
    for (const std::string& k : t.row_key) {
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

const std::string& PartitionTablespace(const OnlineTarget& target, int r) {
  return target.tablespaces[static_cast<size_t>(r) % target.tablespaces.size()];
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
  std::string with = WithOptionsClause(t.reloptions, t.toast_reloptions);
  if (!target.partitioned) {
    tx.push_back(SetDefaultTablespace(target.tablespaces[0]));
    tx.push_back(fmt::format("CREATE TABLE {} ({}){} TABLESPACE {}", shadow,
                             like, with.empty() ? "" : " " + with,
                             QuoteIdent(target.tablespaces[0])));
    tx.push_back(RowKeyIndexSql(t, names));
    tx.push_back(
        fmt::format("ALTER TABLE {} OWNER TO {}", shadow, QuoteIdent(t.owner)));
    AppendColumnSettings(t, shadow, &tx);
    return tx;
  }
  tx.push_back(fmt::format("CREATE TABLE {} ({}) PARTITION BY HASH ({})",
                           shadow, like, QuoteIdentList(target.key)));
  tx.push_back(RowKeyIndexSql(t, names));
  tx.push_back(
      fmt::format("ALTER TABLE {} OWNER TO {}", shadow, QuoteIdent(t.owner)));
  for (int r = 0; r < target.partitions; ++r) {
    const std::string& ts = PartitionTablespace(target, r);
    tx.push_back(SetDefaultTablespace(ts));
    tx.push_back(fmt::format(
        "CREATE TABLE {} PARTITION OF {} FOR VALUES WITH (MODULUS {}, "
        "REMAINDER {}){} TABLESPACE {}",
        names.QualifiedPartition(r), shadow, target.partitions, r,
        with.empty() ? "" : " " + with, QuoteIdent(ts)));
    tx.push_back(fmt::format("ALTER TABLE {} OWNER TO {}",
                             names.QualifiedPartition(r), QuoteIdent(t.owner)));
  }
  tx.push_back("SET LOCAL default_tablespace = ''");
  AppendColumnSettings(t, shadow, &tx);
  return tx;
}

std::vector<std::vector<std::string>> ShadowIndexSql(const TableFacts& t,
                                                     const OnlineTarget& target,
                                                     const OnlineNames& names) {
  std::vector<std::vector<std::string>> out;
  for (size_t i = 0; i < t.indexes.size(); ++i) {
    const IndexFacts& index = t.indexes[i];
    if (index.name == t.row_key_index) continue;
    out.push_back(target.partitioned
                      ? PartitionedIndexSql(index, i, target, names)
                      : PlainIndexSql(index, i, target, names));
  }
  return out;
}

std::vector<std::string> CaptureCreateSql(const TableFacts& t,
                                          const OnlineNames& names,
                                          uint64_t run_id) {
  std::vector<std::string> key_defs;
  for (size_t i = 0; i < t.row_key.size(); ++i) {
    key_defs.push_back(
        fmt::format("k{} {} NOT NULL", i + 1, KeyType(t, t.row_key[i])));
  }
  std::string message = fmt::format(
      "pglayout migrate run {} is moving table {}; TRUNCATE is blocked until "
      "the run finishes or is aborted (pglayout migrate --abort)",
      run_id, names.QualifiedTable());
  std::string truncate_body =
      "BEGIN RAISE EXCEPTION USING MESSAGE = " + QuoteLiteral(message) +
      ", ERRCODE = 'object_in_use'; END";
  std::string table = names.QualifiedTable();
  return {
      fmt::format("CREATE TABLE {} (id bigint GENERATED ALWAYS AS IDENTITY "
                  "PRIMARY KEY, {})",
                  names.log, JoinComma(key_defs)),
      fmt::format("CREATE INDEX ON {} ({})", names.log, LogKeyColumns(t)),
      fmt::format("CREATE FUNCTION {}() RETURNS trigger LANGUAGE plpgsql "
                  "SECURITY DEFINER SET search_path = pg_catalog, pg_temp "
                  "AS {}",
                  names.capture_function, QuoteLiteral(CaptureBody(t, names))),
      fmt::format("CREATE FUNCTION {}() RETURNS trigger LANGUAGE plpgsql "
                  "SET search_path = pg_catalog, pg_temp AS {}",
                  names.truncate_function, QuoteLiteral(truncate_body)),
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

std::string CopyBatchSql(const TableFacts& t, const OnlineNames& names,
                         int64_t batch_rows, bool first) {
  std::string cols = JoinComma(InsertColumns(t));
  std::vector<std::string> last;
  for (const std::string& k : t.row_key) {
    last.push_back("src." + QuoteIdent(k) + "::text");
  }
  return fmt::format(
      "WITH src AS (SELECT {0} FROM ONLY {1}{2} ORDER BY {3} LIMIT {4}), "
      "ins AS (INSERT INTO {5} ({0}){6} SELECT {0} FROM src "
      "ON CONFLICT DO NOTHING) "
      "SELECT (SELECT count(*) FROM src), last.* FROM (SELECT 1) AS one "
      "LEFT JOIN (SELECT {7} FROM src ORDER BY {8} LIMIT 1) AS last ON true",
      cols, names.QualifiedTable(),
      first ? "" : " WHERE " + KeyTuple(t, "") + " > " + ParamTuple(t, 1),
      OrderByKey(t, ""), batch_rows, names.QualifiedShadow(), Overriding(t),
      JoinComma(last), OrderByKey(t, " DESC", "src"));
}

ReplaySql MakeReplaySql(const TableFacts& t, const OnlineNames& names) {
  std::string keys = LogKeyColumns(t);
  std::vector<std::string> arrays;
  for (size_t i = 0; i < t.row_key.size(); ++i) {
    arrays.push_back(fmt::format("pg_catalog.array_agg(k{})::text", i + 1));
  }
  ReplaySql r;
  r.take = fmt::format(
      "WITH l AS (DELETE FROM {0} WHERE id IN (SELECT id FROM {0} ORDER BY id "
      "LIMIT $1) RETURNING {1}), d AS (SELECT DISTINCT {1} FROM l) "
      "SELECT (SELECT count(*) FROM l), count(*), {2} FROM d",
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

std::string VerifyChunkSql(const TableFacts& t, const OnlineNames& names,
                           bool has_lower, bool has_upper) {
  std::vector<std::string> conditions;
  int next = 1;
  if (has_lower) {
    conditions.push_back(KeyTuple(t, "t") + " > " + ParamTuple(t, next));
    next += static_cast<int>(t.row_key.size());
  }
  if (has_upper) {
    conditions.push_back(KeyTuple(t, "t") + " <= " + ParamTuple(t, next));
  }
  std::vector<std::string> match;
  for (size_t i = 0; i < t.row_key.size(); ++i) {
    match.push_back(
        fmt::format("l.k{} = t.{}", i + 1, QuoteIdent(t.row_key[i])));
  }
  std::string pending_join;
  for (size_t i = 0; i < match.size(); ++i) {
    pending_join += (i ? " AND " : "") + match[i];
  }
  conditions.push_back(fmt::format("NOT EXISTS (SELECT 1 FROM {} l WHERE {})",
                                   names.log, pending_join));
  std::string where;
  for (size_t i = 0; i < conditions.size(); ++i) {
    where += (i ? " AND " : "") + conditions[i];
  }
  constexpr const char* kSide =
      "(SELECT count(*) AS n, coalesce(sum(pg_catalog.hashtext(t::text)::"
      "bigint), 0) AS h FROM {}{} t WHERE {})";
  return fmt::format(
      "SELECT s.n, s.h, d.n, d.h FROM {} s, {} d",
      fmt::format(fmt::runtime(kSide), "ONLY ", names.QualifiedTable(), where),
      fmt::format(fmt::runtime(kSide), "", names.QualifiedShadow(), where));
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
  for (size_t i = 0; i < t.identity_sequences.size(); ++i) {
    out->push_back(fmt::format(
        "ALTER SEQUENCE {} RENAME TO {}", Split(t.identity_sequences[i], true),
        QuoteIdent(fmt::format("{}_s{}", names.old_name, i))));
  }
  out->push_back(fmt::format("ALTER TABLE {} RENAME TO {}",
                             names.QualifiedTable(),
                             QuoteIdent(names.old_name)));
  out->push_back(fmt::format("ALTER TABLE {}.{} SET SCHEMA pglayout", schema,
                             QuoteIdent(names.old_name)));
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
  for (size_t i = 0; i < t.identity_sequences.size(); ++i) {
    // identity_sequences holds "schema.sequence|column".
    std::string column = Split(t.identity_sequences[i], false);
    std::string old_seq = fmt::format(
        "pglayout.{}", QuoteIdent(fmt::format("{}_s{}", names.old_name, i)));
    auto it = inputs.shadow_identity_sequences.find(column);
    std::string new_seq = it == inputs.shadow_identity_sequences.end()
                              ? "<identity sequence of " + column + ">"
                              : it->second;
    out->push_back(fmt::format(
        "SELECT pg_catalog.setval({}::regclass, s.last_value, s.is_called) "
        "FROM {} s",
        QuoteLiteral(new_seq), old_seq));
    std::string original = Split(t.identity_sequences[i], true);
    std::string seq_schema, seq_name;
    if (SplitQualifiedName(original, &seq_schema, &seq_name).ok()) {
      out->push_back(fmt::format("ALTER SEQUENCE {} RENAME TO {}", new_seq,
                                 QuoteIdent(seq_name)));
    }
  }
}

void AppendCarryOver(const TableFacts& t, const OnlineNames& names,
                     std::vector<std::string>* out) {
  std::string table = names.QualifiedTable();
  for (const std::string& g : t.grants) {
    std::string sql = g;
    size_t at = sql.find("{table}");
    if (at != std::string::npos) sql.replace(at, 7, table);
    out->push_back(sql);
  }
  if (!t.comment.empty()) {
    out->push_back(fmt::format("COMMENT ON TABLE {} IS {}", table,
                               QuoteLiteral(t.comment)));
  }
  if (t.row_security) {
    out->push_back("ALTER TABLE " + table + " ENABLE ROW LEVEL SECURITY");
  }
  if (t.force_row_security) {
    out->push_back("ALTER TABLE " + table + " FORCE ROW LEVEL SECURITY");
  }
  for (const PolicyFacts& p : t.policies) {
    out->push_back(fmt::format("CREATE POLICY {} ON {} {}", QuoteIdent(p.name),
                               table, p.definition));
  }
  if (t.replica_identity == 'f') {
    out->push_back("ALTER TABLE " + table + " REPLICA IDENTITY FULL");
  } else if (t.replica_identity == 'n') {
    out->push_back("ALTER TABLE " + table + " REPLICA IDENTITY NOTHING");
  }
  for (const TriggerFacts& tr : t.triggers) {
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
  for (const ViewFacts& v : t.views) {
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

}  // namespace

std::vector<std::string> SwapSql(const TableFacts& t,
                                 const OnlineTarget& target,
                                 const OnlineNames& names,
                                 const SwapInputs& inputs) {
  (void)target;
  std::vector<std::string> out = {
      "DROP TRIGGER pglayout_capture ON " + names.QualifiedTable(),
      "DROP TRIGGER pglayout_block_truncate ON " + names.QualifiedTable()};
  for (const std::string& seq : t.owned_sequences) {
    out.push_back(fmt::format("ALTER SEQUENCE {} OWNED BY {}.{}",
                              Split(seq, true), names.QualifiedShadow(),
                              QuoteIdent(Split(seq, false))));
  }
  for (const ForeignKeyFacts& fk : t.fks_in) {
    out.push_back(fmt::format("ALTER TABLE {} DROP CONSTRAINT {}", fk.table,
                              QuoteIdent(fk.name)));
  }
  for (const ForeignKeyFacts& fk : t.fks_out) {
    out.push_back(fmt::format("ALTER TABLE {} DROP CONSTRAINT {}",
                              names.QualifiedTable(), QuoteIdent(fk.name)));
  }
  AppendRetireOld(t, names, &out);
  AppendNameNew(t, names, inputs, &out);
  AppendCarryOver(t, names, &out);
  for (const ForeignKeyFacts& fk : t.fks_in) {
    out.push_back(fmt::format("ALTER TABLE {} ADD CONSTRAINT {} {} NOT VALID",
                              fk.table, QuoteIdent(fk.name), fk.definition));
  }
  for (const ForeignKeyFacts& fk : t.fks_out) {
    out.push_back(fmt::format("ALTER TABLE {} ADD CONSTRAINT {} {} NOT VALID",
                              names.QualifiedTable(), QuoteIdent(fk.name),
                              fk.definition));
  }
  return out;
}

std::vector<std::string> PostSwapSql(const TableFacts& t,
                                     const OnlineNames& names) {
  std::vector<std::string> out;
  for (const ForeignKeyFacts& fk : t.fks_in) {
    out.push_back(fmt::format("ALTER TABLE {} VALIDATE CONSTRAINT {}", fk.table,
                              QuoteIdent(fk.name)));
  }
  for (const ForeignKeyFacts& fk : t.fks_out) {
    out.push_back(fmt::format("ALTER TABLE {} VALIDATE CONSTRAINT {}",
                              names.QualifiedTable(), QuoteIdent(fk.name)));
  }
  out.push_back("ANALYZE " + names.QualifiedTable());
  return out;
}

}  // namespace pglayout::migrator
