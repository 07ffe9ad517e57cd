#include "tests/integration/structure_fingerprint.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace pglayout {
namespace {

// Each query takes the table's oid as $1 and returns one line per row.
// Absent values print as "-" so that the fields keep their places.
std::vector<std::string> Queries(int version, const std::string& table) {
  const std::string compression =
      version >= 140000 ? "coalesce(nullif(a.attcompression, ''), '-')" : "'-'";
  const std::string stat_target =
      version >= 130000 ? "coalesce(s.stxstattarget::int, -1)" : "'-'";
  // The table's partitions (none for a plain table).
  const std::string partitions =
      "(SELECT h.inhrelid FROM pg_catalog.pg_inherits h WHERE h.inhparent = "
      "$1::oid)";
  return {
      // The table: what it is apart from its tablespace and kind.
      "SELECT concat_ws(' | ', 'table', c.relpersistence, "
      "pg_catalog.pg_get_userbyid(c.relowner), ty.typname, "
      "CASE WHEN EXISTS (SELECT 1 FROM pg_catalog.pg_class pc WHERE pc.oid "
      "IN " +
          partitions +
          " AND pc.relreplident <> c.relreplident) THEN 'mixed' ELSE "
          "c.relreplident::text END, c.relrowsecurity, "
          "c.relforcerowsecurity, coalesce(pg_catalog.obj_description(c.oid, "
          "'pg_class'), '-')) FROM pg_catalog.pg_class c JOIN "
          "pg_catalog.pg_type ty ON ty.oid = c.reltype WHERE c.oid = $1::oid",
      // Storage parameters of the heap and its TOAST: the partitions' for
      // a partitioned table.
      "SELECT 'storage | ' || coalesce(string_agg(DISTINCT "
      "coalesce((SELECT string_agg(o, ',' ORDER BY o) FROM "
      "unnest(h.reloptions) o), '-') || ' toast ' || coalesce((SELECT "
      "string_agg(o, ',' ORDER BY o) FROM unnest(t.reloptions) o), '-'), ' / '"
      "), '-') FROM "
      "pg_catalog.pg_class h LEFT JOIN pg_catalog.pg_class t ON t.oid = "
      "h.reltoastrelid WHERE h.oid IN " +
          partitions + " OR (h.oid = $1::oid AND h.relkind <> 'p')",
      // Privileges, with who granted them (the owner's own included).
      "SELECT concat_ws(' | ', 'acl', '-', CASE e.grantor WHEN 0 THEN "
      "'PUBLIC' ELSE pg_catalog.pg_get_userbyid(e.grantor) END, CASE "
      "e.grantee WHEN 0 THEN 'PUBLIC' ELSE "
      "pg_catalog.pg_get_userbyid(e.grantee) END, e.privilege_type, "
      "e.is_grantable) FROM pg_catalog.pg_class c, pg_catalog.aclexplode("
      "coalesce(c.relacl, pg_catalog.acldefault('r', c.relowner))) e WHERE "
      "c.oid = $1::oid UNION ALL SELECT concat_ws(' | ', 'acl', a.attname, "
      "CASE e.grantor WHEN 0 THEN 'PUBLIC' ELSE "
      "pg_catalog.pg_get_userbyid(e.grantor) END, CASE e.grantee WHEN 0 THEN "
      "'PUBLIC' ELSE pg_catalog.pg_get_userbyid(e.grantee) END, "
      "e.privilege_type, e.is_grantable) FROM pg_catalog.pg_attribute a, "
      "pg_catalog.aclexplode(a.attacl) e WHERE a.attrelid = $1::oid AND "
      "a.attnum > 0 AND NOT a.attisdropped AND a.attacl IS NOT NULL",
      // Columns, numbered among the live ones.
      "SELECT concat_ws(' | ', 'column', row_number() OVER (ORDER BY "
      "a.attnum), a.attname, pg_catalog.format_type(a.atttypid, "
      "a.atttypmod), a.attnotnull, coalesce(pg_catalog.pg_get_expr(d.adbin, "
      "d.adrelid), '-'), coalesce(nullif(a.attidentity, ''), '-'), "
      "coalesce(nullif(a.attgenerated, ''), '-'), coalesce(a.attstattarget"
      "::int, -1), a.attstorage, " +
          compression +
          ", coalesce((SELECT string_agg(o, ',' ORDER BY o) FROM "
          "unnest(a.attoptions) o WHERE o NOT LIKE 'pg\\_attver=%'), '-'), "
          "CASE WHEN a.attcollation <> "
          "ty.typcollation THEN co.collname ELSE '-' END, "
          "coalesce(pg_catalog.col_description(a.attrelid, a.attnum), '-')) "
          "FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type ty ON "
          "ty.oid = a.atttypid LEFT JOIN pg_catalog.pg_attrdef d ON "
          "d.adrelid = a.attrelid AND d.adnum = a.attnum LEFT JOIN "
          "pg_catalog.pg_collation co ON co.oid = a.attcollation WHERE "
          "a.attrelid = $1::oid AND a.attnum > 0 AND NOT a.attisdropped",
      // The sequences of serial and identity columns, with their values.
      "SELECT concat_ws(' | ', 'sequence', a.attname, q.seq, "
      "s.seqtypid::regtype, s.seqstart, s.seqincrement, s.seqmin, s.seqmax, "
      "s.seqcache, s.seqcycle, coalesce(v.last_value::text, '-'), "
      "pg_catalog.pg_get_userbyid(sc.relowner), coalesce(sc.relacl::text, "
      "'-'), coalesce(pg_catalog.obj_description(sc.oid, 'pg_class'), '-')) "
      "FROM pg_catalog.pg_attribute "
      "a CROSS JOIN LATERAL (SELECT pg_catalog.pg_get_serial_sequence("
      "$1::oid::regclass::text, a.attname) AS seq) q JOIN "
      "pg_catalog.pg_sequence s ON s.seqrelid = q.seq::regclass JOIN "
      "pg_catalog.pg_class sc ON sc.oid = s.seqrelid JOIN "
      "pg_catalog.pg_namespace sn ON sn.oid = sc.relnamespace JOIN "
      "pg_catalog.pg_sequences v ON v.schemaname = sn.nspname AND "
      "v.sequencename = sc.relname WHERE a.attrelid = $1::oid AND a.attnum > "
      "0 AND NOT a.attisdropped",
      // Constraints, with validity, deferrability and comments (NO
      // INHERIT is a CHECK's; other kinds differ by the table's kind). The
      // copies of a partitioned table's keys to each partition of another
      // are the partitioning's.
      "SELECT concat_ws(' | ', 'constraint', c.conname, c.contype, "
      "regexp_replace(pg_catalog.pg_get_constraintdef(c.oid), ' USING INDEX "
      "TABLESPACE \\S+', ''), c.convalidated, c.condeferrable, "
      "c.condeferred, c.contype = 'c' AND c.connoinherit, "
      "coalesce(pg_catalog.obj_description(c.oid, 'pg_constraint'), '-')) "
      "FROM pg_catalog.pg_constraint c WHERE c.conrelid = $1::oid AND "
      "c.conparentid = 0",
      // Other tables' foreign keys to it.
      "SELECT concat_ws(' | ', 'referenced by', c.conrelid::regclass, "
      "c.conname, pg_catalog.pg_get_constraintdef(c.oid), c.convalidated, "
      "c.condeferrable, c.condeferred, "
      "coalesce(pg_catalog.obj_description(c.oid, 'pg_constraint'), '-')) "
      "FROM pg_catalog.pg_constraint c WHERE c.confrelid = $1::oid AND "
      "c.conrelid <> $1::oid AND c.conparentid = 0",
      // Indexes; a partitioned index is marked when all its partitions are.
      "SELECT concat_ws(' | ', 'index', i.relname, "
      "replace(regexp_replace(pg_catalog.pg_get_indexdef(i.oid), ' "
      "TABLESPACE \\S+', ''), ' ON ONLY ', ' ON '), coalesce(i.reloptions"
      "::text, '-'), CASE WHEN i.relkind = 'I' THEN coalesce((SELECT "
      "bool_and(px.indisclustered) FROM pg_catalog.pg_inherits h JOIN "
      "pg_catalog.pg_index px ON px.indexrelid = h.inhrelid WHERE "
      "h.inhparent = i.oid), false) ELSE x.indisclustered END, "
      "x.indisreplident AND (i.relkind <> 'I' OR coalesce((SELECT "
      "bool_and(px.indisreplident) FROM pg_catalog.pg_inherits h JOIN "
      "pg_catalog.pg_index px ON px.indexrelid = h.inhrelid WHERE "
      "h.inhparent = i.oid), true)), x.indisvalid, "
      "coalesce(pg_catalog.obj_description(i.oid, 'pg_class'), '-'), "
      "coalesce((SELECT string_agg(a.attnum || '=' || a.attstattarget, ',' "
      "ORDER BY a.attnum) FROM pg_catalog.pg_attribute a WHERE a.attrelid = "
      "i.oid AND coalesce(a.attstattarget::int, -1) >= 0), '-'), "
      "pg_catalog.pg_get_userbyid(i.relowner)) FROM pg_catalog.pg_index x "
      "JOIN pg_catalog.pg_class i ON i.oid = x.indexrelid WHERE x.indrelid = "
      "$1::oid",
      // Extended statistics.
      "SELECT concat_ws(' | ', 'statistics', s.stxnamespace::regnamespace, "
      "s.stxname, pg_catalog.pg_get_statisticsobjdef(s.oid), " +
          stat_target +
          ", pg_catalog.pg_get_userbyid(s.stxowner), "
          "coalesce(pg_catalog.obj_description(s.oid, 'pg_statistic_ext'), "
          "'-')) FROM pg_catalog.pg_statistic_ext s WHERE s.stxrelid = "
          "$1::oid",
      // Triggers with their states.
      "SELECT concat_ws(' | ', 'trigger', t.tgname, "
      "pg_catalog.pg_get_triggerdef(t.oid), t.tgenabled, "
      "coalesce(pg_catalog.obj_description(t.oid, 'pg_trigger'), '-')) FROM "
      "pg_catalog.pg_trigger t WHERE t.tgrelid = $1::oid AND NOT "
      "t.tgisinternal",
      // Policies.
      "SELECT concat_ws(' | ', 'policy', p.polname, p.polcmd, "
      "p.polpermissive, (SELECT string_agg(CASE r WHEN 0 THEN 'PUBLIC' ELSE "
      "pg_catalog.pg_get_userbyid(r) END, ',' ORDER BY 1) FROM "
      "unnest(p.polroles) r), coalesce(pg_catalog.pg_get_expr(p.polqual, "
      "p.polrelid), '-'), coalesce(pg_catalog.pg_get_expr(p.polwithcheck, "
      "p.polrelid), '-'), coalesce(pg_catalog.obj_description(p.oid, "
      "'pg_policy'), '-')) FROM pg_catalog.pg_policy p WHERE p.polrelid = "
      "$1::oid",
      // Rules.
      "SELECT concat_ws(' | ', 'rule', r.rulename, "
      "pg_catalog.pg_get_ruledef(r.oid), r.ev_enabled) FROM "
      "pg_catalog.pg_rewrite r WHERE r.ev_class = $1::oid AND r.rulename <> "
      "'_RETURN'",
      // Publications naming it.
      "SELECT 'publication | ' || p.pubname FROM "
      "pg_catalog.pg_publication_rel r JOIN pg_catalog.pg_publication p ON "
      "p.oid = r.prpubid WHERE r.prrelid = $1::oid",
      // Everything else that depends on it, with its definition where it
      // has one: views, other tables' policies, defaults, rules, triggers.
      "SELECT DISTINCT concat_ws(' | ', 'dependent', "
      "pg_catalog.pg_describe_object(d.classid, d.objid, 0), d.deptype, "
      "CASE d.classid WHEN 'pg_catalog.pg_rewrite'::regclass THEN "
      "pg_catalog.pg_get_ruledef(d.objid) WHEN "
      "'pg_catalog.pg_policy'::regclass THEN (SELECT concat_ws(' ', "
      "pg_catalog.pg_get_expr(p.polqual, p.polrelid), "
      "pg_catalog.pg_get_expr(p.polwithcheck, p.polrelid)) FROM "
      "pg_catalog.pg_policy p WHERE p.oid = d.objid) WHEN "
      "'pg_catalog.pg_attrdef'::regclass THEN (SELECT "
      "pg_catalog.pg_get_expr(ad.adbin, ad.adrelid) FROM "
      "pg_catalog.pg_attrdef ad WHERE ad.oid = d.objid) WHEN "
      "'pg_catalog.pg_trigger'::regclass THEN "
      "pg_catalog.pg_get_triggerdef(d.objid) WHEN "
      "'pg_catalog.pg_constraint'::regclass THEN "
      "pg_catalog.pg_get_constraintdef(d.objid) END) FROM "
      "pg_catalog.pg_depend d WHERE d.refclassid = 'pg_catalog.pg_class'"
      "::regclass AND d.refobjid = $1::oid AND NOT (d.classid = "
      "'pg_catalog.pg_class'::regclass AND (d.objid = $1::oid OR d.objid IN "
      "(SELECT indexrelid FROM pg_catalog.pg_index WHERE indrelid = $1::oid) "
      "OR d.objid IN (SELECT reltoastrelid FROM pg_catalog.pg_class WHERE "
      "oid = $1::oid) OR d.objid IN " +
          partitions +
          ")) AND NOT (d.classid = 'pg_catalog.pg_type'::regclass AND "
          "d.objid = (SELECT reltype FROM pg_catalog.pg_class WHERE oid = "
          "$1::oid)) AND NOT (d.classid = 'pg_catalog.pg_constraint'"
          "::regclass AND d.objid IN (SELECT oid FROM pg_catalog.pg_constraint "
          "WHERE conrelid = $1::oid OR conparentid <> 0)) AND NOT (d.classid = "
          "'pg_catalog.pg_trigger'::regclass AND d.objid IN (SELECT oid FROM "
          "pg_catalog.pg_trigger WHERE tgrelid = $1::oid OR tgisinternal)) "
          "AND NOT (d.classid = 'pg_catalog.pg_policy'::regclass AND d.objid "
          "IN (SELECT oid FROM pg_catalog.pg_policy WHERE polrelid = $1::oid)) "
          "AND NOT (d.classid = 'pg_catalog.pg_attrdef'::regclass AND d.objid "
          "IN (SELECT oid FROM pg_catalog.pg_attrdef WHERE adrelid = $1::oid)) "
          "AND NOT (d.classid = 'pg_catalog.pg_statistic_ext'::regclass AND "
          "d.objid IN (SELECT oid FROM pg_catalog.pg_statistic_ext WHERE "
          "stxrelid = $1::oid)) AND NOT (d.classid = "
          "'pg_catalog.pg_rewrite'::regclass AND d.objid IN (SELECT oid FROM "
          "pg_catalog.pg_rewrite WHERE ev_class = $1::oid))",
      // What it depends on (the partition key's operator classes are the
      // partitioning itself).
      "SELECT DISTINCT concat_ws(' | ', 'depends on', "
      "pg_catalog.pg_describe_object(d.refclassid, d.refobjid, 0), "
      "d.deptype) FROM pg_catalog.pg_depend d WHERE d.classid = "
      "'pg_catalog.pg_class'::regclass AND d.objid = $1::oid AND d.refobjid "
      "<> $1::oid AND d.refclassid <> 'pg_catalog.pg_opclass'::regclass",
      // A partition's place: its parent and bounds, what it has from the
      // parent (columns, constraints, indexes attached to the parent's,
      // the clones of the parent's row triggers: internal ones on 12).
      "SELECT concat_ws(' | ', 'partition of', h.inhparent::regclass, "
      "pg_catalog.pg_get_expr(c.relpartbound, c.oid)) FROM "
      "pg_catalog.pg_inherits h JOIN pg_catalog.pg_class c ON c.oid = "
      "h.inhrelid WHERE h.inhrelid = $1::oid AND c.relispartition",
      "SELECT concat_ws(' | ', 'inherited column', a.attname, a.attislocal, "
      "a.attinhcount) FROM pg_catalog.pg_attribute a WHERE a.attrelid = "
      "$1::oid AND a.attnum > 0 AND NOT a.attisdropped AND (a.attinhcount > "
      "0 OR NOT a.attislocal)",
      "SELECT concat_ws(' | ', 'inherited constraint', c.conname, "
      "c.contype, regexp_replace(pg_catalog.pg_get_constraintdef(c.oid), ' "
      "USING INDEX TABLESPACE \\S+', ''), c.convalidated, c.conislocal, "
      "c.coninhcount, coalesce(pc.conname, '-')) FROM "
      "pg_catalog.pg_constraint c LEFT JOIN pg_catalog.pg_constraint pc ON "
      "pc.oid = c.conparentid WHERE c.conrelid = $1::oid AND (c.conparentid "
      "<> 0 OR c.coninhcount > 0 OR NOT c.conislocal) AND (pc.oid IS NULL "
      // Not the copies of the table's foreign keys to each partition of
      // a partitioned table it references: the partitioning's.
      "OR pc.conrelid <> c.conrelid)",
      "SELECT concat_ws(' | ', 'attached index', i.relname, "
      "h.inhparent::regclass) FROM pg_catalog.pg_index x JOIN "
      "pg_catalog.pg_class i ON i.oid = x.indexrelid JOIN "
      "pg_catalog.pg_inherits h ON h.inhrelid = x.indexrelid WHERE "
      "x.indrelid = $1::oid",
      "SELECT concat_ws(' | ', 'trigger from parent', t.tgname, "
      "pg_catalog.pg_get_triggerdef(t.oid), t.tgenabled) FROM "
      "pg_catalog.pg_trigger t WHERE t.tgrelid = $1::oid AND " +
          std::string(version >= 130000
                          ? "t.tgparentid <> 0 AND NOT t.tgisinternal"
                          : "t.tgisinternal AND "
                            "t.tgconstraint = 0"),
      // Its rows.
      "SELECT 'rows | ' || count(*) || ' | ' || md5(coalesce(string_agg(x"
      "::text, E'\\n' ORDER BY x::text), '')) FROM " +
          table + " x WHERE $1::oid IS NOT NULL",
  };
}

}  // namespace

Status TableFingerprint(SqlSession* session, const std::string& table,
                        std::vector<std::string>* lines) {
  lines->clear();
  SqlResult oid;
  PGLAYOUT_RETURN_IF_ERROR(session->Execute("SELECT $1::regclass::oid::text",
                                            {SqlValue(table)}, &oid));
  if (oid.rows.size() != 1 || !oid.rows[0][0]) {
    return Status::Internal("no oid for " + table);
  }
  for (const std::string& sql : Queries(session->server_version(), table)) {
    SqlResult r;
    Status st = session->Execute(sql, {oid.rows[0][0]}, &r);
    if (!st.ok()) {
      return Status::Internal(
          fmt::format("fingerprint of {}: {}: {}", table, st.message(), sql));
    }
    for (const auto& row : r.rows) {
      if (!row.empty() && row[0]) lines->push_back(*row[0]);
    }
  }
  std::sort(lines->begin(), lines->end());
  return Status::Ok();
}

std::string FingerprintDiff(const std::vector<std::string>& before,
                            const std::vector<std::string>& after) {
  std::multiset<std::string> a(before.begin(), before.end());
  std::multiset<std::string> b(after.begin(), after.end());
  std::string out;
  for (const std::string& line : a) {
    if (b.count(line) < a.count(line) &&
        out.find("- " + line + "\n") == std::string::npos) {
      out += "- " + line + "\n";
    }
  }
  for (const std::string& line : b) {
    if (a.count(line) < b.count(line) &&
        out.find("+ " + line + "\n") == std::string::npos) {
      out += "+ " + line + "\n";
    }
  }
  return out;
}

}  // namespace pglayout
