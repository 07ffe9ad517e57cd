/* pglayout plan.sql: the statements `pglayout migrate` runs, in order,
   for review. Lines marked [online] are done by migrate's online engine
   (copy with change capture, then a short swap) and are shown commented
   out: running this file by hand never takes a long lock (nor creates
   what migrate will create). [outside a transaction] statements cannot
   run inside BEGIN ... COMMIT. Notes are block comments, which stay
   comments whatever is uncommented; they show a line break or control
   character in a name as \n, \xNN. */

/* The literals below mean what they say whatever the database's default. */
SET standard_conforming_strings = on;

/* max_wal_size was 16GB [outside a transaction] */
ALTER SYSTEM SET "max_wal_size" = '41GB';

/* min_wal_size was 4GB [outside a transaction] */
ALTER SYSTEM SET "min_wal_size" = '10GB';

/* random_page_cost was 4 [outside a transaction] */
ALTER SYSTEM SET "random_page_cost" = '1.1';

/* effective_io_concurrency was 16 [outside a transaction] */
ALTER SYSTEM SET "effective_io_concurrency" = '83';

/* maintenance_io_concurrency was 16 [outside a transaction] */
ALTER SYSTEM SET "maintenance_io_concurrency" = '83';

/* io_max_combine_limit was 128kB [outside a transaction] [needs a restart] */
ALTER SYSTEM SET "io_max_combine_limit" = '1MB';

/* io_combine_limit was 128kB [outside a transaction] */
ALTER SYSTEM SET "io_combine_limit" = '1MB';

/* io_workers was 3 [outside a transaction] */
ALTER SYSTEM SET "io_workers" = '16';

/* apply what does not need a restart [outside a transaction] */
SELECT pg_catalog.pg_reload_conf();
