// The attacker of docs/security.md, for the security suites: an application
// role that owns a database (and so, on PostgreSQL 15+, its public schema;
// on 12 any role may create in public) and wants the superuser who runs
// pglayout to run its code. Each suite plants its own trap with
// EscalationBody(), runs a pglayout command as the superuser, then checks
// with NoEscalation() that the trap did not fire with the superuser's
// privileges.

#ifndef PGLAYOUT_TESTS_INTEGRATION_ATTACKER_H_
#define PGLAYOUT_TESTS_INTEGRATION_ATTACKER_H_

#include <gtest/gtest.h>

#include <string>

#include "common/status.h"
#include "testing/pg_cluster.h"

namespace pglayout {

struct AttackerDatabase {
  std::string role;    // LOGIN, NOSUPERUSER, owns |dbname|
  std::string dbname;  // created for the test
  // Where the trap writes (COPY ... TO, which only a superuser may) when it
  // runs with a superuser's privileges; it must not exist afterwards.
  std::string marker;
  std::string superuser_conninfo;  // to dbname as the cluster's superuser
  std::string attacker_conninfo;   // to dbname as |role|
};

// Creates role |tag|_app and database |tag|_db owned by it (both dropped
// first if a failed run left them), with public owned by the role on every
// version so that the attack is the same on 12, 15 and 18.
Status MakeAttackerDatabase(PgCluster* cluster, const std::string& tag,
                            AttackerDatabase* out);

// A PL/pgSQL block (no surrounding quotes) for the body of the attacker's
// VOLATILE function: when it runs with a superuser's privileges it writes
// the marker file and makes the role a superuser (each in a block of its
// own, so a read-only transaction still gets the file); as anyone else it
// does nothing, so that the command it hides in carries on. The block ends
// with RETURN |return_value|.
std::string EscalationBody(const AttackerDatabase& db,
                           const std::string& return_value);

// Succeeds when the role is still not a superuser and no marker file
// exists; otherwise says which of the two happened.
::testing::AssertionResult NoEscalation(PgCluster* cluster,
                                        const AttackerDatabase& db);

}  // namespace pglayout

#endif  // PGLAYOUT_TESTS_INTEGRATION_ATTACKER_H_
