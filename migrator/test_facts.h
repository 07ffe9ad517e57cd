// The server, tables and plans the migrator's unit tests start from, each
// test changing what it is about.

#ifndef PGLAYOUT_MIGRATOR_TEST_FACTS_H_
#define PGLAYOUT_MIGRATOR_TEST_FACTS_H_

#include <string>
#include <vector>

#include "common/model.h"
#include "migrator/facts.h"

namespace pglayout::migrator::fixtures {

// A PostgreSQL |version| server: the running role a superuser, data in
// /pg/data, the empty directory /vol/a, max_wal_size 1024 MB.
ServerFacts Server(int version = 150000);
// public.orders (oid 16384, owner app): id bigint (the primary key),
// customer integer (indexed), email text; 800 MiB heap, 200 MiB indexes.
TableFacts Orders();
// public.orders into 2 hash partitions on id over tablespaces a (new, at
// /vol/a) and pg_default, and work_mem = 64MB.
Plan HashPlan();
// public.orders as the partition of public.sales for 2024, which has a
// foreign key from its parent and a DEFAULT partition beside it.
TableFacts SalesPartition();
// HashPlan as a move of public.orders to tablespace a, no settings.
Plan MovePlan();

// Names an application may give its objects that the SQL must survive: a
// double quote, a backslash, a newline, mixed case, and 63 bytes (the
// longest PostgreSQL keeps; one of ASCII, one ending in two-byte
// characters). Each holds "Zq", which pglayout's own SQL never does.
std::vector<std::string> HostileNames();
// |prefix| + |name| cut to 63 bytes: another object's name from the same
// hostile name ("S" for its schema, "K" for its key column...).
std::string Prefixed(const std::string& prefix, const std::string& name);
// Orders() with every name made from |name|: schema S<name>, table <name>,
// columns K<name> (the key) and C<name>, indexes P<name> (the primary key)
// and I<name>, owner O<name>; index definitions as the server prints them.
TableFacts HostileTable(const std::string& name);

// What the lexer of PostgreSQL sees in |sql|: the quoted identifiers
// ("a""b" -> a"b) and the text outside identifiers, string literals
// ('...', E'...') and -- comments, where no name may ever appear.
struct SqlWords {
  std::vector<std::string> identifiers;
  std::string outside;
};
SqlWords SplitSqlWords(const std::string& sql);
// Empty when each statement of |sql| has no "Zq" (any case) outside
// quotes and no identifier over 63 bytes; otherwise what is wrong, with the
// statement.
std::string HostileNameProblems(const std::vector<std::string>& sql);

}  // namespace pglayout::migrator::fixtures

#endif  // PGLAYOUT_MIGRATOR_TEST_FACTS_H_
