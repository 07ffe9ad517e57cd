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

/* tablespace on volume data_stripe [outside a transaction] */
CREATE TABLESPACE "pglayout_data_stripe" LOCATION '/mnt/data_stripe/pg';

/* I/O costs and concurrency of volume data_stripe */
ALTER TABLESPACE "pglayout_data_stripe" SET ("effective_io_concurrency" = '120', "maintenance_io_concurrency" = '120', "random_page_cost" = '0.28', "seq_page_cost" = '0.25');

/* public.a: from sdb to data_stripe: 73000 read + 444 write IOPS, 60% of it, 205 GiB */
-- [online] ALTER TABLE "public"."a" SET TABLESPACE "pglayout_data_stripe";

/* index public.a_pkey follows its table (built on the online copy) */
-- [online] ALTER INDEX "public"."a_pkey" SET TABLESPACE "pglayout_data_stripe";

/* public.audit_log: from sdb to data_stripe: 100 read + 333 write IOPS, 0% of it, 25 GiB; no primary key or unique key, so it moves offline (ALTER ... SET TABLESPACE locks it while its files are copied) */
ALTER TABLE "public"."audit_log" SET TABLESPACE "pglayout_data_stripe";

/* public.customers: from sdb to data_stripe: 2500 read + 556 write IOPS, 3% of it, 40 GiB */
-- [online] ALTER TABLE "public"."customers" SET TABLESPACE "pglayout_data_stripe";

/* public.orders: from sdb to data_stripe: 2000 read + 889 write IOPS, 2% of it, 60 GiB */
-- [online] ALTER TABLE "public"."orders" SET TABLESPACE "pglayout_data_stripe";

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
