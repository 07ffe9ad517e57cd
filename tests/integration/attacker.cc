#include "tests/integration/attacker.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <memory>

#include "pg/sql.h"
#include "testing/pg_test.h"

namespace pglayout {

Status MakeAttackerDatabase(PgCluster* cluster, const std::string& tag,
                            AttackerDatabase* out) {
  out->role = tag + "_app";
  out->dbname = tag + "_db";
  out->marker = cluster->root_dir() + "/trap-fired-" + tag;
  out->superuser_conninfo = cluster->conninfo() + " dbname=" + out->dbname;
  out->attacker_conninfo = out->superuser_conninfo + " user=" + out->role;
  ::unlink(out->marker.c_str());
  std::unique_ptr<SqlSession> admin;
  PGLAYOUT_RETURN_IF_ERROR(cluster->Connect(&admin));
  const std::string role = QuoteIdent(out->role);
  const std::string db = QuoteIdent(out->dbname);
  for (const std::string& sql :
       {fmt::format("DROP DATABASE IF EXISTS {}", db),
        fmt::format("DROP ROLE IF EXISTS {}", role),
        fmt::format("CREATE ROLE {} LOGIN NOSUPERUSER", role),
        fmt::format("CREATE DATABASE {} OWNER {}", db, role)}) {
    PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(admin.get(), sql));
  }
  std::unique_ptr<SqlSession> in_db;
  PGLAYOUT_RETURN_IF_ERROR(OpenPgSessionAsConfigured(out->superuser_conninfo,
                                                     "pglayout-test", &in_db));
  return ExecuteSql(in_db.get(),
                    fmt::format("ALTER SCHEMA public OWNER TO {}", role));
}

std::string EscalationBody(const AttackerDatabase& db,
                           const std::string& return_value) {
  return fmt::format(
      "BEGIN "
      "IF (SELECT rolsuper FROM pg_catalog.pg_roles "
      "WHERE rolname = current_user) THEN "
      "BEGIN EXECUTE {}; EXCEPTION WHEN OTHERS THEN NULL; END; "
      "BEGIN EXECUTE {}; EXCEPTION WHEN OTHERS THEN NULL; END; "
      "END IF; "
      "RETURN {}; END",
      QuoteLiteral("COPY (SELECT 1) TO " + QuoteLiteral(db.marker)),
      QuoteLiteral("ALTER ROLE " + QuoteIdent(db.role) + " SUPERUSER"),
      return_value);
}

::testing::AssertionResult NoEscalation(PgCluster* cluster,
                                        const AttackerDatabase& db) {
  std::unique_ptr<SqlSession> admin;
  Status st = cluster->Connect(&admin);
  if (!st.ok()) {
    return ::testing::AssertionFailure() << "cannot check: " << st.message();
  }
  std::string super = Value(
      admin.get(),
      "SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = $1", {db.role});
  struct stat info;
  bool marker = ::stat(db.marker.c_str(), &info) == 0;
  if (super == "f" && !marker) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "the attacker's code ran with a superuser's privileges: " << db.role
         << " rolsuper = " << super
         << (marker ? ", and it wrote " + db.marker : std::string());
}

}  // namespace pglayout
