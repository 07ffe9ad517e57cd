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

/* max_wal_size was 1GB [outside a transaction] */
ALTER SYSTEM SET "max_wal_size" = '9GB';

/* min_wal_size was 80MB [outside a transaction] */
ALTER SYSTEM SET "min_wal_size" = '2GB';

/* effective_io_concurrency was 1 [outside a transaction] */
ALTER SYSTEM SET "effective_io_concurrency" = '2';

/* apply what does not need a restart [outside a transaction] */
SELECT pg_catalog.pg_reload_conf();
