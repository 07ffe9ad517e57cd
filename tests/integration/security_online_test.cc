// Code of other roles (docs/security.md#code-of-other-roles): the owner of
// a table (and of its database and schema) hides the trap of attacker.h in
// what an online move, a hash conversion or a partition move evaluates, or
// hangs it on the shadow while the run is in progress; the superuser's
// `migrate --apply` must never run it. After each attack the role is not a
// superuser and no marker file exists, and the run either refused before
// changing anything (no tablespace made, no shadow left), naming the
// object, the function and its owner, or completed with the table's
// structure fingerprint unchanged.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "common/files.h"
#include "migrator/migrator.h"
#include "pg/sql.h"
#include "testing/pg_test.h"
#include "tests/integration/attacker.h"
#include "tests/integration/structure_fingerprint.h"

namespace pglayout {
namespace {

std::string TomlString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// One attacked database: the attacker's session, the superuser's, and the
// tablespace a plan would make (its name is the cluster's, so per test).
struct Attack {
  AttackerDatabase db;
  std::unique_ptr<SqlSession> attacker, super;
  std::string tablespace, dir;
};

// The attacker's trap, public.trap(), and an IMMUTABLE wrapper
// public.wrap(int) that calls it and returns its argument: what an index
// expression or a generated column may call.
void Prepare(PgCluster* cluster, const std::string& tag, Attack* a) {
  PGLAYOUT_ASSERT_OK(MakeAttackerDatabase(cluster, tag, &a->db));
  PGLAYOUT_ASSERT_OK(
      OpenPgSession(a->db.attacker_conninfo, "attacker", &a->attacker));
  PGLAYOUT_ASSERT_OK(OpenPgSession(a->db.superuser_conninfo, "dba", &a->super));
  PGLAYOUT_ASSERT_OK(ExecuteSql(
      a->attacker.get(),
      "CREATE FUNCTION public.trap() RETURNS int LANGUAGE plpgsql VOLATILE "
      "AS " +
          QuoteLiteral(EscalationBody(a->db, "1")) +
          "; CREATE FUNCTION public.wrap(x int) RETURNS int LANGUAGE plpgsql "
          "IMMUTABLE AS 'BEGIN PERFORM public.trap(); RETURN x; END'"));
  a->tablespace = tag + "_ts";
  PGLAYOUT_ASSERT_OK(cluster->MakeDirectory(a->tablespace, &a->dir));
}

std::string TablespaceToml(const Attack& a) {
  return "[[tablespace]]\nname = " + TomlString(a.tablespace) +
         "\npath = " + TomlString(a.dir) + "\n";
}

std::string MoveToml(const Attack& a, const std::string& relation) {
  return TablespaceToml(a) +
         "[[placement]]\nrelation = " + TomlString(relation) +
         "\nstrategy = \"move\"\ntablespaces = [" + TomlString(a.tablespace) +
         "]\n";
}

std::string HashToml(const Attack& a, const std::string& relation) {
  return TablespaceToml(a) +
         "[[placement]]\nrelation = " + TomlString(relation) +
         "\nstrategy = \"hash_partition\"\ntablespaces = [" +
         TomlString(a.tablespace) +
         ", \"pg_default\"]\npartitions = 2\nkey = [\"id\"]\n";
}

migrator::MigrateOptions Options(const Attack& a) {
  migrator::MigrateOptions options;
  options.conninfo = a.db.superuser_conninfo;
  options.apply = true;
  options.checkpoint_guard = false;
  options.throttle = migrator::ThrottleMode::kOff;
  options.batch_rows = 500;
  return options;
}

Status Migrate(const std::string& toml,
               const migrator::MigrateOptions& options) {
  Plan plan;
  PGLAYOUT_RETURN_IF_ERROR(ParsePlan(toml, "plan.toml", &plan));
  migrator::MigrateResult report;
  return migrator::Migrate(plan, options, nullptr, &report);
}

// The run refused before it changed anything, naming |what|.
void ExpectRefused(const Attack& a, const Status& st,
                   const std::vector<std::string>& what) {
  EXPECT_EQ(st.code(), Status::Code::kInvalidInput) << st.ToString();
  for (const std::string& w : what) {
    EXPECT_NE(st.message().find(w), std::string::npos)
        << "names " << w << ": " << st.message();
  }
  EXPECT_EQ(Value(a.super.get(),
                  "SELECT count(*) FROM pg_catalog.pg_tablespace WHERE "
                  "spcname = $1",
                  {a.tablespace}),
            "0");
  EXPECT_EQ(Value(a.super.get(),
                  "SELECT count(*) FROM pg_catalog.pg_class WHERE relname "
                  "LIKE 'pglayout\\_new\\_%'"),
            "0");
}

class SecurityOnlineTest : public PgVersionTest {};

// The attacker's table t (id, v) with |rows| rows (v = id), and |extra|
// (its attack) run by the attacker. With |partition| t is the partition
// of public.pt that holds every row.
void MakeTable(Attack* a, const std::string& extra, int rows = 2000,
               bool partition = false) {
  const std::string table =
      partition ? "CREATE TABLE public.pt (id int NOT NULL, v int NOT NULL) "
                  "PARTITION BY RANGE (id); CREATE TABLE public.t PARTITION "
                  "OF public.pt FOR VALUES FROM (0) TO (1000000); ALTER "
                  "TABLE public.t ADD PRIMARY KEY (id); "
                : "CREATE TABLE public.t (id int PRIMARY KEY, v int NOT "
                  "NULL); ";
  PGLAYOUT_ASSERT_OK(
      ExecuteSql(a->attacker.get(),
                 table +
                     fmt::format("INSERT INTO public.t SELECT g, g FROM "
                                 "pg_catalog.generate_series(1, {}) g; ",
                                 rows) +
                     extra));
}

// The three ways a table is copied into a shadow.
enum class Copy { kMove, kHash, kPartition };

const char* CopyName(Copy copy) {
  return copy == Copy::kMove   ? "move"
         : copy == Copy::kHash ? "hash conversion"
                               : "partition move";
}

// Rows enough for several copy batches of Options()'s 500 rows (a
// block-range batch of an unanalyzed table takes 10 heap blocks, about
// 2000 rows), so that the attack between the first two lands before
// the copy is over.
constexpr int kManyRows = 20000;
// sum(v) of them, as MakeTable made them.
constexpr char kManyRowsSum[] = "20000 200010000";

// The attacker's own writes (v stays v): their keys come back by replay,
// which inserts into the shadow.
constexpr char kTouchRows[] = "UPDATE public.t SET v = v WHERE id % 100 = 0";

// Each attack hidden in what copying the rows evaluates, refused for the
// online move and the hash conversion, naming the object and the function.
struct Hidden {
  const char* tag;
  const char* sql;     // run by the attacker after MakeTable
  const char* object;  // what the refusal names
};

const Hidden kHidden[] = {
    {"idx_expr", "CREATE INDEX t_w ON public.t ((public.wrap(v)))",
     "index t_w"},
    {"idx_pred", "CREATE INDEX t_p ON public.t (v) WHERE public.wrap(v) > 0",
     "index t_p"},
    {"check",
     "ALTER TABLE public.t ADD CONSTRAINT t_c CHECK (public.wrap(v) > 0)",
     "constraint t_c"},
    {"generated",
     "ALTER TABLE public.t ADD COLUMN g int GENERATED ALWAYS AS "
     "(public.wrap(v)) STORED",
     "generated column g"},
    // Not evaluated when the copy gives every column, nor a domain's CHECK
    // for a value of the column's own type; refused all the same.
    {"default", "ALTER TABLE public.t ADD COLUMN d int DEFAULT public.wrap(1)",
     "default of column d"},
    {"domain",
     "CREATE DOMAIN public.dw AS int CHECK (public.wrap(VALUE) > 0); "
     "ALTER TABLE public.t ADD COLUMN w public.dw DEFAULT 1",
     "of domain public.dw (column w)"},
    // The domain of the key: the cursor of a copy in key order casts the
    // last key copied to it ($1::public.dk), which evaluates the CHECK.
    {"domain_key",
     "CREATE DOMAIN public.dk AS int CHECK (public.wrap(VALUE) > 0); "
     "ALTER TABLE public.t ALTER COLUMN id TYPE public.dk",
     "of domain public.dk (column id)"},
    // Through an operator whose function is the attacker's.
    {"operator",
     "CREATE FUNCTION public.gt(a int, b int) RETURNS bool LANGUAGE plpgsql "
     "IMMUTABLE AS 'BEGIN PERFORM public.trap(); RETURN a > b; END'; "
     "CREATE OPERATOR public.>>> (LEFTARG = int, RIGHTARG = int, FUNCTION = "
     "public.gt); ALTER TABLE public.t ADD CONSTRAINT t_o CHECK (v "
     "OPERATOR(public.>>>) 0)",
     "constraint t_o"},
};

TEST_P(SecurityOnlineTest, CodeOfTheOwnerIsRefusedBeforeAnythingChanges) {
  PgCluster* cluster = nullptr;
  PGLAYOUT_ASSERT_OK(SharedCluster(&cluster));
  for (const Hidden& h : kHidden) {
    SCOPED_TRACE(h.tag);
    Attack a;
    Prepare(cluster, std::string("so_") + h.tag, &a);
    MakeTable(&a, h.sql);
    std::vector<std::string> before;
    PGLAYOUT_ASSERT_OK(TableFingerprint(a.super.get(), "public.t", &before));
    const std::string function = std::string(h.tag) == "operator"
                                     ? "public.gt(integer,integer)"
                                     : "public.wrap(integer)";
    // In key order on every version: the cursor's casts.
    migrator::MigrateOptions options = Options(a);
    options.copy_by_blocks = false;
    ExpectRefused(a, Migrate(MoveToml(a, "public.t"), options),
                  {"public.t", h.object, function, a.db.role, "online = false",
                   "ALTER FUNCTION"});
    ExpectRefused(a, Migrate(HashToml(a, "public.t"), options),
                  {h.object, function, "hash conversion"});
    EXPECT_TRUE(NoEscalation(cluster, a.db));
    // The offline move copies files and evaluates nothing: allowed.
    std::string offline = MoveToml(a, "public.t") + "online = false\n";
    PGLAYOUT_EXPECT_OK(Migrate(offline, Options(a)));
    EXPECT_TRUE(NoEscalation(cluster, a.db)) << "the offline move";
    std::vector<std::string> after;
    PGLAYOUT_ASSERT_OK(TableFingerprint(a.super.get(), "public.t", &after));
    EXPECT_EQ(FingerprintDiff(before, after), "");
  }
}

// A partition whose parent's partition key calls the trap (the moved
// partition's copy checks its bound, which evaluates the key), and one
// whose own CHECK constraint does.
TEST_P(SecurityOnlineTest, CodeOfTheOwnerRefusesAPartitionMove) {
  PgCluster* cluster = nullptr;
  PGLAYOUT_ASSERT_OK(SharedCluster(&cluster));
  Attack a;
  Prepare(cluster, "so_partkey", &a);
  PGLAYOUT_ASSERT_OK(ExecuteSql(
      a.attacker.get(),
      "CREATE TABLE public.pt (id int NOT NULL, v int) PARTITION BY RANGE "
      "((public.wrap(id))); CREATE TABLE public.pt_1 PARTITION OF public.pt "
      "FOR VALUES FROM (0) TO (100000); ALTER TABLE public.pt_1 ADD PRIMARY "
      "KEY (id); INSERT INTO public.pt SELECT g, g FROM "
      "pg_catalog.generate_series(1, 1000) g"));
  ExpectRefused(a, Migrate(MoveToml(a, "public.pt_1"), Options(a)),
                {"public.pt_1", "the partition key of public.pt",
                 "public.wrap(integer)", "partition move"});
  EXPECT_TRUE(NoEscalation(cluster, a.db));
  // A CHECK constraint of the partition itself.
  PGLAYOUT_ASSERT_OK(ExecuteSql(
      a.attacker.get(),
      "CREATE TABLE public.q (id int NOT NULL, v int) PARTITION BY RANGE "
      "(id); CREATE TABLE public.q_1 PARTITION OF public.q FOR VALUES FROM "
      "(0) TO (100000); ALTER TABLE public.q_1 ADD PRIMARY KEY (id), ADD "
      "CONSTRAINT q_c CHECK (public.wrap(v) > 0); INSERT INTO public.q "
      "SELECT g, g FROM pg_catalog.generate_series(1, 1000) g"));
  ExpectRefused(a, Migrate(MoveToml(a, "public.q_1"), Options(a)),
                {"public.q_1", "constraint q_c", "public.wrap(integer)",
                 "partition move", "online = false"});
  EXPECT_TRUE(NoEscalation(cluster, a.db));
}

// The attack on the shadow: the attacker's table of kManyRows rows (the
// partition of public.pt that holds them for a partition move) with
// public.fire(), a trigger function that calls the trap, and its
// fingerprint before the run.
void PrepareShadowAttack(PgCluster* cluster, const std::string& tag, Copy copy,
                         Attack* a, std::vector<std::string>* before) {
  Prepare(cluster, tag, a);
  MakeTable(a,
            "CREATE FUNCTION public.fire() RETURNS trigger LANGUAGE plpgsql "
            "AS 'BEGIN PERFORM public.trap(); RETURN NEW; END'",
            kManyRows, copy == Copy::kPartition);
  PGLAYOUT_ASSERT_OK(TableFingerprint(a->super.get(), "public.t", before));
}

// After the run completed: every row, and the table's structure as it was
// (a hash conversion makes it partitioned: no trigger on any part of it).
void ExpectTableKept(const Attack& a, Copy copy,
                     const std::vector<std::string>& before) {
  EXPECT_EQ(
      Value(a.super.get(), "SELECT count(*) || ' ' || sum(v) FROM public.t"),
      kManyRowsSum);
  if (copy == Copy::kHash) {
    EXPECT_EQ(Value(a.super.get(),
                    "SELECT count(*) FROM pg_catalog.pg_trigger WHERE "
                    "tgrelid IN (SELECT relid FROM "
                    "pg_catalog.pg_partition_tree('public.t'))"),
              "0");
    return;
  }
  std::vector<std::string> after;
  PGLAYOUT_ASSERT_OK(TableFingerprint(a.super.get(), "public.t", &after));
  EXPECT_EQ(FingerprintDiff(before, after), "");
}

// The shadow of a run in progress, as the attacker can name it.
std::string Shadow(const Attack& a) {
  return "public.pglayout_new_" +
         Value(a.super.get(), "SELECT 'public.t'::regclass::oid");
}

// While the copy runs (after its first batch), the attacker tries to hang
// an AFTER INSERT row trigger on the shadow (a BEFORE one is refused on a
// partitioned shadow on 12 anyway): the shadow is not theirs until
// the swap, so CREATE TRIGGER fails, and the run completes with nothing
// foreign carried over.
TEST_P(SecurityOnlineTest, ATriggerOnTheShadowCannotBeAdded) {
  PgCluster* cluster = nullptr;
  PGLAYOUT_ASSERT_OK(SharedCluster(&cluster));
  for (const Copy copy : {Copy::kMove, Copy::kHash, Copy::kPartition}) {
    SCOPED_TRACE(CopyName(copy));
    const bool hash = copy == Copy::kHash;
    Attack a;
    std::vector<std::string> before;
    PrepareShadowAttack(cluster,
                        fmt::format("so_trig_{}", static_cast<int>(copy)), copy,
                        &a, &before);
    if (HasFatalFailure()) return;
    const std::string shadow = Shadow(a);
    int tries = 0;
    Status attempt;
    migrator::MigrateOptions options = Options(a);
    options.failpoint = [&](const std::string& name) {
      if (name != "copy-batch:1:after-commit" || tries++ > 0) return;
      attempt = ExecuteSql(a.attacker.get(),
                           "CREATE TRIGGER evil AFTER INSERT ON " + shadow +
                               " FOR EACH ROW EXECUTE FUNCTION public.fire()");
      PGLAYOUT_EXPECT_OK(ExecuteSql(a.attacker.get(), kTouchRows));
    };
    PGLAYOUT_EXPECT_OK(Migrate(
        hash ? HashToml(a, "public.t") : MoveToml(a, "public.t"), options));
    EXPECT_EQ(tries, 1);
    EXPECT_FALSE(attempt.ok()) << "the attacker hung a trigger on " << shadow;
    // CREATE TRIGGER needs the TRIGGER privilege, which only the shadow's
    // owner (the running role) has.
    EXPECT_NE(attempt.message().find("permission denied"), std::string::npos)
        << attempt.message();
    EXPECT_TRUE(NoEscalation(cluster, a.db));
    ExpectTableKept(a, copy, before);
  }
}

// The attacker owns the schema, so it can drop the shadow and make its
// own under the same name, with a BEFORE INSERT trigger calling the trap:
// the next batch finds it, stops naming it (before writing to it), a
// resume stops again, and after --abort a new run converges with every
// row; for a move, a hash conversion and a partition move.
TEST_P(SecurityOnlineTest, AShadowMadeAgainStopsTheRun) {
  PgCluster* cluster = nullptr;
  PGLAYOUT_ASSERT_OK(SharedCluster(&cluster));
  for (const Copy copy : {Copy::kMove, Copy::kHash, Copy::kPartition}) {
    SCOPED_TRACE(CopyName(copy));
    const bool hash = copy == Copy::kHash;
    Attack a;
    std::vector<std::string> before;
    PrepareShadowAttack(cluster,
                        fmt::format("so_replace_{}", static_cast<int>(copy)),
                        copy, &a, &before);
    if (HasFatalFailure()) return;
    const std::string shadow = Shadow(a);
    const std::string plan =
        hash ? HashToml(a, "public.t") : MoveToml(a, "public.t");
    int tries = 0;
    Status replaced;
    migrator::MigrateOptions options = Options(a);
    options.failpoint = [&](const std::string& name) {
      if (name != "copy-batch:1:after-commit" || tries++ > 0) return;
      // A plain table, whatever the shadow was: DROP takes the partitions
      // of a partitioned one along.
      replaced = ExecuteSql(
          a.attacker.get(),
          "DROP TABLE " + shadow + "; CREATE TABLE " + shadow +
              " (LIKE public.t); CREATE TRIGGER evil BEFORE INSERT ON " +
              shadow + " FOR EACH ROW EXECUTE FUNCTION public.fire()");
    };
    Status st = Migrate(plan, options);
    PGLAYOUT_ASSERT_OK(replaced);
    EXPECT_EQ(st.code(), Status::Code::kAborted) << st.ToString();
    for (const std::string& w :
         {shadow.substr(std::string("public.").size()),
          "owned by role " + a.db.role, std::string("trigger evil")}) {
      EXPECT_NE(st.message().find(w), std::string::npos)
          << w << ": " << st.message();
    }
    EXPECT_TRUE(NoEscalation(cluster, a.db));

    // The same plan again stops the same way (resume re-checks).
    options.failpoint = nullptr;
    st = Migrate(plan, options);
    EXPECT_EQ(st.code(), Status::Code::kAborted) << st.ToString();
    EXPECT_TRUE(NoEscalation(cluster, a.db));

    migrator::MigrateOptions abort = options;
    abort.mode = migrator::MigrateMode::kAbort;
    PGLAYOUT_EXPECT_OK(Migrate(plan, abort));
    PGLAYOUT_EXPECT_OK(Migrate(plan, options));
    EXPECT_TRUE(NoEscalation(cluster, a.db));
    ExpectTableKept(a, copy, before);
  }
}

// The final check compares the swapped table's triggers with the ones it
// had when the run began: one that appears between the swap and the check
// (here the owner's own, on what is now its table again) fails it, named.
TEST_P(SecurityOnlineTest, TheFinalCheckNamesATriggerTheTableDidNotHave) {
  PgCluster* cluster = nullptr;
  PGLAYOUT_ASSERT_OK(SharedCluster(&cluster));
  Attack a;
  Prepare(cluster, "so_final", &a);
  MakeTable(&a,
            "CREATE FUNCTION public.fire() RETURNS trigger LANGUAGE plpgsql "
            "AS 'BEGIN PERFORM public.trap(); RETURN NEW; END'");
  migrator::MigrateOptions options = Options(a);
  Status added;
  options.failpoint = [&](const std::string& name) {
    if (!name.starts_with("after-swap:")) return;
    added = ExecuteSql(a.attacker.get(),
                       "CREATE TRIGGER evil AFTER INSERT ON public.t FOR EACH "
                       "ROW EXECUTE FUNCTION public.fire()");
  };
  Status st = Migrate(MoveToml(a, "public.t"), options);
  PGLAYOUT_ASSERT_OK(added);
  EXPECT_EQ(st.code(), Status::Code::kInternal) << st.ToString();
  EXPECT_NE(st.message().find("final check failed"), std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("CREATE TRIGGER evil"), std::string::npos)
      << st.message();
  EXPECT_TRUE(NoEscalation(cluster, a.db));
}

// The capture functions a move makes in schema pglayout (the capture one
// runs as the superuser who made it, SECURITY DEFINER) keep no EXECUTE for
// PUBLIC: a role given USAGE on the schema (as a DBA might, to read the
// journal) can neither call them nor hang them on a table of its own,
// where the capture function would write its rows' keys into the move's
// log as the superuser.
TEST_P(SecurityOnlineTest, TheCaptureFunctionsAreTheRunningRolesOnly) {
  PgCluster* cluster = nullptr;
  PGLAYOUT_ASSERT_OK(SharedCluster(&cluster));
  Attack a;
  Prepare(cluster, "so_capture_exec", &a);
  MakeTable(&a, "CREATE TABLE public.own (id int PRIMARY KEY, v int NOT NULL)",
            kManyRows);
  const std::string oid =
      Value(a.super.get(), "SELECT 'public.t'::regclass::oid");
  const std::string capture = "pglayout.capture_" + oid + "()";
  const std::string truncate = "pglayout.block_truncate_" + oid + "()";
  const std::string log = "pglayout.log_" + oid;
  int tries = 0;
  std::string logged_before, logged_after;
  Status hang, call_capture, call_truncate;
  migrator::MigrateOptions options = Options(a);
  options.failpoint = [&](const std::string& name) {
    if (name != "copy-batch:1:after-commit" || tries++ > 0) return;
    for (const std::string& f : {capture, truncate}) {
      EXPECT_EQ(Value(a.super.get(),
                      "SELECT pg_catalog.has_function_privilege($1, $2, "
                      "'EXECUTE')",
                      {a.db.role, f}),
                "f")
          << f;
    }
    PGLAYOUT_EXPECT_OK(ExecuteSql(
        a.super.get(), "GRANT USAGE ON SCHEMA pglayout TO " + a.db.role));
    logged_before = Value(a.super.get(), "SELECT count(*) FROM " + log);
    hang = ExecuteSql(a.attacker.get(),
                      "CREATE TRIGGER spy AFTER INSERT ON public.own FOR EACH "
                      "ROW EXECUTE FUNCTION " +
                          capture);
    PGLAYOUT_EXPECT_OK(ExecuteSql(a.attacker.get(),
                                  "INSERT INTO public.own SELECT g, g FROM "
                                  "pg_catalog.generate_series(1, 5) g"));
    call_capture = ExecuteSql(a.attacker.get(), "SELECT " + capture);
    call_truncate = ExecuteSql(a.attacker.get(), "SELECT " + truncate);
    logged_after = Value(a.super.get(), "SELECT count(*) FROM " + log);
    PGLAYOUT_EXPECT_OK(ExecuteSql(
        a.super.get(), "REVOKE USAGE ON SCHEMA pglayout FROM " + a.db.role));
  };
  PGLAYOUT_EXPECT_OK(Migrate(MoveToml(a, "public.t"), options));
  EXPECT_EQ(tries, 1);
  for (const Status* st : {&hang, &call_capture, &call_truncate}) {
    EXPECT_NE(st->message().find("permission denied for function"),
              std::string::npos)
        << st->ToString();
  }
  EXPECT_EQ(logged_after, logged_before)
      << "the attacker's rows went into the move's log";
  EXPECT_TRUE(NoEscalation(cluster, a.db));
  EXPECT_EQ(
      Value(a.super.get(), "SELECT count(*) || ' ' || sum(v) FROM public.t"),
      kManyRowsSum);
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS_FROM_12(SecurityOnlineTest);

}  // namespace
}  // namespace pglayout
