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

/* tablespace on volume sdd [outside a transaction] */
CREATE TABLESPACE "pglayout_sdd" LOCATION '/mnt/sdd';

/* I/O costs and concurrency of volume sdd */
ALTER TABLESPACE "pglayout_sdd" SET ("effective_io_concurrency" = '24', "maintenance_io_concurrency" = '24', "random_page_cost" = '1.1', "seq_page_cost" = '1');

/* tablespace on volume sde [outside a transaction] */
CREATE TABLESPACE "pglayout_sde" LOCATION '/mnt/sde';

/* I/O costs and concurrency of volume sde */
ALTER TABLESPACE "pglayout_sde" SET ("effective_io_concurrency" = '24', "maintenance_io_concurrency" = '24', "random_page_cost" = '1.1', "seq_page_cost" = '1');

/* tablespace on volume sdf [outside a transaction] */
CREATE TABLESPACE "pglayout_sdf" LOCATION '/mnt/sdf';

/* I/O costs and concurrency of volume sdf */
ALTER TABLESPACE "pglayout_sdf" SET ("effective_io_concurrency" = '24', "maintenance_io_concurrency" = '24', "random_page_cost" = '1.1', "seq_page_cost" = '1');

/* tablespace on volume sdg [outside a transaction] */
CREATE TABLESPACE "pglayout_sdg" LOCATION '/mnt/sdg';

/* I/O costs and concurrency of volume sdg */
ALTER TABLESPACE "pglayout_sdg" SET ("effective_io_concurrency" = '24', "maintenance_io_concurrency" = '24', "random_page_cost" = '1.1', "seq_page_cost" = '1');

/* tablespace on volume sdh [outside a transaction] */
CREATE TABLESPACE "pglayout_sdh" LOCATION '/mnt/sdh';

/* I/O costs and concurrency of volume sdh */
ALTER TABLESPACE "pglayout_sdh" SET ("effective_io_concurrency" = '24', "maintenance_io_concurrency" = '24', "random_page_cost" = '1.1', "seq_page_cost" = '1');

/* public.b: from sdb to sdh: 800 read + 5778 write IOPS, 27% of it, 135 GiB */
-- [online] ALTER TABLE "public"."b" SET TABLESPACE "pglayout_sdh";

/* index public.b_pkey follows its table (built on the online copy) */
-- [online] ALTER INDEX "public"."b_pkey" SET TABLESPACE "pglayout_sdh";

/* public.a: 9 hash partitions on (id), built online by migrate; <oid> is the table's oid, known at run time (`pglayout migrate plan.toml` prints the exact SQL) */
-- [online] CREATE TABLE "public"."pglayout_new_<oid>" (LIKE "public"."a" INCLUDING ALL) PARTITION BY HASH ("id");

/* partition 0 and its indexes on pglayout_sdd */
-- [online] SET default_tablespace = 'pglayout_sdd';

/* remainder 0 of 9 */
-- [online] CREATE TABLE "public"."a_p0" PARTITION OF "public"."pglayout_new_<oid>" FOR VALUES WITH (MODULUS 9, REMAINDER 0) TABLESPACE "pglayout_sdd";

/* partition 1 and its indexes on pglayout_sde */
-- [online] SET default_tablespace = 'pglayout_sde';

/* remainder 1 of 9 */
-- [online] CREATE TABLE "public"."a_p1" PARTITION OF "public"."pglayout_new_<oid>" FOR VALUES WITH (MODULUS 9, REMAINDER 1) TABLESPACE "pglayout_sde";

/* partition 2 and its indexes on pglayout_sdf */
-- [online] SET default_tablespace = 'pglayout_sdf';

/* remainder 2 of 9 */
-- [online] CREATE TABLE "public"."a_p2" PARTITION OF "public"."pglayout_new_<oid>" FOR VALUES WITH (MODULUS 9, REMAINDER 2) TABLESPACE "pglayout_sdf";

/* partition 3 and its indexes on pglayout_sdg */
-- [online] SET default_tablespace = 'pglayout_sdg';

/* remainder 3 of 9 */
-- [online] CREATE TABLE "public"."a_p3" PARTITION OF "public"."pglayout_new_<oid>" FOR VALUES WITH (MODULUS 9, REMAINDER 3) TABLESPACE "pglayout_sdg";

/* partition 4 and its indexes on pglayout_sdh */
-- [online] SET default_tablespace = 'pglayout_sdh';

/* remainder 4 of 9 */
-- [online] CREATE TABLE "public"."a_p4" PARTITION OF "public"."pglayout_new_<oid>" FOR VALUES WITH (MODULUS 9, REMAINDER 4) TABLESPACE "pglayout_sdh";

/* partition 5 and its indexes on pglayout_sdd */
-- [online] SET default_tablespace = 'pglayout_sdd';

/* remainder 5 of 9 */
-- [online] CREATE TABLE "public"."a_p5" PARTITION OF "public"."pglayout_new_<oid>" FOR VALUES WITH (MODULUS 9, REMAINDER 5) TABLESPACE "pglayout_sdd";

/* partition 6 and its indexes on pglayout_sde */
-- [online] SET default_tablespace = 'pglayout_sde';

/* remainder 6 of 9 */
-- [online] CREATE TABLE "public"."a_p6" PARTITION OF "public"."pglayout_new_<oid>" FOR VALUES WITH (MODULUS 9, REMAINDER 6) TABLESPACE "pglayout_sde";

/* partition 7 and its indexes on pglayout_sdf */
-- [online] SET default_tablespace = 'pglayout_sdf';

/* remainder 7 of 9 */
-- [online] CREATE TABLE "public"."a_p7" PARTITION OF "public"."pglayout_new_<oid>" FOR VALUES WITH (MODULUS 9, REMAINDER 7) TABLESPACE "pglayout_sdf";

/* partition 8 and its indexes on pglayout_sdg */
-- [online] SET default_tablespace = 'pglayout_sdg';

/* remainder 8 of 9 */
-- [online] CREATE TABLE "public"."a_p8" PARTITION OF "public"."pglayout_new_<oid>" FOR VALUES WITH (MODULUS 9, REMAINDER 8) TABLESPACE "pglayout_sdg";

/* back to the database's default */
-- [online] RESET default_tablespace;

/* copy every row with change capture; then, in one short transaction, the old table leaves for schema pglayout (kept until migrate --finalize) ... */
-- [online] ALTER TABLE "public"."a" RENAME TO "old_<oid>";
-- [online] ALTER TABLE "public"."old_<oid>" SET SCHEMA pglayout;

/* ... and the partitioned table takes its name */
-- [online] ALTER TABLE "public"."pglayout_new_<oid>" RENAME TO "a";

/* max_wal_size was 4GB [outside a transaction] */
ALTER SYSTEM SET "max_wal_size" = '26GB';

/* min_wal_size [outside a transaction] */
ALTER SYSTEM SET "min_wal_size" = '6GB';

/* random_page_cost was 4 [outside a transaction] */
ALTER SYSTEM SET "random_page_cost" = '1.1';

/* effective_io_concurrency was 1 [outside a transaction] */
ALTER SYSTEM SET "effective_io_concurrency" = '24';

/* maintenance_io_concurrency was 10 [outside a transaction] */
ALTER SYSTEM SET "maintenance_io_concurrency" = '24';

/* apply what does not need a restart [outside a transaction] */
SELECT pg_catalog.pg_reload_conf();
