// The structure-preservation suite: tables of every awkward kind, each
// moved online to a new tablespace and then converted to 3 hash partitions,
// on PostgreSQL 12, 15 and 18. Before and after each run every table's
// catalog fingerprint (structure_fingerprint.h) must be the same apart from
// what the run changes by design (tablespace, kind, partitions); what the
// migrator must refuse is refused before any change, naming the table and
// the reason.
//
// One plan moves all the tables, one converts them: a run per kind of
// placement keeps the suite's time to that of a few migrations.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "common/files.h"
#include "migrator/migrator.h"
#include "pg/sql.h"
#include "testing/pg_test.h"
#include "testing/subprocess.h"
#include "tests/integration/structure_fingerprint.h"

namespace pglayout::migrator {
namespace {

// One table of the suite. |sql| creates and fills it (and whatever hangs
// on it); |hash_key| is the partition key of its conversion, "" for a
// table that is only moved.
struct SuiteTable {
  std::string relation;  // as a regclass prints it: public.t, s."Odd"
  std::string sql;
  std::string hash_key;
  int min_version = 12;       // the suite's table exists from this major
  int hash_min_version = 12;  // converted from this major
};

std::string TomlString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

const char* kRoles =
    "DO $$ BEGIN "
    "IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'suite_owner') "
    "THEN CREATE ROLE suite_owner; END IF; "
    "IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'suite_reader') "
    "THEN CREATE ROLE suite_reader; END IF; "
    "IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'suite_writer') "
    "THEN CREATE ROLE suite_writer; END IF; "
    "IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'suite_granter') "
    "THEN CREATE ROLE suite_granter; END IF; END $$;"
    "CREATE SCHEMA \"Other Schema\";"
    "CREATE SCHEMA stats;"
    "GRANT USAGE ON SCHEMA public, \"Other Schema\" TO suite_granter, "
    "suite_reader;"
    "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');"
    "CREATE DOMAIN positive AS int CHECK (VALUE > 0);"
    "CREATE TYPE pair AS (a int, b text);"
    "CREATE SEQUENCE shared_seq;"
    "CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS "
    "'BEGIN RETURN NEW; END';"
    "CREATE FUNCTION stmt_note() RETURNS trigger LANGUAGE plpgsql AS "
    "'BEGIN RETURN NULL; END';";

// The tables moved and converted. Each name is its own, so the creating
// statements of all of them run in one database.
std::vector<SuiteTable> AcceptedTables() {
  auto fill = [](const std::string& t, int n, const std::string& values) {
    return fmt::format(
        "INSERT INTO {} SELECT {} FROM generate_series(1, {}) g;", t, values,
        n);
  };
  std::vector<SuiteTable> t = {
      {"public.k_plain",
       "CREATE TABLE k_plain (id int PRIMARY KEY, v text);" +
           fill("k_plain", 200, "g, md5(g::text)"),
       "id"},
      {"public.k_dropped",
       "CREATE TABLE k_dropped (a int, id int PRIMARY KEY, b text, c int, "
       "d text); ALTER TABLE k_dropped DROP COLUMN a;" +
           fill("k_dropped", 100, "g, 'b' || g, g, 'd'") +
           "ALTER TABLE k_dropped DROP COLUMN c, DROP COLUMN d;"
           "ALTER TABLE k_dropped ADD COLUMN e int DEFAULT 7;",
       "id"},
      {"public.k_toast",
       "CREATE TABLE k_toast (id int PRIMARY KEY, big text, blob bytea) WITH "
       "(toast.autovacuum_enabled = false, toast_tuple_target = 256);"
       "ALTER TABLE k_toast ALTER COLUMN big SET STORAGE EXTERNAL;" +
           fill("k_toast", 30,
                "g, repeat(md5(g::text), 400), "
                "decode(repeat(md5(g::text), 100), 'hex')"),
       "id"},
      {"public.k_storage",
       "CREATE TABLE k_storage (id int PRIMARY KEY, m text, p int, x text);"
       "ALTER TABLE k_storage ALTER COLUMN m SET STORAGE MAIN, ALTER COLUMN "
       "x SET STORAGE EXTERNAL;" +
           fill("k_storage", 50, "g, 'm', g, 'x'"),
       "id"},
      {"public.k_include",
       "CREATE TABLE k_include (id int, u int NOT NULL, v text, "
       "CONSTRAINT k_include_pk PRIMARY KEY (id) INCLUDE (v), CONSTRAINT "
       "k_include_u UNIQUE (u, id) INCLUDE (v));" +
           fill("k_include", 80, "g, g * 2, 'v'"),
       "id"},
      {"public.k_deferrable",
       "CREATE TABLE k_deferrable (id int PRIMARY KEY DEFERRABLE INITIALLY "
       "DEFERRED, u int, CONSTRAINT k_deferrable_u UNIQUE (id, u) "
       "DEFERRABLE);" +
           fill("k_deferrable", 40, "g, g"),
       "id"},
      {"public.k_identity",
       "CREATE TABLE k_identity (id bigint GENERATED ALWAYS AS IDENTITY "
       "(START WITH 100 INCREMENT BY 5 CACHE 3) PRIMARY KEY, v text);"
       "INSERT INTO k_identity (v) SELECT 'v' FROM generate_series(1, 30);"
       "COMMENT ON SEQUENCE k_identity_id_seq IS 'identity note';"
       "GRANT SELECT ON SEQUENCE k_identity_id_seq TO suite_reader;",
       "id"},
      {"public.k_identity_default",
       "CREATE TABLE k_identity_default (id int GENERATED BY DEFAULT AS "
       "IDENTITY (SEQUENCE NAME k_identity_custom_seq MINVALUE -10 MAXVALUE "
       "100000 CYCLE) PRIMARY KEY, v text);"
       "INSERT INTO k_identity_default (v) SELECT 'v' FROM "
       "generate_series(1, 12);",
       "id"},
      {"public.k_serial",
       "CREATE TABLE k_serial (id bigserial PRIMARY KEY, n int DEFAULT "
       "nextval('shared_seq'), v text);"
       "INSERT INTO k_serial (v) SELECT 'v' FROM generate_series(1, 25);"
       "COMMENT ON SEQUENCE k_serial_id_seq IS 'serial note';"
       "GRANT USAGE ON SEQUENCE k_serial_id_seq TO suite_writer;",
       "id"},
      {"public.k_generated",
       "CREATE TABLE k_generated (id int PRIMARY KEY, a int, b int "
       "GENERATED ALWAYS AS (a * 2) STORED);" +
           fill("k_generated", 60, "g, g"),
       "id"},
      {"public.k_triggers",
       "CREATE TABLE k_triggers (id int PRIMARY KEY, a int, b text);" +
           fill("k_triggers", 20, "g, g, 'b'") +
           "CREATE TRIGGER t_before BEFORE INSERT OR UPDATE ON k_triggers "
           "FOR EACH ROW EXECUTE PROCEDURE touch();"
           "CREATE TRIGGER t_after_of AFTER UPDATE OF a ON k_triggers FOR "
           "EACH ROW WHEN (OLD.a IS DISTINCT FROM NEW.a) EXECUTE PROCEDURE "
           "touch();"
           "CREATE TRIGGER t_stmt AFTER DELETE ON k_triggers FOR EACH "
           "STATEMENT EXECUTE PROCEDURE stmt_note();"
           "CREATE TRIGGER t_truncate BEFORE TRUNCATE ON k_triggers FOR EACH "
           "STATEMENT EXECUTE PROCEDURE stmt_note();"
           "CREATE TRIGGER t_disabled AFTER INSERT ON k_triggers FOR EACH ROW "
           "EXECUTE PROCEDURE touch();"
           "CREATE TRIGGER t_always AFTER INSERT ON k_triggers FOR EACH ROW "
           "EXECUTE PROCEDURE touch();"
           "CREATE TRIGGER t_replica AFTER INSERT ON k_triggers FOR EACH ROW "
           "EXECUTE PROCEDURE touch();"
           "ALTER TABLE k_triggers DISABLE TRIGGER t_disabled, ENABLE ALWAYS "
           "TRIGGER t_always, ENABLE REPLICA TRIGGER t_replica;"
           "COMMENT ON TRIGGER t_before ON k_triggers IS 'before note';",
       "id", 12, 13},
      {"public.k_constraint_trigger",
       "CREATE TABLE k_constraint_trigger (id int PRIMARY KEY);" +
           fill("k_constraint_trigger", 10, "g") +
           "CREATE CONSTRAINT TRIGGER t_deferred AFTER INSERT ON "
           "k_constraint_trigger DEFERRABLE INITIALLY DEFERRED FOR EACH ROW "
           "EXECUTE PROCEDURE touch();",
       "id"},
      {"public.k_statement_transition",
       "CREATE TABLE k_statement_transition (id int PRIMARY KEY);" +
           fill("k_statement_transition", 10, "g") +
           "CREATE TRIGGER t_new_rows AFTER INSERT ON k_statement_transition "
           "REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE "
           "PROCEDURE stmt_note();",
       "id"},
      {"public.k_rls",
       "CREATE TABLE k_rls (id int PRIMARY KEY, owner_name text);" +
           fill("k_rls", 30, "g, 'suite_reader'") +
           "ALTER TABLE k_rls ENABLE ROW LEVEL SECURITY;"
           "ALTER TABLE k_rls FORCE ROW LEVEL SECURITY;"
           "CREATE POLICY mine ON k_rls FOR SELECT TO suite_reader, "
           "suite_writer USING (owner_name = current_user);"
           "CREATE POLICY no_big ON k_rls AS RESTRICTIVE FOR INSERT WITH "
           "CHECK (id < 1000);"
           "CREATE POLICY upd ON k_rls FOR UPDATE USING (true) WITH CHECK "
           "(owner_name IS NOT NULL);"
           "COMMENT ON POLICY mine ON k_rls IS 'mine note';",
       "id"},
      {"public.k_rls_only_enabled",
       "CREATE TABLE k_rls_only_enabled (id int PRIMARY KEY);" +
           fill("k_rls_only_enabled", 10, "g") +
           "ALTER TABLE k_rls_only_enabled ENABLE ROW LEVEL SECURITY;",
       "id"},
      {"public.k_stats",
       "CREATE TABLE k_stats (id int PRIMARY KEY, a int, b int, c text);" +
           fill("k_stats", 100, "g, g % 10, g % 5, (g % 3)::text") +
           "CREATE STATISTICS stats.k_stats_dep (dependencies) ON a, b FROM "
           "k_stats;"
           "CREATE STATISTICS k_stats_nd (ndistinct, mcv) ON a, b, c FROM "
           "k_stats;"
           "COMMENT ON STATISTICS k_stats_nd IS 'nd note';"
           "ALTER TABLE k_stats ALTER COLUMN a SET STATISTICS 500, ALTER "
           "COLUMN b SET (n_distinct = -0.5), ALTER COLUMN c SET "
           "(n_distinct_inherited = 10);",
       "id"},
      {"public.k_reloptions",
       "CREATE TABLE k_reloptions (id int PRIMARY KEY, v text) WITH "
       "(fillfactor = 70, autovacuum_enabled = false, "
       "autovacuum_vacuum_scale_factor = 0.05, parallel_workers = 2);" +
           fill("k_reloptions", 50, "g, 'v'"),
       "id"},
      {"public.k_autovacuum_on",
       "CREATE TABLE k_autovacuum_on (id int PRIMARY KEY) WITH "
       "(autovacuum_enabled = true, autovacuum_analyze_threshold = 5);" +
           fill("k_autovacuum_on", 10, "g"),
       "id"},
      {"public.k_comments",
       "CREATE TABLE k_comments (id int PRIMARY KEY, v text CONSTRAINT "
       "v_short CHECK (length(v) < 100));" +
           fill("k_comments", 10, "g, 'v'") +
           "CREATE INDEX k_comments_v ON k_comments (v);"
           "COMMENT ON TABLE k_comments IS 'table note';"
           "COMMENT ON COLUMN k_comments.v IS 'column note';"
           "COMMENT ON INDEX k_comments_v IS 'index note';"
           "COMMENT ON INDEX k_comments_pkey IS 'key index note';"
           "COMMENT ON CONSTRAINT v_short ON k_comments IS 'check note';"
           "COMMENT ON CONSTRAINT k_comments_pkey ON k_comments IS 'key note';",
       "id"},
      {"public.k_acl",
       "CREATE TABLE k_acl (id int PRIMARY KEY, secret text, open text);" +
           fill("k_acl", 10, "g, 's', 'o'") +
           "GRANT SELECT, INSERT ON k_acl TO suite_reader WITH GRANT OPTION;"
           "GRANT UPDATE (open), SELECT (open) ON k_acl TO suite_writer;"
           "GRANT SELECT ON k_acl TO PUBLIC;"
           "GRANT REFERENCES (id) ON k_acl TO PUBLIC;",
       "id"},
      {"public.k_acl_grantors",
       "CREATE TABLE k_acl_grantors (id int PRIMARY KEY, v text);" +
           fill("k_acl_grantors", 10, "g, 'v'") +
           "REVOKE DELETE, TRUNCATE ON k_acl_grantors FROM CURRENT_USER;"
           "GRANT SELECT, UPDATE ON k_acl_grantors TO suite_granter WITH "
           "GRANT OPTION;"
           "GRANT INSERT (v) ON k_acl_grantors TO suite_granter WITH GRANT "
           "OPTION;"
           "SET ROLE suite_granter;"
           "GRANT SELECT ON k_acl_grantors TO suite_reader WITH GRANT OPTION;"
           "GRANT UPDATE ON k_acl_grantors TO PUBLIC;"
           "GRANT INSERT (v) ON k_acl_grantors TO suite_writer;"
           "RESET ROLE; SET ROLE suite_reader;"
           "GRANT SELECT ON k_acl_grantors TO suite_writer;"
           "RESET ROLE;",
       "id"},
      {"public.k_owned",
       "CREATE TABLE k_owned (id int PRIMARY KEY, v text);" +
           fill("k_owned", 10, "g, 'v'") +
           "ALTER TABLE k_owned OWNER TO suite_owner;"
           "GRANT SELECT ON k_owned TO suite_reader;",
       "id"},
      {"public.\"Odd Table\"",
       "CREATE TABLE \"Odd Table\" (\"ID\" int PRIMARY KEY, \",\"\")\" int, "
       "\"select\" text, \"MiXed\" text DEFAULT 'x');"
       "INSERT INTO \"Odd Table\" SELECT g, g, 's', 'm' FROM "
       "generate_series(1, 20) g;"
       "CREATE INDEX \"Odd Index\" ON \"Odd Table\" (\"select\", \"MiXed\");",
       "ID"},
      {"\"Other Schema\".\"Mixed Case\"",
       "CREATE TABLE \"Other Schema\".\"Mixed Case\" (id int PRIMARY KEY, v "
       "text);"
       "INSERT INTO \"Other Schema\".\"Mixed Case\" SELECT g, 'v' FROM "
       "generate_series(1, 20) g;"
       "CREATE STATISTICS \"Other Schema\".mixed_stat ON id, v FROM "
       "\"Other Schema\".\"Mixed Case\";",
       "id"},
      // A newline in a name: the journal's step detail keeps it one item
      // (issue 39: the move swapped, then failed, and every resume too).
      {"public.\"two\nlines\"",
       "CREATE TABLE \"two\nlines\" (id int PRIMARY KEY, v text);"
       "INSERT INTO \"two\nlines\" SELECT g, 'v' FROM "
       "generate_series(1, 20) g;",
       "id"},
      {"public." + std::string(63, 'n'),
       "CREATE TABLE " + std::string(63, 'n') +
           " (id int PRIMARY KEY, v text);" +
           fill(std::string(63, 'n'), 20, "g, 'v'"),
       "id"},
      {"public.k_parent",
       "CREATE TABLE k_parent (id int PRIMARY KEY, v text);" +
           fill("k_parent", 50, "g, 'v'"),
       "id"},
      {"public.k_child",
       "CREATE TABLE k_child (id int PRIMARY KEY, parent int CONSTRAINT "
       "k_child_parent REFERENCES k_parent ON DELETE CASCADE ON UPDATE SET "
       "NULL DEFERRABLE INITIALLY DEFERRED, p2 int, p3 int);"
       "ALTER TABLE k_child ADD CONSTRAINT k_child_full FOREIGN KEY (p2, "
       "p3) REFERENCES k_include (id, u) MATCH FULL NOT VALID;" +
           fill("k_child", 100, "g, 1 + g % 50, NULL::int, NULL::int") +
           "COMMENT ON CONSTRAINT k_child_parent ON k_child IS 'fk note';",
       "id", 12, 18},
      // Foreign keys to itself: re-pointed at the new table by the swap,
      // the NOT VALID one with its orphan left NOT VALID. Converted from
      // 18, where a partitioned table takes a foreign key NOT VALID.
      {"public.k_self",
       "CREATE TABLE k_self (id int PRIMARY KEY, up int CONSTRAINT k_self_up "
       "REFERENCES k_self ON DELETE CASCADE, alt int);" +
           fill("k_self", 60, "g, NULLIF(g / 2, 0), g") +
           "INSERT INTO k_self VALUES (1000, 1, 99999);"
           "ALTER TABLE k_self ADD CONSTRAINT k_self_alt FOREIGN KEY (alt) "
           "REFERENCES k_self NOT VALID;",
       "id", 12, 18},
      {"public.k_referenced",
       "CREATE TABLE k_referenced (id int PRIMARY KEY, code text UNIQUE NOT "
       "NULL);" +
           fill("k_referenced", 20, "g, 'c' || g") +
           "CREATE TABLE k_referrer (id int PRIMARY KEY, ref int REFERENCES "
           "k_referenced ON DELETE RESTRICT);" +
           fill("k_referrer", 20, "g, 1 + g % 20") +
           "CREATE TABLE k_orphans (id int PRIMARY KEY, ref int);"
           "INSERT INTO k_orphans VALUES (1, 1), (2, 99999);"
           "ALTER TABLE k_orphans ADD CONSTRAINT k_orphans_ref FOREIGN KEY "
           "(ref) REFERENCES k_referenced NOT VALID;",
       ""},
      {"public.k_checks",
       "CREATE TABLE k_checks (id int PRIMARY KEY, qty int CHECK (qty >= "
       "0), lo int, hi int, CONSTRAINT lo_hi CHECK (lo <= hi));" +
           fill("k_checks", 30, "g, g, g, g + 1") +
           "ALTER TABLE k_checks DROP CONSTRAINT lo_hi;"
           "INSERT INTO k_checks VALUES (100, 1, 5, 4);"
           "ALTER TABLE k_checks ADD CONSTRAINT lo_hi CHECK (lo <= hi) NOT "
           "VALID;",
       "id"},
      {"public.k_indexes",
       "CREATE TABLE k_indexes (id int PRIMARY KEY, t text COLLATE \"C\", n "
       "numeric, arr int[], tsv tsvector, r int4range, ts timestamptz);" +
           fill("k_indexes", 100,
                "g, md5(g::text), g / 3.0, ARRAY[g, g + 1], "
                "to_tsvector('simple', 'word' || g), int4range(g, g + 10), "
                "'2024-01-01'::timestamptz + g * interval '1 hour'") +
           "CREATE INDEX k_indexes_partial ON k_indexes (n) WHERE n > 10;"
           "CREATE INDEX k_indexes_expr ON k_indexes (lower(t), (n + 1)) WITH "
           "(fillfactor = 50);"
           "ALTER INDEX k_indexes_expr ALTER COLUMN 1 SET STATISTICS 250;"
           "CREATE INDEX k_indexes_pattern ON k_indexes (t text_pattern_ops "
           "DESC NULLS LAST);"
           "CREATE INDEX k_indexes_gin ON k_indexes USING gin (arr) WITH "
           "(fastupdate = off);"
           "CREATE INDEX k_indexes_tsv ON k_indexes USING gin (tsv);"
           "CREATE INDEX k_indexes_gist ON k_indexes USING gist (r);"
           "CREATE INDEX k_indexes_brin ON k_indexes USING brin (ts) WITH "
           "(pages_per_range = 16);"
           "CREATE INDEX k_indexes_hash ON k_indexes USING hash (t);",
       "id"},
      {"public.k_uniques",
       "CREATE TABLE k_uniques (id int PRIMARY KEY, a int, b text);" +
           fill("k_uniques", 50, "g, g, 'b' || g") +
           "CREATE UNIQUE INDEX k_uniques_partial ON k_uniques (a) WHERE a > "
           "10;"
           "CREATE UNIQUE INDEX k_uniques_expr ON k_uniques (lower(b));"
           "CREATE UNIQUE INDEX k_uniques_ab ON k_uniques (a, b) WITH "
           "(fillfactor = 60);",
       ""},
      {"public.k_cluster",
       "CREATE TABLE k_cluster (id int PRIMARY KEY, v int);" +
           fill("k_cluster", 30, "g, g % 5") +
           "CREATE INDEX k_cluster_v ON k_cluster (v, id);"
           "ALTER TABLE k_cluster CLUSTER ON k_cluster_v;",
       "id"},
      {"public.k_replident_index",
       "CREATE TABLE k_replident_index (id int PRIMARY KEY, u int NOT NULL);" +
           fill("k_replident_index", 30, "g, g") +
           "CREATE UNIQUE INDEX k_replident_u ON k_replident_index (u, id);"
           "ALTER TABLE k_replident_index REPLICA IDENTITY USING INDEX "
           "k_replident_u;",
       "id"},
      {"public.k_replident_full",
       "CREATE TABLE k_replident_full (id int PRIMARY KEY, v text);" +
           fill("k_replident_full", 10, "g, 'v'") +
           "ALTER TABLE k_replident_full REPLICA IDENTITY FULL;",
       "id"},
      {"public.k_replident_nothing",
       "CREATE TABLE k_replident_nothing (id int PRIMARY KEY);" +
           fill("k_replident_nothing", 10, "g") +
           "ALTER TABLE k_replident_nothing REPLICA IDENTITY NOTHING;",
       "id"},
      {"public.k_views",
       "CREATE TABLE k_views (id int PRIMARY KEY, v text, n int);" +
           fill("k_views", 20, "g, 'v', g") +
           "CREATE VIEW k_views_all AS SELECT id, v FROM k_views;"
           "CREATE VIEW k_views_barrier WITH (security_barrier) AS SELECT * "
           "FROM k_views WHERE n > 5;"
           "CREATE VIEW k_views_checked AS SELECT * FROM k_views WHERE n < "
           "100 WITH CASCADED CHECK OPTION;"
           "CREATE VIEW k_views_on_view AS SELECT count(*) AS c FROM "
           "k_views_all;",
       "id"},
      {"public.k_types",
       "CREATE TABLE k_types (id int PRIMARY KEY, m mood DEFAULT 'ok', d "
       "positive, p pair, arr text[], r numrange, j jsonb, n numeric(10, 2), "
       "vc varchar(20), ts timestamptz DEFAULT now(), b bytea, u uuid, i "
       "inet, bits bit varying(8), money_col money, iv interval);" +
           fill("k_types", 20,
                "g, 'happy', g, ROW(g, 'x')::pair, ARRAY['a', 'b'], "
                "numrange(g, g + 1), jsonb_build_object('g', g), g * 1.5, "
                "'vc', '2024-01-01', '\\x00ff', "
                "md5(g::text)::uuid, '10.0.0.1', B'1010', g, interval '1 "
                "day'"),
       "id"},
      {"public.k_collation",
       "CREATE TABLE k_collation (id text COLLATE \"C\" PRIMARY KEY, v text "
       "COLLATE \"POSIX\");" +
           fill("k_collation", 30, "'k' || g, 'v'"),
       "id"},
      {"public.k_composite_key",
       "CREATE TABLE k_composite_key (a text, b int, v text, PRIMARY KEY "
       "(b, a));" +
           fill("k_composite_key", 40, "'a' || (g % 4), g, 'v'"),
       "b"},
      {"public.k_uuid_key",
       "CREATE TABLE k_uuid_key (id uuid PRIMARY KEY, v text);" +
           fill("k_uuid_key", 30, "md5(g::text)::uuid, 'v'"),
       "id"},
      {"public.k_unique_key",
       "CREATE TABLE k_unique_key (code text NOT NULL, v text, CONSTRAINT "
       "k_unique_key_code UNIQUE (code));" +
           fill("k_unique_key", 30, "'c' || g, 'v'"),
       "code"},
      {"public.k_empty", "CREATE TABLE k_empty (id int PRIMARY KEY, v text);",
       "id"},
      {"public.k_one_column",
       "CREATE TABLE k_one_column (id int PRIMARY KEY);" +
           fill("k_one_column", 10, "g"),
       "id"},
      {"public.k_nulls",
       "CREATE TABLE k_nulls (id int PRIMARY KEY, a int, b text, c int "
       "UNIQUE);" +
           fill("k_nulls", 30,
                "g, NULLIF(g % 3, 0), CASE WHEN g % 2 = 0 THEN 'b' END, "
                "CASE WHEN g % 5 = 0 THEN g END"),
       ""},
      {"public.k_many_rows",
       "CREATE TABLE k_many_rows (id int PRIMARY KEY, v text, w int);" +
           fill("k_many_rows", 3000, "g, md5(g::text), g % 97") +
           "DELETE FROM k_many_rows WHERE id % 7 = 0;",
       "id"},
      {"public.k_default_objects",
       "CREATE TABLE k_default_objects (id int PRIMARY KEY, s int DEFAULT "
       "nextval('shared_seq'), d date DEFAULT current_date, x text DEFAULT "
       "'a' || 'b');" +
           fill("k_default_objects", 10, "g, 1, '2024-01-01', 'x'"),
       "id"},
      {"public.k_not_valid_check",
       "CREATE TABLE k_not_valid_check (id int PRIMARY KEY, qty int);" +
           fill("k_not_valid_check", 30, "g, g - 5") +
           "ALTER TABLE k_not_valid_check ADD CONSTRAINT qty_pos CHECK (qty > "
           "0) NOT VALID;",
       "id"},
      {"public.k_wide",
       [] {
         std::string cols, vals;
         for (int i = 1; i <= 60; ++i) {
           cols += fmt::format(", c{} int", i);
           vals += fmt::format(", g + {}", i);
         }
         return "CREATE TABLE k_wide (id int PRIMARY KEY" + cols +
                "); INSERT INTO k_wide SELECT g" + vals +
                " FROM generate_series(1, 20) g;";
       }(),
       "id"},
      {"public.k_statement_trigger_and_policy",
       "CREATE TABLE k_statement_trigger_and_policy (id int PRIMARY KEY, "
       "tenant text);" +
           fill("k_statement_trigger_and_policy", 10, "g, 't'") +
           "CREATE POLICY tenant ON k_statement_trigger_and_policy USING "
           "(tenant = current_setting('app.tenant', true));"
           "CREATE TRIGGER s_ins AFTER INSERT OR UPDATE ON "
           "k_statement_trigger_and_policy FOR EACH STATEMENT EXECUTE "
           "PROCEDURE stmt_note();",
       "id"},
      {"public.k_column_acl_only",
       "CREATE TABLE k_column_acl_only (id int PRIMARY KEY, a text, b text);" +
           fill("k_column_acl_only", 10, "g, 'a', 'b'") +
           "GRANT SELECT (a), INSERT (a, b) ON k_column_acl_only TO "
           "suite_reader;",
       "id"},
      {"public.k_domain_array",
       "CREATE TABLE k_domain_array (id int PRIMARY KEY, ds positive[], ms "
       "mood[]);" +
           fill("k_domain_array", 10, "g, ARRAY[g], ARRAY['ok'::mood]"),
       "id"},
      {"public.k_numeric_key",
       "CREATE TABLE k_numeric_key (id numeric PRIMARY KEY, v text);" +
           fill("k_numeric_key", 20, "g / 7.0, 'v'"),
       "id"},
      {"public.k_text_key_unicode",
       "CREATE TABLE k_text_key_unicode (k text PRIMARY KEY, v text);"
       "INSERT INTO k_text_key_unicode VALUES ('é', '1'), ('ü', '2'), ('a', "
       "'3'), ('Ω', '4'), ('', '5'), (' ', '6');",
       "k"},
      {"public.k_timestamp_key",
       "CREATE TABLE k_timestamp_key (at timestamptz PRIMARY KEY, v int);" +
           fill("k_timestamp_key", 20,
                "'2020-01-01'::timestamptz + g * interval '1 second', g"),
       "at"},
      // Moved only: what a partitioned table cannot have (the
      // conversions are refused in WhatCannotBeSwappedIsRefused...).
      {"public.k_exclusion",
       "CREATE TABLE k_exclusion (id int PRIMARY KEY, r int4range, CONSTRAINT "
       "k_no_overlap EXCLUDE USING gist (r WITH &&) DEFERRABLE);" +
           fill("k_exclusion", 20, "g, int4range(g * 10, g * 10 + 5)") +
           "COMMENT ON CONSTRAINT k_no_overlap ON k_exclusion IS 'excl note';",
       ""},
      {"public.k_no_inherit",
       "CREATE TABLE k_no_inherit (id int PRIMARY KEY, v int, CONSTRAINT "
       "v_local CHECK (v > 0) NO INHERIT);" +
           fill("k_no_inherit", 10, "g, g"),
       ""},
      {"public.k_row_transition",
       "CREATE TABLE k_row_transition (id int PRIMARY KEY);" +
           fill("k_row_transition", 10, "g") +
           "CREATE TRIGGER t_rows AFTER UPDATE ON k_row_transition "
           "REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows FOR "
           "EACH ROW EXECUTE PROCEDURE stmt_note();",
       ""},
      // Names that need quoting everywhere the swap writes them.
      {"public.k_odd_names",
       "CREATE TABLE k_odd_names (id int CONSTRAINT \"odd \"\"key\"\" "
       "name\" PRIMARY KEY, v int, w text, CONSTRAINT \"Check Me\" CHECK "
       "(v <> 130));" +
           fill("k_odd_names", 20, "g, g, 'w'") +
           "ALTER TABLE k_odd_names ADD CONSTRAINT \"late, not valid\" CHECK "
           "(v < 1000) NOT VALID;"
           "CREATE INDEX \"Odd Index \"\"2\"\"\" ON k_odd_names (w) WITH "
           "(fillfactor = 80);"
           "COMMENT ON INDEX \"Odd Index \"\"2\"\"\" IS 'it''s odd';"
           "CREATE TRIGGER \"Odd Trigger\" BEFORE UPDATE ON k_odd_names FOR "
           "EACH ROW EXECUTE PROCEDURE touch();"
           "CREATE POLICY \"Odd Policy\" ON k_odd_names USING (v > 0);"
           "CREATE STATISTICS \"Other Schema\".\"Odd Stat\" ON v, w FROM "
           "k_odd_names;"
           "ALTER TABLE k_odd_names CLUSTER ON \"Odd Index \"\"2\"\"\";"
           "ALTER TABLE k_odd_names ADD CONSTRAINT \"fk to odd\" FOREIGN "
           "KEY (v) REFERENCES \"Odd Table\" NOT VALID;",
       "id", 12, 18},
      // Another role owns it and the objects on it; a policy for that
      // role, grants by it.
      {"public.k_owner_objects",
       "CREATE TABLE k_owner_objects (id int PRIMARY KEY, a int, b int);" +
           fill("k_owner_objects", 10, "g, g, g") +
           "ALTER TABLE k_owner_objects OWNER TO suite_owner;"
           "CREATE STATISTICS k_owner_stat ON a, b FROM k_owner_objects;"
           "ALTER STATISTICS k_owner_stat OWNER TO suite_owner;"
           "CREATE POLICY own_rows ON k_owner_objects TO suite_owner USING (a "
           "> 0);"
           "SET ROLE suite_owner;"
           "GRANT SELECT ON k_owner_objects TO suite_reader WITH GRANT "
           "OPTION;"
           "REVOKE UPDATE ON k_owner_objects FROM suite_owner;"
           "RESET ROLE;",
       "id"},
      // A check calling a function, a default of another table's sequence,
      // a column statistics target and options on the key.
      {"public.k_functions",
       "CREATE FUNCTION is_even(int) RETURNS boolean IMMUTABLE LANGUAGE sql "
       "AS 'SELECT $1 % 2 = 0';"
       "CREATE TABLE k_functions (id int PRIMARY KEY, e int CHECK "
       "(is_even(e)), s bigint DEFAULT nextval('k_serial_id_seq'));" +
           fill("k_functions", 10, "g, g * 2, g") +
           "ALTER TABLE k_functions ALTER COLUMN id SET STATISTICS 42, ALTER "
           "COLUMN id SET (n_distinct = -1);",
       "id"},
      // From 13: statistics objects have targets of their own.
      {"public.k_stats_target",
       "CREATE TABLE k_stats_target (id int PRIMARY KEY, a int, b int);" +
           fill("k_stats_target", 20, "g, g, g") +
           "CREATE STATISTICS k_stats_target_s ON a, b FROM k_stats_target;"
           "ALTER STATISTICS k_stats_target_s SET STATISTICS 321;",
       "id", 13},
      // From 14: compression per column.
      {"public.k_compression",
       "CREATE TABLE k_compression (id int PRIMARY KEY, v text COMPRESSION "
       "pglz, w text);" +
           fill("k_compression", 10, "g, repeat('v', 3000), 'w'"),
       "id", 14},
      // From 14: statistics on expressions.
      {"public.k_expression_stats",
       "CREATE TABLE k_expression_stats (id int PRIMARY KEY, a int, b int);" +
           fill("k_expression_stats", 20, "g, g % 3, g % 5") +
           "CREATE STATISTICS k_expression_s ON (a + b), (a * 2) FROM "
           "k_expression_stats;",
       "id", 14},
      // From 15: ON DELETE SET NULL of some columns.
      {"public.k_set_null_columns",
       "CREATE TABLE k_set_null_columns (id int PRIMARY KEY, p int, q int, "
       "CONSTRAINT k_set_null_p FOREIGN KEY (p) REFERENCES k_parent ON "
       "DELETE SET NULL (p));" +
           fill("k_set_null_columns", 10, "g, g, g"),
       "id", 15, 18},
      // From 15: NULLS NOT DISTINCT.
      {"public.k_nulls_not_distinct",
       "CREATE TABLE k_nulls_not_distinct (id int PRIMARY KEY, a int, "
       "CONSTRAINT k_nnd UNIQUE NULLS NOT DISTINCT (a, id));" +
           fill("k_nulls_not_distinct", 10, "g, NULL::int"),
       "id", 15},
      // From 18: virtual generated columns, named NOT NULL constraints.
      {"public.k_virtual",
       "CREATE TABLE k_virtual (id int PRIMARY KEY, a int, b int GENERATED "
       "ALWAYS AS (a + 1) VIRTUAL, c int CONSTRAINT c_required NOT NULL);"
       "INSERT INTO k_virtual (id, a, c) SELECT g, g, g FROM "
       "generate_series(1, 10) g;",
       "id", 18},
  };
  return t;
}

// A table whose placement the migrator refuses, with what it must say.
struct Refused {
  std::string relation;
  std::string sql;
  std::string strategy;  // "move" or "hash_partition"
  std::string reason;    // part of the refusal after "<relation>: "
  int min_version = 12;
  int max_version = 99;
};

std::vector<Refused> RefusedTables() {
  return {
      {"public.r_unlogged",
       "CREATE UNLOGGED TABLE r_unlogged (id int PRIMARY KEY);", "move",
       "is unlogged or temporary"},
      {"public.r_no_key", "CREATE TABLE r_no_key (a int, b text);", "move",
       "has no primary key and no unique index over NOT NULL columns"},
      {"public.r_typed", "CREATE TABLE r_typed OF pair (PRIMARY KEY (a));",
       "move", "is a typed table"},
      {"public.r_inherit_parent",
       "CREATE TABLE r_inherit_parent (id int PRIMARY KEY);"
       "CREATE TABLE r_inherit_child (extra int) INHERITS (r_inherit_parent);",
       "move", "takes part in table inheritance"},
      {"public.r_ruled",
       "CREATE TABLE r_ruled (id int PRIMARY KEY);"
       "CREATE RULE r_ruled_nothing AS ON DELETE TO r_ruled DO INSTEAD "
       "NOTHING;",
       "move", "has rule r_ruled_nothing"},
      {"public.r_matview_source",
       "CREATE TABLE r_matview_source (id int PRIMARY KEY);"
       "CREATE MATERIALIZED VIEW r_matview AS SELECT * FROM "
       "r_matview_source;",
       "move", "materialized view public.r_matview depends on it"},
      {"public.r_rowtype",
       "CREATE TABLE r_rowtype (id int PRIMARY KEY);"
       "CREATE TABLE r_rowtype_user (id int PRIMARY KEY, r r_rowtype);",
       "move",
       "column r of table public.r_rowtype_user refers to it by oid (its row "
       "type"},
      {"public.r_returned",
       "CREATE TABLE r_returned (id int PRIMARY KEY);"
       "CREATE FUNCTION r_rows() RETURNS SETOF r_returned LANGUAGE sql AS "
       "'SELECT * FROM r_returned';",
       "move", "function public.r_rows() refers to it by oid"},
      {"public.r_trigger_from",
       "CREATE TABLE r_trigger_from (id int PRIMARY KEY);"
       "CREATE TABLE r_trigger_from_other (id int PRIMARY KEY);"
       "CREATE CONSTRAINT TRIGGER t_from AFTER INSERT ON "
       "r_trigger_from_other FROM r_trigger_from FOR EACH ROW EXECUTE "
       "PROCEDURE touch();",
       "move",
       "trigger t_from on table public.r_trigger_from_other refers to it by "
       "oid"},
      {"public.r_hash_self_fk",
       "CREATE TABLE r_hash_self_fk (id int PRIMARY KEY, up int REFERENCES "
       "r_hash_self_fk);",
       "hash_partition",
       "foreign key r_hash_self_fk_up_fkey references public.r_hash_self_fk: "
       "adding it to a partitioned table without a long lock needs NOT VALID",
       12, 17},
      {"public.r_published",
       "CREATE TABLE r_published (id int PRIMARY KEY);"
       "CREATE PUBLICATION r_pub FOR TABLE r_published;",
       "move", "is published by publication r_pub"},
      {"public.r_policy_reader",
       "CREATE TABLE r_policy_reader (id int PRIMARY KEY, who text);"
       "CREATE TABLE r_documents (id int PRIMARY KEY);"
       "ALTER TABLE r_documents ENABLE ROW LEVEL SECURITY;"
       "CREATE POLICY r_readable ON r_documents USING (EXISTS (SELECT 1 FROM "
       "r_policy_reader g WHERE g.id = r_documents.id));",
       "move",
       "policy r_readable on table public.r_documents refers to it by oid and "
       "would keep reading the old copy after the swap"},
      {"public.r_regclass_default",
       "CREATE TABLE r_regclass_default (id int PRIMARY KEY);"
       "CREATE TABLE r_points_at (id int PRIMARY KEY, t regclass DEFAULT "
       "'r_regclass_default'::regclass);",
       "move",
       "default value for column t of table public.r_points_at refers to it "
       "by oid"},
      {"public.r_partitioned",
       "CREATE TABLE r_partitioned (id int PRIMARY KEY, up int CONSTRAINT "
       "r_up REFERENCES r_partitioned) PARTITION BY RANGE "
       "(id); CREATE TABLE r_partition PARTITION OF r_partitioned FOR VALUES "
       "FROM (0) TO (100); CREATE TABLE r_partition_ref (id int REFERENCES "
       "r_partitioned); CREATE TABLE r_subpartitioned PARTITION OF "
       "r_partitioned FOR VALUES FROM (100) TO (200) PARTITION BY RANGE (id);"
       "CREATE TABLE r_leaf PARTITION OF r_subpartitioned FOR VALUES FROM "
       "(100) TO (200);",
       "move", "is a partitioned table"},
      // A partition moves online (migrate_partition_test.cc), also when
      // another table's foreign key references its parent (r_partition_ref),
      // but not when the parent's own key references the parent.
      {"public.r_partition", "SELECT 1", "move",
       "its parent public.r_partitioned has foreign key r_up to itself"},
      {"public.r_subpartitioned", "SELECT 1", "move",
       "is itself partitioned (a partition of public.r_partitioned with "
       "partitions of its own): moving it moves nothing"},
      {"public.r_hash_unique",
       "CREATE TABLE r_hash_unique (id int PRIMARY KEY, u int UNIQUE);",
       "hash_partition",
       "unique index r_hash_unique_u_key (u) does not contain the partition "
       "key column(s) id"},
      {"public.r_hash_noinherit",
       "CREATE TABLE r_hash_noinherit (id int PRIMARY KEY, v int CONSTRAINT "
       "v_local CHECK (v > 0) NO INHERIT);",
       "hash_partition", "CHECK constraint v_local is NO INHERIT"},
      {"public.r_hash_transition",
       "CREATE TABLE r_hash_transition (id int PRIMARY KEY);"
       "CREATE TRIGGER r_rows AFTER INSERT ON r_hash_transition REFERENCING "
       "NEW TABLE AS added FOR EACH ROW EXECUTE PROCEDURE stmt_note();",
       "hash_partition", "row trigger r_rows has transition tables"},
      {"public.r_hash_exclusion",
       "CREATE TABLE r_hash_exclusion (id int PRIMARY KEY, r int4range, "
       "EXCLUDE USING gist (r WITH &&));",
       "hash_partition", "exclusion constraint r_hash_exclusion_r_excl"},
      {"public.r_hash_fk_out",
       "CREATE TABLE r_hash_fk_out (id int PRIMARY KEY, p int REFERENCES "
       "k_parent);",
       "hash_partition", "foreign key r_hash_fk_out_p_fkey references", 12, 17},
      {"public.r_sql_body",
       "CREATE TABLE r_sql_body (id int PRIMARY KEY);"
       "CREATE FUNCTION r_count() RETURNS bigint LANGUAGE sql BEGIN ATOMIC "
       "SELECT count(*) FROM r_sql_body; END;",
       "move", "function public.r_count() refers to it by oid", 14},
      {"public.r_hash_before_row",
       "CREATE TABLE r_hash_before_row (id int PRIMARY KEY);"
       "CREATE TRIGGER r_before BEFORE INSERT ON r_hash_before_row FOR EACH "
       "ROW EXECUTE PROCEDURE touch();",
       "hash_partition",
       "BEFORE ROW trigger r_before is not supported on partitioned tables "
       "before 13",
       12, 12},
  };
}

// A partitioned table, a partitioned partition included, has nothing of
// its own to move, online or offline.
bool MovesNothing(const std::string& relation) {
  return relation == "public.r_partitioned" ||
         relation == "public.r_subpartitioned";
}

class StructureSuiteTest : public PgVersionTest {};

std::string Conninfo(PgCluster* pg, const std::string& db) {
  return "host=127.0.0.1 port=" + std::to_string(pg->port()) + " dbname=" + db +
         " user=postgres";
}

Status Migrate(const std::string& toml, const std::string& conninfo,
               MigrateResult* report) {
  Plan plan;
  PGLAYOUT_RETURN_IF_ERROR(ParsePlan(toml, "plan.toml", &plan));
  MigrateOptions options;
  options.conninfo = conninfo;
  options.apply = true;
  options.checkpoint_guard = false;
  options.throttle = ThrottleMode::kOff;
  options.batch_rows = 1000;
  return migrator::Migrate(plan, options, nullptr, report);
}

using Fingerprints = std::map<std::string, std::vector<std::string>>;

void TakeFingerprints(SqlSession* s, const std::vector<SuiteTable>& tables,
                      Fingerprints* out) {
  for (const SuiteTable& t : tables) {
    Status st = TableFingerprint(s, t.relation, &(*out)[t.relation]);
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
}

void ExpectSame(const Fingerprints& before, const Fingerprints& after,
                const std::string& what) {
  for (const auto& [relation, lines] : before) {
    auto it = after.find(relation);
    ASSERT_NE(it, after.end()) << relation;
    EXPECT_EQ(FingerprintDiff(lines, it->second), "")
        << relation << " after " << what;
  }
}

TEST_P(StructureSuiteTest, MovesAndConversionsKeepEveryTablesStructure) {
  const int major = PgVersionMajor(version());
  PgCluster* pg;
  PGLAYOUT_ASSERT_OK(SharedCluster(&pg));
  std::unique_ptr<SqlSession> admin, s;
  PGLAYOUT_ASSERT_OK(pg->Connect(&admin));
  PGLAYOUT_ASSERT_OK(ExecuteSql(admin.get(), "DROP DATABASE IF EXISTS suite"));
  PGLAYOUT_ASSERT_OK(ExecuteSql(admin.get(), "CREATE DATABASE suite"));
  PGLAYOUT_ASSERT_OK(
      OpenPgSessionAsConfigured(Conninfo(pg, "suite"), "suite", &s));
  PGLAYOUT_ASSERT_OK(ExecuteSql(s.get(), kRoles));

  std::vector<SuiteTable> tables;
  for (const SuiteTable& t : AcceptedTables()) {
    if (major >= t.min_version) tables.push_back(t);
  }
  for (const SuiteTable& t : tables) {
    Status st = ExecuteSql(s.get(), t.sql);
    ASSERT_TRUE(st.ok()) << t.relation << ": " << st.ToString();
  }
  PGLAYOUT_ASSERT_OK(ExecuteSql(s.get(), "ANALYZE"));
  ASSERT_GE(tables.size(), 50u);

  std::string dir;
  PGLAYOUT_ASSERT_OK(pg->MakeDirectory("suite_ts", &dir));
  std::string move =
      "[[tablespace]]\nname = \"suite_ts\"\npath = " + TomlString(dir) + "\n";
  std::string hash = move;
  for (const SuiteTable& t : tables) {
    move += "[[placement]]\nrelation = " + TomlString(t.relation) +
            "\nstrategy = \"move\"\ntablespaces = [\"suite_ts\"]\n";
    if (t.hash_key.empty() || major < t.hash_min_version) continue;
    hash += "[[placement]]\nrelation = " + TomlString(t.relation) +
            "\nstrategy = \"hash_partition\"\ntablespaces = [\"suite_ts\", "
            "\"pg_default\"]\npartitions = 3\nkey = [" +
            TomlString(t.hash_key) + "]\n";
  }

  Fingerprints before, moved, converted;
  TakeFingerprints(s.get(), tables, &before);
  MigrateResult report;
  PGLAYOUT_ASSERT_OK(Migrate(move, Conninfo(pg, "suite"), &report));
  TakeFingerprints(s.get(), tables, &moved);
  ExpectSame(before, moved, "the move");
  for (const SuiteTable& t : tables) {
    EXPECT_EQ(Value(s.get(),
                    "SELECT t.spcname FROM pg_class c JOIN pg_tablespace t ON "
                    "t.oid = c.reltablespace WHERE c.oid = $1::regclass",
                    {t.relation}),
              "suite_ts")
        << t.relation;
  }

  report = MigrateResult();
  PGLAYOUT_ASSERT_OK(Migrate(hash, Conninfo(pg, "suite"), &report));
  TakeFingerprints(s.get(), tables, &converted);
  ExpectSame(before, converted, "the hash conversion");
  for (const SuiteTable& t : tables) {
    bool converts = !t.hash_key.empty() && major >= t.hash_min_version;
    EXPECT_EQ(Value(s.get(),
                    "SELECT relkind || (SELECT count(*) FROM pg_inherits WHERE "
                    "inhparent = c.oid) FROM pg_class c WHERE c.oid = "
                    "$1::regclass",
                    {t.relation}),
              converts ? "p3" : "r0")
        << t.relation;
  }
}

// What cannot be copied and swapped is refused before any change, each
// table named with its reason; a move refused online says that online =
// false moves it (ALTER TABLE ... SET TABLESPACE, the same object) and what
// lock that costs, and so it does: every such table then moves offline
// with its fingerprint unchanged (a partition whose parent another table
// references, inheritance parent and child, unlogged, typed, with rules,
// read by a materialized view...). A partitioned table itself, or a
// partitioned partition, has nothing to move: refused, naming it.
TEST_P(StructureSuiteTest, WhatCannotBeSwappedIsRefusedAndMovesOffline) {
  const int major = PgVersionMajor(version());
  PgCluster* pg;
  PGLAYOUT_ASSERT_OK(SharedCluster(&pg));
  std::unique_ptr<SqlSession> admin, s;
  PGLAYOUT_ASSERT_OK(pg->Connect(&admin));
  PGLAYOUT_ASSERT_OK(
      ExecuteSql(admin.get(), "DROP DATABASE IF EXISTS suite_refused"));
  PGLAYOUT_ASSERT_OK(ExecuteSql(admin.get(), "CREATE DATABASE suite_refused"));
  PGLAYOUT_ASSERT_OK(
      OpenPgSessionAsConfigured(Conninfo(pg, "suite_refused"), "suite", &s));
  PGLAYOUT_ASSERT_OK(ExecuteSql(s.get(), kRoles));
  PGLAYOUT_ASSERT_OK(ExecuteSql(
      s.get(), "CREATE TABLE k_parent (id int PRIMARY KEY, v text)"));

  std::string dir;
  PGLAYOUT_ASSERT_OK(pg->MakeDirectory("suite_refused_ts", &dir));
  std::vector<Refused> refused;
  const std::string tablespace =
      "[[tablespace]]\nname = \"suite_refused_ts\"\npath = " + TomlString(dir) +
      "\n";
  std::string plan = tablespace, offline = tablespace;
  std::vector<SuiteTable> tables = {{"public.k_parent", "", ""}};
  for (const Refused& r : RefusedTables()) {
    if (major < r.min_version || major > r.max_version) continue;
    refused.push_back(r);
    Status st = ExecuteSql(s.get(), r.sql);
    ASSERT_TRUE(st.ok()) << r.relation << ": " << st.ToString();
    std::string placement =
        "[[placement]]\nrelation = " + TomlString(r.relation) +
        "\nstrategy = \"" + r.strategy +
        "\"\ntablespaces = [\"suite_refused_ts\"]\n";
    plan += placement +
            (r.strategy == "move" ? "" : "partitions = 3\nkey = [\"id\"]\n");
    if (r.strategy == "move" && !MovesNothing(r.relation)) {
      offline += placement + "online = false\n";
      tables.push_back({r.relation, "", ""});
    }
  }
  Fingerprints before, refused_after, moved;
  TakeFingerprints(s.get(), tables, &before);
  const std::string catalog =
      "SELECT count(*) || ':' || max(oid::text::bigint) FROM pg_class";
  const std::string catalog_before = Value(s.get(), catalog);

  std::string path = ::testing::TempDir() + "/suite_refused_" +
                     PgVersionName(version()) + ".toml";
  ASSERT_TRUE(WriteTextFile(path, plan).ok());
  Command c;
  c.argv = {
      PGLAYOUT_BINARY, "migrate", path, "--dsn", Conninfo(pg, "suite_refused"),
      "--apply"};
  Completion run = RunToCompletion(c);
  EXPECT_EQ(run.exit_code, 2) << run.output;
  for (const Refused& r : refused) {
    std::string line = r.relation + ": " + r.reason;
    size_t at = run.output.find(line);
    EXPECT_NE(at, std::string::npos)
        << r.relation << " should be refused with '" << r.reason << "':\n"
        << run.output;
    if (at == std::string::npos || r.strategy != "move" ||
        MovesNothing(r.relation)) {
      continue;
    }
    std::string rest = run.output.substr(at, run.output.find('\n', at) - at);
    EXPECT_NE(rest.find("online = false"), std::string::npos) << rest;
  }
  EXPECT_NE(run.output.find("; online = false moves it offline (each "
                            "statement holds ACCESS EXCLUSIVE on the table "
                            "while it copies: "),
            std::string::npos)
      << run.output;
  EXPECT_EQ(Value(s.get(), "SELECT to_regnamespace('pglayout') IS NULL"), "t");
  EXPECT_EQ(Value(s.get(), catalog), catalog_before) << "nothing changed";
  TakeFingerprints(s.get(), tables, &refused_after);
  ExpectSame(before, refused_after, "the refusal");

  MigrateResult report;
  PGLAYOUT_ASSERT_OK(Migrate(offline, Conninfo(pg, "suite_refused"), &report));
  TakeFingerprints(s.get(), tables, &moved);
  ExpectSame(before, moved, "the offline move");
  for (const SuiteTable& t : tables) {
    if (t.relation == "public.k_parent") continue;
    EXPECT_EQ(Value(s.get(),
                    "SELECT t.spcname FROM pg_class c JOIN pg_tablespace t ON "
                    "t.oid = c.reltablespace WHERE c.oid = $1::regclass",
                    {t.relation}),
              "suite_refused_ts")
        << t.relation;
  }
  bool forecast = false;
  for (const Step& step : report.steps) {
    forecast |= step.title.find(
                    "public.r_partition to tablespace "
                    "suite_refused_ts (offline)") != std::string::npos &&
                step.note.find("holds ACCESS EXCLUSIVE") != std::string::npos;
  }
  EXPECT_TRUE(forecast) << "the partition's step says the lock it takes";
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS_FROM_12(StructureSuiteTest);

}  // namespace
}  // namespace pglayout::migrator
