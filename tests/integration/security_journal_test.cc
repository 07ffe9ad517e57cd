// Schema pglayout is pglayout's own (docs/security.md#pglayouts-schema): a
// database owner who pre-creates the schema, or puts a trigger, a view, a
// rule, a policy or a function in it, gets every command a superuser runs
// against the database refused, naming the object, with nothing changed
// and the trap not fired (observe, which leaves the schema out, runs and
// changes nothing either). A journal pglayout made itself passes the same
// check on every later command.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "migrator/journal.h"
#include "pg/journal_schema.h"
#include "pg/sql.h"
#include "testing/pg_test.h"
#include "tests/integration/attacker.h"
#include "tests/run_pglayout.h"

namespace pglayout {
namespace {

// The attacker's database with its tables public.t, public.h and the
// range-partitioned public.m (partitions m1, m2), and the plans a
// superuser would run: an offline and an online move of t into
// tablespaces the plans create, a hash conversion of h, and an online
// move of the partition m1.
struct JournalAttack {
  AttackerDatabase db;
  std::string offline_plan, online_plan, hash_plan, partition_plan;
  std::string offline_ts, online_ts, partition_ts;
};

std::string MovePlan(PgCluster* cluster, const std::string& relation,
                     const std::string& ts, bool online) {
  std::string dir;
  EXPECT_TRUE(cluster->MakeDirectory(ts, &dir).ok());
  return "[[tablespace]]\nname = \"" + ts + "\"\npath = \"" + dir +
         "\"\n[[placement]]\nrelation = \"" + relation +
         "\"\nstrategy = \"move\"\ntablespaces = [\"" + ts +
         "\"]\nonline = " + (online ? "true" : "false") + "\n";
}

const char kHashPlan[] =
    "[[placement]]\nrelation = \"public.h\"\nstrategy = "
    "\"hash_partition\"\ntablespaces = [\"pg_default\"]\npartitions = 3\n"
    "key = [\"id\"]\n";

Status MakeJournalAttack(PgCluster* cluster, const std::string& tag,
                         JournalAttack* out) {
  PGLAYOUT_RETURN_IF_ERROR(MakeAttackerDatabase(cluster, tag, &out->db));
  std::unique_ptr<SqlSession> attacker;
  PGLAYOUT_RETURN_IF_ERROR(
      OpenPgSession(out->db.attacker_conninfo, "attacker", &attacker));
  PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(
      attacker.get(),
      "CREATE TABLE public.t (id int PRIMARY KEY, v text);"
      "INSERT INTO public.t SELECT g, 'v' FROM generate_series(1, 200) g;"
      "GRANT SELECT ON public.t TO PUBLIC;"
      "CREATE TABLE public.h (id int PRIMARY KEY, v text);"
      "INSERT INTO public.h SELECT g, 'h' FROM generate_series(1, 200) g;"
      "CREATE TABLE public.m (id int PRIMARY KEY) PARTITION BY RANGE (id);"
      "CREATE TABLE public.m1 PARTITION OF public.m FOR VALUES FROM (1) "
      "TO (101); CREATE TABLE public.m2 PARTITION OF public.m FOR VALUES "
      "FROM (101) TO (201);"
      "INSERT INTO public.m SELECT generate_series(1, 200);"
      "CREATE FUNCTION public.trap() RETURNS int LANGUAGE plpgsql AS " +
          QuoteLiteral(EscalationBody(out->db, "1")) +
          ";"
          "CREATE FUNCTION public.trap_row() RETURNS trigger LANGUAGE "
          "plpgsql AS " +
          QuoteLiteral(EscalationBody(out->db, "NEW"))));
  out->offline_ts = tag + "_off_ts";
  out->online_ts = tag + "_on_ts";
  out->partition_ts = tag + "_part_ts";
  // Tablespace names are cluster-wide: a failed earlier run's are gone.
  std::unique_ptr<SqlSession> admin;
  PGLAYOUT_RETURN_IF_ERROR(cluster->Connect(&admin));
  for (const std::string& ts :
       {out->offline_ts, out->online_ts, out->partition_ts}) {
    PGLAYOUT_RETURN_IF_ERROR(
        ExecuteSql(admin.get(), "DROP TABLESPACE IF EXISTS " + QuoteIdent(ts)));
  }
  out->offline_plan = MovePlan(cluster, "public.t", out->offline_ts, false);
  out->online_plan = MovePlan(cluster, "public.t", out->online_ts, true);
  out->hash_plan = kHashPlan;
  out->partition_plan = MovePlan(cluster, "public.m1", out->partition_ts, true);
  return Status::Ok();
}

// What must not change when pglayout refuses: the schema's relations and
// their owners, the rows of pglayout.run when it is a table (counted as
// the attacker, whose trap does nothing), the cluster's tablespaces, and
// where t and m1 are and what h is.
std::string Snapshot(PgCluster* cluster, const JournalAttack& a) {
  std::unique_ptr<SqlSession> attacker, admin;
  EXPECT_TRUE(
      OpenPgSession(a.db.attacker_conninfo, "attacker", &attacker).ok());
  EXPECT_TRUE(cluster->Connect(&admin).ok());
  std::string rels = Value(
      attacker.get(),
      "SELECT coalesce(string_agg(c.relname || ':' || c.relkind || ':' || "
      "pg_get_userbyid(c.relowner), ',' ORDER BY c.relname), '') FROM "
      "pg_class c WHERE c.relnamespace = to_regnamespace('pglayout')");
  std::string runs =
      Value(attacker.get(),
            "SELECT CASE WHEN (SELECT relkind FROM pg_class WHERE oid = "
            "to_regclass('pglayout.run')) = 'r' THEN (SELECT count(*) FROM "
            "pglayout.run)::text ELSE '-' END");
  std::string spaces =
      Value(admin.get(),
            "SELECT count(*) FROM pg_tablespace WHERE spcname IN ($1, $2, $3)",
            {a.offline_ts, a.online_ts, a.partition_ts});
  std::string placed =
      Value(attacker.get(),
            "SELECT string_agg(relname || ':' || reltablespace || ':' || "
            "relkind, ',' ORDER BY relname) FROM pg_class WHERE oid IN "
            "('public.t'::regclass, 'public.h'::regclass, "
            "'public.m1'::regclass)");
  return "relations " + rels + "; runs " + runs + "; tablespaces " + spaces +
         "; h, m1, t " + placed;
}

// A command a superuser runs against the journal's database, and whether
// it opens the journal (observe does not: it leaves schema pglayout out).
struct JournalCommand {
  std::vector<std::string> args;
  bool opens_journal = true;
};

// Every command a superuser runs against the journal's database: each
// kind of move (offline, online, hash conversion, a partition), --status,
// --abort, --finalize, report --journal and observe.
std::vector<JournalCommand> Commands(const JournalAttack& a) {
  const std::string dsn = a.db.superuser_conninfo;
  const std::string page = ::testing::TempDir() + "/" + a.db.dbname + ".html";
  std::vector<JournalCommand> out;
  for (const auto& [name, plan] :
       {std::pair<std::string, std::string>{"off", a.offline_plan},
        {"on", a.online_plan},
        {"hash", a.hash_plan},
        {"part", a.partition_plan}}) {
    out.push_back(
        {{"migrate", WriteTempFile(a.db.dbname + "-" + name + ".toml", plan),
          "--dsn", dsn, "--apply", "--no-checkpoint-guard"}});
  }
  out.push_back({{"migrate", "--status", "--dsn", dsn}});
  out.push_back({{"migrate", "--abort", "--dsn", dsn}});
  out.push_back({{"migrate", "--finalize", "--dsn", dsn}});
  out.push_back({{"report", "--journal", dsn, "-o", page}});
  out.push_back({{"observe", "--dsn", dsn, "--duration", "2s", "--interval",
                  "1s", "--no-device-reads", "-o",
                  ::testing::TempDir() + "/" + a.db.dbname + "-w.toml"},
                 false});
  return out;
}

std::string Joined(const std::vector<std::string>& args) {
  std::string out;
  for (const std::string& a : args) out += (out.empty() ? "" : " ") + a;
  return out;
}

struct Variant {
  std::string tag;
  std::string attacker_sql;        // run as the attacker (the database owner)
  std::string superuser_sql;       // then as the superuser, if any
  std::vector<std::string> named;  // each must be in every refusal
};

std::vector<Variant> Variants() {
  return {
      {"jtrig",
       "CREATE SCHEMA pglayout;"
       "CREATE TABLE pglayout.run (run_id bigint GENERATED ALWAYS AS "
       "IDENTITY PRIMARY KEY, plan_hash text, plan_text text, state text "
       "DEFAULT 'running', tool_version text, checkpoints_timed_start "
       "bigint, checkpoints_requested_start bigint);"
       "CREATE TRIGGER trap BEFORE INSERT ON pglayout.run FOR EACH ROW "
       "EXECUTE FUNCTION public.trap_row()",
       "",
       {"schema pglayout is owned by role jtrig_app, which is neither the "
        "running role",
        "trigger trap on table pglayout.run"}},
      {"jview",
       "CREATE SCHEMA pglayout;"
       "CREATE VIEW pglayout.run AS SELECT public.trap()::bigint AS run_id, "
       "'h'::text AS plan_hash, 'running'::text AS state, 0::bigint AS "
       "checkpoints_timed_start, 0::bigint AS checkpoints_requested_start;"
       "CREATE TABLE pglayout.step (run_id bigint);"
       "CREATE TABLE pglayout.setting (run_id bigint)",
       "",
       {"view pglayout.run (owner jview_app): not an object pglayout makes"}},
      {"jrule",
       "CREATE SCHEMA pglayout;"
       "CREATE TABLE pglayout.step (run_id bigint, step_key text);"
       "CREATE RULE spy AS ON INSERT TO pglayout.step DO ALSO SELECT "
       "public.trap()",
       "",
       {"rule spy on table pglayout.step"}},
      {"jpolicy",
       "CREATE SCHEMA pglayout;"
       "CREATE TABLE pglayout.setting (run_id bigint);"
       "ALTER TABLE pglayout.setting ENABLE ROW LEVEL SECURITY;"
       "CREATE POLICY peek ON pglayout.setting USING (public.trap() = 1)",
       "",
       {"policy peek on table pglayout.setting",
        "table pglayout.setting has row level security enabled"}},
      // The schema is the attacker's, the tables the superuser's (made by
      // a superuser's earlier run with CREATE SCHEMA IF NOT EXISTS): the
      // schema's owner may drop and replace any of them at will.
      {"jowner",
       "CREATE SCHEMA pglayout",
       "CREATE TABLE pglayout.run (run_id bigint PRIMARY KEY, plan_hash "
       "text, state text);"
       "CREATE TABLE pglayout.step (run_id bigint);"
       "CREATE TABLE pglayout.setting (run_id bigint)",
       {"schema pglayout is owned by role jowner_app, which is neither the "
        "running role"}},
      // A superuser's schema where the attacker was once given CREATE: a
      // function of its own under a name like pglayout's.
      {"jfunc",
       "",
       "CREATE SCHEMA pglayout;"
       "CREATE TABLE pglayout.run (run_id bigint PRIMARY KEY, plan_hash "
       "text, state text);"
       "GRANT CREATE, USAGE ON SCHEMA pglayout TO jfunc_app",
       {"schema pglayout grants privileges to other roles",
        "function pglayout.capture_1() is owned by role jfunc_app",
        "function pglayout.now() (owner jfunc_app): not an object pglayout "
        "makes"}},
      // Objects judged by their owner alone, one from each kind of
      // catalog that has an owner, and a template, which has none.
      {"jother",
       "",
       "CREATE SCHEMA pglayout;"
       "CREATE TABLE pglayout.run (run_id bigint PRIMARY KEY, plan_hash "
       "text, state text);"
       "CREATE COLLATION pglayout.c FROM \"C\";"
       "ALTER COLLATION pglayout.c OWNER TO jother_app;"
       "CREATE TEXT SEARCH CONFIGURATION pglayout.cfg "
       "(COPY = pg_catalog.simple);"
       "ALTER TEXT SEARCH CONFIGURATION pglayout.cfg OWNER TO jother_app;"
       "CREATE OPERATOR pglayout.=== (LEFTARG = int, RIGHTARG = int, "
       "FUNCTION = pg_catalog.int4eq);"
       "ALTER OPERATOR pglayout.=== (int, int) OWNER TO jother_app;"
       "CREATE TEXT SEARCH TEMPLATE pglayout.tmpl "
       "(LEXIZE = pg_catalog.dsimple_lexize)",
       {"collation pglayout.c (owner jother_app): not an object pglayout "
        "makes",
        "operator pglayout.===(integer,integer) (owner jother_app): not an "
        "object pglayout makes",
        "text search configuration pglayout.cfg (owner jother_app)",
        "text search template pglayout.tmpl: not an object pglayout makes"}},
  };
}

class SecurityJournalTest : public PgVersionTest {};

TEST_P(SecurityJournalTest, ASchemaPglayoutSomeoneElsePreparedIsRefused) {
  PgCluster* cluster = nullptr;
  PGLAYOUT_ASSERT_OK(SharedCluster(&cluster));
  for (const Variant& v : Variants()) {
    SCOPED_TRACE(v.tag);
    JournalAttack a;
    PGLAYOUT_ASSERT_OK(MakeJournalAttack(cluster, v.tag, &a));
    std::unique_ptr<SqlSession> attacker, super;
    PGLAYOUT_ASSERT_OK(
        OpenPgSession(a.db.attacker_conninfo, "attacker", &attacker));
    PGLAYOUT_ASSERT_OK(OpenPgSession(a.db.superuser_conninfo, "dba", &super));
    if (!v.attacker_sql.empty()) {
      PGLAYOUT_ASSERT_OK(ExecuteSql(attacker.get(), v.attacker_sql));
    }
    if (!v.superuser_sql.empty()) {
      PGLAYOUT_ASSERT_OK(ExecuteSql(super.get(), v.superuser_sql));
    }
    if (v.tag == "jfunc") {
      PGLAYOUT_ASSERT_OK(ExecuteSql(
          attacker.get(),
          "CREATE FUNCTION pglayout.capture_1() RETURNS trigger LANGUAGE "
          "plpgsql AS " +
              QuoteLiteral(EscalationBody(a.db, "NEW")) +
              ";"
              "CREATE FUNCTION pglayout.now() RETURNS timestamptz LANGUAGE "
              "sql AS 'SELECT public.trap(); SELECT pg_catalog.now()'"));
    }
    const std::string before = Snapshot(cluster, a);
    for (const JournalCommand& command : Commands(a)) {
      const std::vector<std::string>& args = command.args;
      Completion run = RunPglayout(args);
      EXPECT_EQ(run.exit_code, command.opens_journal ? 2 : 0)
          << Joined(args) << "\n"
          << run.output;
      if (command.opens_journal) {
        EXPECT_NE(run.output.find("\npglayout: hint: A superuser should "
                                  "inspect the schema"),
                  std::string::npos)
            << Joined(args) << "\n"
            << run.output;
      }
      for (const std::string& name : v.named) {
        if (!command.opens_journal) break;
        EXPECT_NE(run.output.find(name), std::string::npos)
            << Joined(args) << " does not name \"" << name << "\":\n"
            << run.output;
      }
      EXPECT_TRUE(NoEscalation(cluster, a.db)) << Joined(args);
      EXPECT_EQ(Snapshot(cluster, a), before) << Joined(args);
    }
  }
}

TEST_P(SecurityJournalTest, ItsOwnJournalPassesOnEveryLaterCommand) {
  PgCluster* cluster = nullptr;
  PGLAYOUT_ASSERT_OK(SharedCluster(&cluster));
  JournalAttack a;
  PGLAYOUT_ASSERT_OK(MakeJournalAttack(cluster, "jown", &a));
  std::vector<JournalCommand> commands = Commands(a);
  // The online move first: it leaves the attacker's table, retired as
  // pglayout.old_<oid> with its grant, for --finalize; the offline move
  // then places the new table again in a run of its own.
  std::swap(commands[0], commands[1]);
  for (const JournalCommand& command : commands) {
    const std::vector<std::string>& args = command.args;
    Completion run = RunPglayout(args);
    EXPECT_EQ(run.exit_code, 0) << Joined(args) << "\n" << run.output;
    EXPECT_EQ(run.output.find("cannot be trusted"), std::string::npos)
        << Joined(args) << "\n"
        << run.output;
  }
  EXPECT_TRUE(NoEscalation(cluster, a.db));
  std::unique_ptr<SqlSession> super;
  PGLAYOUT_ASSERT_OK(OpenPgSession(a.db.superuser_conninfo, "dba", &super));
  EXPECT_EQ(Value(super.get(),
                  "SELECT pg_get_userbyid(nspowner) = current_user FROM "
                  "pg_namespace WHERE nspname = 'pglayout'"),
            "t");
  EXPECT_EQ(Value(super.get(),
                  "SELECT string_agg(state, ',' ORDER BY run_id) FROM "
                  "pglayout.run"),
            "done,done,done,done");
  // Nothing of it is the attacker's to read or use.
  EXPECT_EQ(Value(super.get(),
                  "SELECT has_schema_privilege($1, 'pglayout', 'USAGE') OR "
                  "has_table_privilege($1, 'pglayout.run', 'SELECT') OR "
                  "has_table_privilege($1, 'pglayout.setting', 'INSERT')",
                  {a.db.role}),
            "f");
  EXPECT_EQ(Value(super.get(),
                  "SELECT count(*) FROM pg_class WHERE relnamespace = "
                  "'pglayout'::regnamespace AND relname LIKE 'old\\_%'"),
            "0")
      << "--finalize dropped the old copy";
}

// A run an older pglayout started made its capture functions with the
// default EXECUTE for PUBLIC; the next migrate that opens the journal
// revokes it, and opening it again changes nothing.
TEST_P(SecurityJournalTest, AnOlderRunsCaptureFunctionsLosePublicExecute) {
  PgCluster* cluster = nullptr;
  PGLAYOUT_ASSERT_OK(SharedCluster(&cluster));
  JournalAttack a;
  PGLAYOUT_ASSERT_OK(MakeJournalAttack(cluster, "jolder", &a));
  std::unique_ptr<SqlSession> super;
  PGLAYOUT_ASSERT_OK(OpenPgSession(a.db.superuser_conninfo, "dba", &super));
  migrator::Journal journal(super.get());
  PGLAYOUT_ASSERT_OK(journal.EnsureSchema());
  const std::string oid =
      Value(super.get(), "SELECT 'public.t'::regclass::oid");
  const std::vector<std::string> functions = {
      "pglayout.capture_" + oid + "()",
      "pglayout.block_truncate_" + oid + "()"};
  for (const std::string& f : functions) {
    PGLAYOUT_ASSERT_OK(ExecuteSql(
        super.get(), "CREATE FUNCTION " + f +
                         " RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER "
                         "AS 'BEGIN RETURN NULL; END'"));
  }
  const std::string executable =
      "SELECT string_agg(pg_catalog.has_function_privilege(r, f, "
      "'EXECUTE')::text, ',' ORDER BY r, f) FROM unnest($1::text[]) f, "
      "unnest($2::text[]) r";
  const std::vector<SqlValue> params = {
      TextArrayLiteral(functions), TextArrayLiteral({"public", a.db.role})};
  ASSERT_EQ(Value(super.get(), executable, params), "true,true,true,true")
      << "as an older run left them";

  const std::string offline =
      WriteTempFile(a.db.dbname + "-off.toml", a.offline_plan);
  Completion run =
      RunPglayout({"migrate", offline, "--dsn", a.db.superuser_conninfo,
                   "--apply", "--no-checkpoint-guard"});
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(Value(super.get(), executable, params), "false,false,false,false");
  EXPECT_EQ(Value(super.get(),
                  "SELECT count(*) FROM pg_proc WHERE pronamespace = "
                  "'pglayout'::regnamespace AND proacl IS NULL"),
            "0");

  // Opening the journal again revokes nothing more.
  std::vector<std::string> revoked;
  PGLAYOUT_EXPECT_OK(RevokeOwnFunctionsFromPublic(super.get(), &revoked));
  EXPECT_TRUE(revoked.empty()) << revoked.size();
  PGLAYOUT_EXPECT_OK(journal.EnsureSchema());
  EXPECT_EQ(Value(super.get(), executable, params), "false,false,false,false");
  EXPECT_TRUE(NoEscalation(cluster, a.db));
}

// An offline move by a role that is not a superuser: the preflight names
// each privilege it lacks (the owner's, CREATE on an existing tablespace,
// CREATE TABLESPACE) before anything changes, the dry run as --apply.
// With the privileges, the move runs and leaves schema pglayout to that
// role, which a superuser's later command then refuses to trust.
TEST_P(SecurityJournalTest, PreflightNamesEachPrivilegeAnOfflineMoveLacks) {
  PgCluster* cluster = nullptr;
  PGLAYOUT_ASSERT_OK(SharedCluster(&cluster));
  AttackerDatabase db;
  PGLAYOUT_ASSERT_OK(MakeAttackerDatabase(cluster, "jpriv", &db));
  std::unique_ptr<SqlSession> admin, super, role;
  PGLAYOUT_ASSERT_OK(cluster->Connect(&admin));
  PGLAYOUT_ASSERT_OK(OpenPgSession(db.superuser_conninfo, "dba", &super));
  PGLAYOUT_ASSERT_OK(OpenPgSession(db.attacker_conninfo, "role", &role));
  std::string dir;
  PGLAYOUT_ASSERT_OK(cluster->MakeDirectory("jpriv_ts", &dir));
  PGLAYOUT_ASSERT_OK(
      ExecuteSql(admin.get(), "DROP TABLESPACE IF EXISTS jpriv_ts"));
  PGLAYOUT_ASSERT_OK(ExecuteSql(
      admin.get(), "CREATE TABLESPACE jpriv_ts LOCATION " + QuoteLiteral(dir)));
  PGLAYOUT_ASSERT_OK(ExecuteSql(
      super.get(),
      "CREATE TABLE public.theirs (id int PRIMARY KEY) TABLESPACE jpriv_ts"));
  PGLAYOUT_ASSERT_OK(
      ExecuteSql(role.get(),
                 "CREATE TABLE public.mine (id int PRIMARY KEY);"
                 "CREATE TABLE public.mine2 (id int PRIMARY KEY);"
                 "INSERT INTO public.mine SELECT generate_series(1, 100)"));
  std::string new_dir;
  PGLAYOUT_ASSERT_OK(cluster->MakeDirectory("jpriv_new", &new_dir));
  const std::string superuser = Value(admin.get(), "SELECT current_user");
  auto move = [](const std::string& table, const std::string& ts) {
    return "[[placement]]\nrelation = \"public." + table +
           "\"\nstrategy = \"move\"\ntablespaces = [\"" + ts +
           "\"]\nonline = false\n";
  };
  // jpriv_ts exists where the plan says.
  const std::string existing =
      "[[tablespace]]\nname = \"jpriv_ts\"\npath = \"" + dir + "\"\n";
  const std::string refused = WriteTempFile(
      "jpriv-refused.toml",
      existing + "[[tablespace]]\nname = \"jpriv_new\"\npath = \"" + new_dir +
          "\"\n" + move("theirs", "pg_default") /* needs no CREATE */ +
          move("mine", "jpriv_ts") + move("mine2", "jpriv_new"));
  for (bool apply : {false, true}) {
    std::vector<std::string> args = {"migrate", refused, "--dsn",
                                     db.attacker_conninfo,
                                     "--no-checkpoint-guard"};
    if (apply) args.push_back("--apply");
    Completion run = RunPglayout(args);
    EXPECT_EQ(run.exit_code, 2) << Joined(args) << "\n" << run.output;
    for (const std::string& expected :
         {"public.theirs: role jpriv_app is neither its owner (" + superuser +
              ") nor a member of that role",
          std::string("tablespace jpriv_ts: role jpriv_app lacks CREATE on "
                      "it, needed to move public.mine there"),
          std::string("tablespace jpriv_new: CREATE TABLESPACE needs a "
                      "superuser; role jpriv_app is not one")}) {
      EXPECT_NE(run.output.find(expected), std::string::npos)
          << Joined(args) << " does not say \"" << expected << "\":\n"
          << run.output;
    }
    EXPECT_EQ(Value(super.get(),
                    "SELECT to_regnamespace('pglayout') IS NULL AND NOT "
                    "EXISTS (SELECT FROM pg_tablespace WHERE spcname = "
                    "'jpriv_new') AND (SELECT reltablespace FROM pg_class "
                    "WHERE oid = 'public.mine'::regclass) = 0"),
              "t")
        << "a refusal must change nothing";
  }

  // Granted CREATE on the tablespace, the role moves its own table.
  PGLAYOUT_ASSERT_OK(ExecuteSql(
      admin.get(),
      "GRANT CREATE ON TABLESPACE jpriv_ts TO " + QuoteIdent(db.role)));
  const std::string allowed =
      WriteTempFile("jpriv-allowed.toml", existing + move("mine", "jpriv_ts"));
  Completion moved =
      RunPglayout({"migrate", allowed, "--dsn", db.attacker_conninfo,
                   "--no-checkpoint-guard", "--apply"});
  EXPECT_EQ(moved.exit_code, 0) << moved.output;
  EXPECT_EQ(Value(super.get(),
                  "SELECT t.spcname FROM pg_class c JOIN pg_tablespace t ON "
                  "t.oid = c.reltablespace WHERE c.oid = "
                  "'public.mine'::regclass"),
            "jpriv_ts");
  EXPECT_EQ(Value(super.get(),
                  "SELECT pg_get_userbyid(nspowner) FROM pg_namespace WHERE "
                  "nspname = 'pglayout'"),
            db.role);
  // That schema is the role's: a superuser's command does not trust it.
  Completion status =
      RunPglayout({"migrate", "--status", "--dsn", db.superuser_conninfo});
  EXPECT_EQ(status.exit_code, 2) << status.output;
  EXPECT_NE(status.output.find("schema pglayout is owned by role jpriv_app"),
            std::string::npos)
      << status.output;
  EXPECT_TRUE(NoEscalation(cluster, db));
  PGLAYOUT_ASSERT_OK(
      ExecuteSql(super.get(), "DROP TABLE public.mine, public.theirs"));
  PGLAYOUT_ASSERT_OK(ExecuteSql(admin.get(), "DROP TABLESPACE jpriv_ts"));
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS_FROM_12(SecurityJournalTest);

}  // namespace
}  // namespace pglayout
