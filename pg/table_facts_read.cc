#include "pg/table_facts_read.h"

#include <nlohmann/json.hpp>

#include "pg/capture_names.h"

namespace pglayout {
namespace {

// One JSON document per table so that names with any characters arrive
// intact. Only key columns of valid, non-partial unique indexes on plain
// columns count as unique keys: those are what a partition key can use.
constexpr char kFactsQuery[] = R"sql(
WITH rel AS (SELECT * FROM pg_catalog.pg_class WHERE oid = $1::pg_catalog.oid)
SELECT pg_catalog.json_build_object(
 'primary_key', (SELECT pg_catalog.json_agg(a.attname ORDER BY k.ord)
   FROM pg_catalog.pg_index i, pg_catalog.unnest(i.indkey) WITH ORDINALITY k(attnum, ord),
        pg_catalog.pg_attribute a
   WHERE i.indrelid = $1::pg_catalog.oid AND i.indisprimary AND a.attrelid = i.indrelid
     AND a.attnum = k.attnum AND k.ord <= i.indnkeyatts),
 'unique_keys', (SELECT pg_catalog.json_agg(cols ORDER BY idx) FROM (
   SELECT i.indexrelid AS idx, pg_catalog.json_agg(a.attname ORDER BY k.ord) AS cols
   FROM pg_catalog.pg_index i, pg_catalog.unnest(i.indkey) WITH ORDINALITY k(attnum, ord),
        pg_catalog.pg_attribute a
   WHERE i.indrelid = $1::pg_catalog.oid AND i.indisunique AND NOT i.indisprimary
     AND i.indisvalid AND i.indpred IS NULL AND i.indexprs IS NULL
     AND a.attrelid = i.indrelid AND a.attnum = k.attnum
     AND k.ord <= i.indnkeyatts
   GROUP BY i.indexrelid) u),
 'foreign_keys_out', (SELECT pg_catalog.json_agg(pg_catalog.json_build_array(con.conname,
     pg_catalog.format('%I.%I', fn.nspname, f.relname), con.conname || ' (' ||
     (SELECT pg_catalog.string_agg(pg_catalog.quote_ident(a.attname), ', ' ORDER BY k.ord)
      FROM pg_catalog.unnest(con.conkey) WITH ORDINALITY k(attnum, ord)
      JOIN pg_catalog.pg_attribute a ON a.attrelid = con.conrelid
        AND a.attnum = k.attnum) || ') -> ' ||
     pg_catalog.quote_ident(fn.nspname) || '.' || pg_catalog.quote_ident(f.relname) || ' (' ||
     (SELECT pg_catalog.string_agg(pg_catalog.quote_ident(a.attname), ', ' ORDER BY k.ord)
      FROM pg_catalog.unnest(con.confkey) WITH ORDINALITY k(attnum, ord)
      JOIN pg_catalog.pg_attribute a ON a.attrelid = con.confrelid
        AND a.attnum = k.attnum) || ')')
     ORDER BY con.conname)
   FROM pg_catalog.pg_constraint con JOIN pg_catalog.pg_class f ON f.oid = con.confrelid
   JOIN pg_catalog.pg_namespace fn ON fn.oid = f.relnamespace
   WHERE con.conrelid = $1::pg_catalog.oid AND con.contype = 'f'
     AND con.conparentid = 0),
 'foreign_keys_in', (SELECT pg_catalog.json_agg(pg_catalog.quote_ident(sn.nspname) || '.' ||
     pg_catalog.quote_ident(s.relname) || '.' || con.conname ORDER BY s.relname, con.conname)
   FROM pg_catalog.pg_constraint con JOIN pg_catalog.pg_class s ON s.oid = con.conrelid
   JOIN pg_catalog.pg_namespace sn ON sn.oid = s.relnamespace
   WHERE con.confrelid = $1::pg_catalog.oid AND con.contype = 'f'
     AND con.conparentid = 0),
 'dependent_views', (SELECT pg_catalog.json_agg(DISTINCT pg_catalog.quote_ident(vn.nspname) || '.' ||
     pg_catalog.quote_ident(v.relname))
   FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_rewrite r ON r.oid = d.objid
   JOIN pg_catalog.pg_class v ON v.oid = r.ev_class
   JOIN pg_catalog.pg_namespace vn ON vn.oid = v.relnamespace
   WHERE d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass AND d.refobjid = $1::pg_catalog.oid
     AND v.oid <> $1::pg_catalog.oid),
 'triggers', (SELECT pg_catalog.json_agg(pg_catalog.json_build_array(tgname,
     (tgtype & 1) <> 0, (tgtype & 2) <> 0,
     tgoldtable IS NOT NULL OR tgnewtable IS NOT NULL) ORDER BY tgname)
   FROM pg_catalog.pg_trigger WHERE tgrelid = $1::pg_catalog.oid AND NOT tgisinternal),
 'identity_columns', (SELECT pg_catalog.json_agg(attname ORDER BY attnum)
   FROM pg_catalog.pg_attribute WHERE attrelid = $1::pg_catalog.oid AND attidentity <> ''
     AND NOT attisdropped),
 'column_types', (SELECT pg_catalog.json_agg(pg_catalog.json_build_array(a.attname,
     pg_catalog.format_type(a.atttypid, a.atttypmod)) ORDER BY a.attnum)
   FROM pg_catalog.pg_attribute a WHERE a.attrelid = $1::pg_catalog.oid AND a.attnum > 0
     AND NOT a.attisdropped AND (a.attnum = ANY (SELECT pg_catalog.unnest(c.conkey)
       FROM pg_catalog.pg_constraint c WHERE c.conrelid = $1::pg_catalog.oid
         AND c.contype IN ('p', 'u', 'f'))
     OR a.attnum = ANY (SELECT pg_catalog.unnest(i.indkey::pg_catalog.int2[])
       FROM pg_catalog.pg_index i WHERE i.indrelid = $1::pg_catalog.oid AND i.indisunique))),
 'publications', (SELECT pg_catalog.json_agg(DISTINCT pt.pubname)
   FROM pg_catalog.pg_publication_tables pt JOIN rel ON rel.relname = pt.tablename
   JOIN pg_catalog.pg_namespace n ON n.oid = rel.relnamespace
     AND n.nspname = pt.schemaname
   -- Not a move's own logical capture (pg/capture_names.h), $2.
   WHERE pt.pubname OPERATOR(pg_catalog.<>) $2::pg_catalog.name),
 'key_constraints', (SELECT pg_catalog.json_agg(pg_catalog.to_json(
     ARRAY[CASE WHEN i.indisprimary THEN 'primary'
                WHEN x.conname IS NOT NULL THEN 'exclusion' ELSE 'unique' END ||
           CASE WHEN i.indexprs IS NOT NULL THEN '_expressions' ELSE '' END,
           ic.relname::pg_catalog.text] ||
     ARRAY(SELECT a.attname::pg_catalog.text
       FROM pg_catalog.unnest(i.indkey) WITH ORDINALITY k(attnum, ord)
       JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
       WHERE k.ord <= i.indnkeyatts ORDER BY k.ord)) ORDER BY i.indexrelid)
   FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid
   LEFT JOIN pg_catalog.pg_constraint x ON x.conindid = i.indexrelid
     AND x.conrelid = i.indrelid AND x.contype = 'x'
   WHERE i.indrelid = $1::pg_catalog.oid AND (i.indisunique OR x.conname IS NOT NULL)),
 'no_inherit_checks', (SELECT pg_catalog.json_agg(conname ORDER BY conname)
   FROM pg_catalog.pg_constraint WHERE conrelid = $1::pg_catalog.oid AND contype = 'c'
     AND connoinherit),
 'referenced_by_partitioned', (SELECT pg_catalog.json_agg(pg_catalog.json_build_array(
     con.conname, pg_catalog.format('%I.%I', sn.nspname, s.relname))
     ORDER BY s.relname, con.conname)
   FROM pg_catalog.pg_constraint con JOIN pg_catalog.pg_class s ON s.oid = con.conrelid
   JOIN pg_catalog.pg_namespace sn ON sn.oid = s.relnamespace
   WHERE con.confrelid = $1::pg_catalog.oid AND con.contype = 'f'
     AND con.conparentid = 0 AND s.relkind = 'p'),
 'row_key', (SELECT pg_catalog.to_json(ARRAY(SELECT a.attname::pg_catalog.text
     FROM pg_catalog.unnest(i.indkey) WITH ORDINALITY k(attnum, ord)
     JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
     WHERE k.ord <= i.indnkeyatts ORDER BY k.ord))
   FROM pg_catalog.pg_index i
   WHERE i.indrelid = $1::pg_catalog.oid AND i.indisvalid AND (i.indisprimary OR
     (i.indisunique AND i.indpred IS NULL AND i.indexprs IS NULL
      AND NOT EXISTS (SELECT FROM pg_catalog.unnest(i.indkey) WITH ORDINALITY c(attnum, ord)
        JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = c.attnum
        WHERE c.ord <= i.indnkeyatts AND NOT a.attnotnull)))
   ORDER BY i.indisprimary DESC, i.indexrelid LIMIT 1),
 'replica_identity', (SELECT relreplident FROM rel),
 'persistence', (SELECT relpersistence FROM rel),
 'row_security', (SELECT relrowsecurity FROM rel),
 'partitioned', (SELECT relkind = 'p' OR relispartition FROM rel),
 'partition_key', (SELECT pg_catalog.pg_get_partkeydef(oid) FROM rel
   WHERE relkind = 'p'))
)sql";

// |key| of the object |j|, or null when it lacks it.
const nlohmann::json& At(const nlohmann::json& j, const char* key) {
  static const nlohmann::json kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

std::vector<std::string> JsonStrings(const nlohmann::json& j) {
  std::vector<std::string> out;
  if (j.is_array()) {
    for (const auto& e : j) {
      if (e.is_string()) out.push_back(e.get<std::string>());
    }
  }
  return out;
}

bool JsonBool(const nlohmann::json& j) {
  return j.is_boolean() && j.get<bool>();
}

char JsonCode(const nlohmann::json& j) {
  return j.is_string() && !j.get<std::string>().empty()
             ? j.get<std::string>()[0]
             : 0;
}

void ReadKeys(const nlohmann::json& j, TableRuleFacts::Keys* k) {
  k->primary_key = JsonStrings(At(j, "primary_key"));
  if (At(j, "unique_keys").is_array()) {
    for (const auto& key : At(j, "unique_keys")) {
      k->unique_keys.push_back(JsonStrings(key));
    }
  }
  if (At(j, "key_constraints").is_array()) {
    for (const auto& key : At(j, "key_constraints")) {
      std::vector<std::string> entry = JsonStrings(key);
      if (entry.size() >= 2)
        k->constraints.push_back(KeyConstraintFromEntry(entry));
    }
  }
  k->row_key = JsonStrings(At(j, "row_key"));
  k->identity_columns = JsonStrings(At(j, "identity_columns"));
  k->no_inherit_checks = JsonStrings(At(j, "no_inherit_checks"));
  if (At(j, "column_types").is_array()) {
    for (const auto& pair : At(j, "column_types")) {
      k->column_types.push_back(JsonStrings(pair));
    }
  }
}

void ReadDependents(const nlohmann::json& j, TableRuleFacts::Dependents* d) {
  if (At(j, "foreign_keys_out").is_array()) {
    for (const auto& fk : At(j, "foreign_keys_out")) {
      std::vector<std::string> e = JsonStrings(fk);
      if (e.size() == 3) d->fks_out.push_back({{e[0], e[1]}, e[2]});
    }
  }
  d->fks_in = JsonStrings(At(j, "foreign_keys_in"));
  if (At(j, "referenced_by_partitioned").is_array()) {
    for (const auto& fk : At(j, "referenced_by_partitioned")) {
      std::vector<std::string> e = JsonStrings(fk);
      if (e.size() == 2) d->fks_in_from_partitioned.push_back({e[0], e[1]});
    }
  }
  d->views = JsonStrings(At(j, "dependent_views"));
  if (At(j, "triggers").is_array()) {
    for (const auto& t : At(j, "triggers")) {
      if (!t.is_array() || t.size() != 4 || !t[0].is_string()) continue;
      d->triggers.push_back({t[0].get<std::string>(), JsonBool(t[1]),
                             JsonBool(t[2]), JsonBool(t[3])});
    }
  }
  d->publications = JsonStrings(At(j, "publications"));
}

}  // namespace

Status ReadTableRuleFacts(SqlSession* session, uint32_t oid,
                          TableRuleFacts* facts) {
  *facts = TableRuleFacts();
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(session->Execute(
      kFactsQuery, {std::to_string(oid), CapturePublicationName(oid)}, &r));
  // One row always; a scripted session may give none.
  if (r.rows.empty() || r.rows[0].empty() || !r.rows[0][0]) {
    return Status::Ok();
  }
  nlohmann::json j = nlohmann::json::parse(*r.rows[0][0], nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return Status::Internal("the facts of relation " + std::to_string(oid) +
                            " are not JSON");
  }
  ReadKeys(j, &facts->keys);
  ReadDependents(j, &facts->dependents);
  facts->storage.persistence =
      PersistenceFromCode(JsonCode(At(j, "persistence")));
  facts->storage.replica_identity =
      ReplicaIdentityFromCode(JsonCode(At(j, "replica_identity")));
  facts->storage.partitioned = JsonBool(At(j, "partitioned"));
  if (At(j, "partition_key").is_string()) {
    facts->storage.partition_key = At(j, "partition_key").get<std::string>();
  }
  facts->security.row_security = JsonBool(At(j, "row_security"));
  return Status::Ok();
}

HashRuleFacts RuleFactsOf(const TableRuleFacts& facts, int server_version_num) {
  HashRuleFacts f;
  f.server_version_num = server_version_num;
  f.keys = facts.keys.constraints;
  for (const TableRuleFacts::ForeignKey& fk : facts.dependents.fks_out) {
    f.fks_out.push_back(fk.fact);
  }
  f.fks_in_from_partitioned = facts.dependents.fks_in_from_partitioned;
  f.no_inherit_checks = facts.keys.no_inherit_checks;
  f.triggers = facts.dependents.triggers;
  f.publications = facts.dependents.publications;
  f.row_key = facts.keys.row_key;
  return f;
}

}  // namespace pglayout
