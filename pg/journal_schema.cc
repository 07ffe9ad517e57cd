#include "pg/journal_schema.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "common/quote.h"
#include "pg/sql_row.h"

namespace pglayout {
namespace {

// Every object whose namespace is $1, with what the judgment needs. Only
// catalog reads: no view, function or operator of the schema is used.
constexpr char kObjectsHeadSql[] = R"SQL(
WITH ns AS (
  SELECT n.oid, n.nspowner, n.nspacl FROM pg_catalog.pg_namespace n
  WHERE n.nspname OPERATOR(pg_catalog.=) $1::pg_catalog.name),
rel AS (
  SELECT c.oid, c.relname, c.relkind, c.relowner, c.relacl,
         c.relrowsecurity, c.relforcerowsecurity
  FROM pg_catalog.pg_class c, ns
  WHERE c.relnamespace OPERATOR(pg_catalog.=) ns.oid),
objs (category, name, detail, object_oid, parent, owner, acl, rls,
      classid) AS (
  SELECT 'schema'::pg_catalog.text, $1::pg_catalog.text,
         ''::pg_catalog.text, ns.oid, 0::pg_catalog.oid, ns.nspowner,
         ns.nspacl, false,
         'pg_catalog.pg_namespace'::pg_catalog.regclass::pg_catalog.oid
  FROM ns
  UNION ALL
  SELECT 'relation', c.relname::pg_catalog.text, c.relkind::pg_catalog.text,
         c.oid,
         coalesce(i.indrelid, d.refobjid, 0::pg_catalog.oid), c.relowner,
         c.relacl, c.relrowsecurity OR c.relforcerowsecurity,
         'pg_catalog.pg_class'::pg_catalog.regclass::pg_catalog.oid
  FROM rel c
  LEFT JOIN pg_catalog.pg_index i
    ON i.indexrelid OPERATOR(pg_catalog.=) c.oid
  LEFT JOIN pg_catalog.pg_depend d
    ON c.relkind OPERATOR(pg_catalog.=) 'S'
   AND d.classid OPERATOR(pg_catalog.=)
       'pg_catalog.pg_class'::pg_catalog.regclass
   AND d.objid OPERATOR(pg_catalog.=) c.oid
   AND d.refclassid OPERATOR(pg_catalog.=)
       'pg_catalog.pg_class'::pg_catalog.regclass
   AND d.deptype OPERATOR(pg_catalog.=) ANY ('{a,i}'::pg_catalog."char"[])
  UNION ALL
  SELECT 'trigger', t.tgname::pg_catalog.text, '', t.oid, t.tgrelid,
         c.relowner, NULL::pg_catalog.aclitem[], false,
         'pg_catalog.pg_trigger'::pg_catalog.regclass::pg_catalog.oid
  FROM pg_catalog.pg_trigger t
  JOIN rel c ON c.oid OPERATOR(pg_catalog.=) t.tgrelid
  WHERE NOT t.tgisinternal
  UNION ALL
  SELECT 'rule', r.rulename::pg_catalog.text, '', r.oid, r.ev_class,
         c.relowner, NULL, false,
         'pg_catalog.pg_rewrite'::pg_catalog.regclass::pg_catalog.oid
  FROM pg_catalog.pg_rewrite r
  JOIN rel c ON c.oid OPERATOR(pg_catalog.=) r.ev_class
  UNION ALL
  SELECT 'policy', p.polname::pg_catalog.text, '', p.oid, p.polrelid,
         c.relowner, NULL, false,
         'pg_catalog.pg_policy'::pg_catalog.regclass::pg_catalog.oid
  FROM pg_catalog.pg_policy p
  JOIN rel c ON c.oid OPERATOR(pg_catalog.=) p.polrelid
  UNION ALL
  SELECT 'function', p.proname::pg_catalog.text, p.prokind::pg_catalog.text,
         p.oid, 0::pg_catalog.oid, p.proowner, p.proacl, false,
         'pg_catalog.pg_proc'::pg_catalog.regclass::pg_catalog.oid
  FROM pg_catalog.pg_proc p, ns
  WHERE p.pronamespace OPERATOR(pg_catalog.=) ns.oid
  UNION ALL
  -- The row types of the schema's relations, and their array types, come
  -- with the relations, which are judged themselves.
  SELECT 'type', t.typname::pg_catalog.text, t.typtype::pg_catalog.text,
         t.oid, 0::pg_catalog.oid, t.typowner, t.typacl, false,
         'pg_catalog.pg_type'::pg_catalog.regclass::pg_catalog.oid
  FROM pg_catalog.pg_type t, ns
  WHERE t.typnamespace OPERATOR(pg_catalog.=) ns.oid
    AND NOT EXISTS (
      SELECT FROM pg_catalog.pg_class c
      WHERE c.reltype OPERATOR(pg_catalog.<>) 0
        AND (c.reltype OPERATOR(pg_catalog.=) t.oid
             OR (c.reltype OPERATOR(pg_catalog.=) t.typelem
                 AND t.typcategory OPERATOR(pg_catalog.=) 'A')))
  UNION ALL
  SELECT 'statistics', s.stxname::pg_catalog.text, '', s.oid, s.stxrelid,
         s.stxowner, NULL, false,
         'pg_catalog.pg_statistic_ext'::pg_catalog.regclass::pg_catalog.oid
  FROM pg_catalog.pg_statistic_ext s, ns
  WHERE s.stxnamespace OPERATOR(pg_catalog.=) ns.oid
)SQL";

// The schema's other objects, judged by owner alone: one arm each of
// kind 'other', from catalog |catalog| whose columns start with |prefix|
// (a parser and a template have no owner: 0).
struct OtherCatalog {
  const char* catalog;
  const char* prefix;
  bool has_owner;
};
constexpr OtherCatalog kOtherCatalogs[] = {
    {"pg_operator", "opr", true},      {"pg_opclass", "opc", true},
    {"pg_opfamily", "opf", true},      {"pg_collation", "coll", true},
    {"pg_conversion", "con", true},    {"pg_ts_config", "cfg", true},
    {"pg_ts_dict", "dict", true},      {"pg_ts_parser", "prs", false},
    {"pg_ts_template", "tmpl", false},
};

std::string OtherObjectsSql() {
  std::string sql;
  for (const OtherCatalog& c : kOtherCatalogs) {
    const std::string owner =
        c.has_owner ? fmt::format("o.{}owner", c.prefix) : "0::pg_catalog.oid";
    sql += fmt::format(
        "  UNION ALL\n"
        "  SELECT 'other', o.{0}name::pg_catalog.text, '', o.oid, "
        "0::pg_catalog.oid, {1}, NULL, false,\n"
        "         'pg_catalog.{2}'::pg_catalog.regclass::pg_catalog.oid\n"
        "  FROM pg_catalog.{2} o, ns\n"
        "  WHERE o.{0}namespace OPERATOR(pg_catalog.=) ns.oid\n",
        c.prefix, owner, c.catalog);
  }
  return sql;
}

constexpr char kObjectsTailSql[] = R"SQL()
SELECT o.category, o.name, o.detail, o.object_oid, o.parent,
       coalesce(r.rolname::pg_catalog.text, ''),
       coalesce(r.rolsuper OR r.rolname OPERATOR(pg_catalog.=) CURRENT_USER,
                false),
       EXISTS (SELECT FROM pg_catalog.aclexplode(o.acl) a
               WHERE a.grantee OPERATOR(pg_catalog.<>) o.owner),
       o.rls,
       pg_catalog.pg_describe_object(o.classid, o.object_oid, 0),
       CURRENT_USER::pg_catalog.text
FROM objs o
LEFT JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) o.owner
ORDER BY o.category OPERATOR(pg_catalog.<>) 'schema', 10
)SQL";

// "old_" or "log_" or "capture_" followed by the decimal oid, or 0.
uint32_t OidSuffix(const std::string& name, const std::string& prefix) {
  if (!name.starts_with(prefix) || name.size() == prefix.size() ||
      name.size() - prefix.size() > 10) {
    return 0;
  }
  uint64_t value = 0;
  for (size_t i = prefix.size(); i < name.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return 0;
    value = value * 10 + static_cast<uint64_t>(name[i] - '0');
  }
  return value > UINT32_MAX ? 0 : static_cast<uint32_t>(value);
}

bool IsTableKind(const std::string& relkind) { return relkind == "r"; }

// What pglayout makes itself and must own: the journal tables and the log
// tables of online moves.
bool IsOwnTable(const JournalSchemaObject& o) {
  if (o.category != "relation" || !IsTableKind(o.detail)) return false;
  const auto& names = JournalTableNames();
  if (std::find(names.begin(), names.end(), o.name) != names.end()) {
    return true;
  }
  return OidSuffix(o.name, "log_") != 0;
}

// An application table a swap retired into the schema keeps its oid in
// its name (online_sql.cc: old_<oid>).
bool IsOldCopy(const JournalSchemaObject& o) {
  return o.category == "relation" && (o.detail == "r" || o.detail == "p") &&
         OidSuffix(o.name, "old_") == o.oid && o.oid != 0;
}

// The names of the trigger functions an online move makes.
bool IsOwnFunctionName(const std::string& name) {
  return OidSuffix(name, "capture_") != 0 ||
         OidSuffix(name, "block_truncate_") != 0;
}

bool IsOwnFunction(const JournalSchemaObject& o) {
  return o.category == "function" && o.detail == "f" &&
         IsOwnFunctionName(o.name);
}

// The functions of schema $1 without arguments that PUBLIC may execute
// (a NULL proacl is the default grant to PUBLIC).
constexpr char kPublicFunctionsSql[] = R"SQL(
SELECT p.proname::pg_catalog.text
FROM pg_catalog.pg_proc p
WHERE p.pronamespace OPERATOR(pg_catalog.=) pg_catalog.to_regnamespace($1)
  AND p.prokind OPERATOR(pg_catalog.=) 'f'
  AND p.pronargs OPERATOR(pg_catalog.=) 0
  AND pg_catalog.has_function_privilege('public', p.oid, 'EXECUTE')
ORDER BY 1
)SQL";

std::string OwnedBy(const JournalSchemaObject& o) {
  return o.owner.empty() ? std::string() : " (owner " + o.owner + ")";
}

// The problems of an object pglayout made (or accepts as its own): an
// owner it cannot trust, grants, row security.
void OwnObjectProblems(const JournalSchemaObject& o,
                       const std::string& running_role,
                       std::vector<std::string>* out) {
  if (!o.trusted_owner) {
    out->push_back(fmt::format(
        "{} is owned by role {}, which is neither the running role ({}) nor "
        "a superuser",
        o.description, o.owner.empty() ? "(none)" : o.owner, running_role));
  }
  if (o.granted) {
    out->push_back(o.description + " grants privileges to other roles" +
                   OwnedBy(o));
  }
  if (o.row_security) {
    out->push_back(o.description + " has row level security enabled" +
                   OwnedBy(o));
  }
}

}  // namespace

const std::vector<std::string>& JournalTableNames() {
  static const std::vector<std::string> kNames = {"run", "step", "batch",
                                                  "setting", "verification"};
  return kNames;
}

Status JudgeJournalSchema(const std::vector<JournalSchemaObject>& objects,
                          const std::string& running_role) {
  std::set<uint32_t> own, old;
  for (const JournalSchemaObject& o : objects) {
    if (IsOwnTable(o)) own.insert(o.oid);
    if (IsOldCopy(o)) old.insert(o.oid);
  }
  std::vector<std::string> problems;
  for (const JournalSchemaObject& o : objects) {
    const bool on_own = own.count(o.parent) > 0;
    const bool on_old = old.count(o.parent) > 0;
    if (o.category == "schema" || own.count(o.oid) > 0) {
      OwnObjectProblems(o, running_role, &problems);
      continue;
    }
    if (old.count(o.oid) > 0) continue;
    if (o.category == "relation" &&
        (o.detail == "i" || o.detail == "I" || o.detail == "S")) {
      if (on_own) {
        OwnObjectProblems(o, running_role, &problems);
        continue;
      }
      if (on_old) continue;
    }
    // The application's own triggers, rules, policies and extended
    // statistics came with its retired table.
    if (on_old && o.category != "relation") continue;
    if (IsOwnFunction(o)) {
      OwnObjectProblems(o, running_role, &problems);
      continue;
    }
    problems.push_back(o.description + OwnedBy(o) +
                       ": not an object pglayout makes");
  }
  if (problems.empty()) return Status::Ok();
  std::string text = fmt::format(
      "schema {} cannot be trusted: pglayout reads and writes its journal "
      "there as {}, and would run code another role put there; nothing was "
      "changed:",
      kJournalSchema, running_role);
  for (const std::string& p : problems) text += "\n  " + p;
  return Status::InvalidInput(text).WithHint(
      "A superuser should inspect the schema, drop what pglayout did not "
      "make and give the rest to a trusted role (ALTER SCHEMA pglayout OWNER "
      "TO ...), or drop the schema when no run is unfinished.");
}

Status RevokeOwnFunctionsFromPublic(SqlSession* session,
                                    std::vector<std::string>* revoked) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(
      session->Execute(kPublicFunctionsSql, {std::string(kJournalSchema)}, &r));
  std::vector<std::string> names;
  PGLAYOUT_RETURN_IF_ERROR(
      ReadRows(r, "schema pglayout's functions",
               [&](SqlRowReader& row) { names.push_back(row.Text(0)); }));
  for (const std::string& name : names) {
    if (!IsOwnFunctionName(name)) continue;
    const std::string function =
        QuoteIdent(kJournalSchema) + "." + QuoteIdent(name) + "()";
    Status st = ExecuteSql(
        session, "REVOKE EXECUTE ON FUNCTION " + function + " FROM PUBLIC");
    if (!st.ok()) {
      return st.WithContext("could not revoke EXECUTE on " +
                            DisplayIdent(kJournalSchema) + "." +
                            DisplayIdent(name) + "() from PUBLIC");
    }
    if (revoked != nullptr) revoked->push_back(function);
  }
  return Status::Ok();
}

Status CheckJournalSchema(SqlSession* session) {
  SqlResult r;
  const std::string sql = kObjectsHeadSql + OtherObjectsSql() + kObjectsTailSql;
  Status st = session->Execute(sql, {std::string(kJournalSchema)}, &r);
  if (!st.ok()) {
    return st.WithContext(session->Describe() +
                          ": checking schema pglayout's objects");
  }
  std::vector<JournalSchemaObject> objects;
  std::string running_role;
  PGLAYOUT_RETURN_IF_ERROR(
      ReadRows(r, "schema pglayout's objects", [&](SqlRowReader& row) {
        JournalSchemaObject o;
        o.category = row.Text(0);
        o.name = row.Text(1);
        o.detail = row.Text(2);
        o.oid = static_cast<uint32_t>(row.Int(3));
        o.parent = static_cast<uint32_t>(row.Int(4));
        o.owner = row.Text(5);
        o.trusted_owner = row.Bool(6);
        o.granted = row.Bool(7);
        o.row_security = row.Bool(8);
        o.description = row.Text(9);
        running_role = row.Text(10);
        objects.push_back(std::move(o));
      }));
  Status judged = JudgeJournalSchema(objects, running_role);
  return judged.WithContext(session->Describe());
}

}  // namespace pglayout
