// The server, tables and plans the migrator's unit tests start from, each
// test changing what it is about.

#ifndef PGLAYOUT_MIGRATOR_TEST_FACTS_H_
#define PGLAYOUT_MIGRATOR_TEST_FACTS_H_

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

}  // namespace pglayout::migrator::fixtures

#endif  // PGLAYOUT_MIGRATOR_TEST_FACTS_H_
