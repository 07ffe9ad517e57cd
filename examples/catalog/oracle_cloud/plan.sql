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

/* tablespace on volume data7 [outside a transaction] */
CREATE TABLESPACE "pglayout_data7" LOCATION '/mnt/data7';

/* I/O costs and concurrency of volume data7 */
ALTER TABLESPACE "pglayout_data7" SET ("effective_io_concurrency" = '20', "maintenance_io_concurrency" = '20', "random_page_cost" = '1.1', "seq_page_cost" = '1');

/* tablespace on volume data_stripe [outside a transaction] */
CREATE TABLESPACE "pglayout_data_stripe" LOCATION '/mnt/data_stripe/pg';

/* I/O costs and concurrency of volume data_stripe */
ALTER TABLESPACE "pglayout_data_stripe" SET ("effective_io_concurrency" = '120', "maintenance_io_concurrency" = '120', "random_page_cost" = '1.1', "seq_page_cost" = '1');

/* public.a: created on data_stripe: 73000 read + 444 write IOPS, 63% of it, 205 GiB */
-- [online] ALTER TABLE "public"."a" SET TABLESPACE "pglayout_data_stripe";

/* index public.a_pkey follows its table (built on the online copy) */
-- [online] ALTER INDEX "public"."a_pkey" SET TABLESPACE "pglayout_data_stripe";

/* public.audit_log: created on data_stripe: 100 read + 333 write IOPS, 0% of it, 25 GiB; no primary key or unique key, so it moves offline (ALTER ... SET TABLESPACE locks it while its files are copied) */
ALTER TABLE "public"."audit_log" SET TABLESPACE "pglayout_data_stripe";

/* public.b: created on data7: 800 read + 5778 write IOPS, 34% of it, 135 GiB */
-- [online] ALTER TABLE "public"."b" SET TABLESPACE "pglayout_data7";

/* index public.b_pkey follows its table (built on the online copy) */
-- [online] ALTER INDEX "public"."b_pkey" SET TABLESPACE "pglayout_data7";

/* public.c: created on data_stripe: 800 read + 5778 write IOPS, 6% of it, 124 GiB */
-- [online] ALTER TABLE "public"."c" SET TABLESPACE "pglayout_data_stripe";

/* index public.c_pkey follows its table (built on the online copy) */
-- [online] ALTER INDEX "public"."c_pkey" SET TABLESPACE "pglayout_data_stripe";

/* public.customers: created on data7: 2500 read + 556 write IOPS, 16% of it, 40 GiB */
-- [online] ALTER TABLE "public"."customers" SET TABLESPACE "pglayout_data7";

/* public.invoices: created on data_stripe: 1200 read + 556 write IOPS, 1% of it, 35 GiB */
-- [online] ALTER TABLE "public"."invoices" SET TABLESPACE "pglayout_data_stripe";

/* public.orders: created on data7: 2000 read + 889 write IOPS, 15% of it, 60 GiB */
-- [online] ALTER TABLE "public"."orders" SET TABLESPACE "pglayout_data7";

/* public.products: created on data7: 800 read + 56 write IOPS, 4% of it, 5 GiB */
-- [online] ALTER TABLE "public"."products" SET TABLESPACE "pglayout_data7";

/* max_wal_size was 4GB [outside a transaction] */
ALTER SYSTEM SET "max_wal_size" = '26GB';

/* min_wal_size [outside a transaction] */
ALTER SYSTEM SET "min_wal_size" = '6GB';

/* random_page_cost was 4 [outside a transaction] */
ALTER SYSTEM SET "random_page_cost" = '1.1';

/* effective_io_concurrency was 1 [outside a transaction] */
ALTER SYSTEM SET "effective_io_concurrency" = '20';

/* maintenance_io_concurrency was 10 [outside a transaction] */
ALTER SYSTEM SET "maintenance_io_concurrency" = '20';

/* apply what does not need a restart [outside a transaction] */
SELECT pg_catalog.pg_reload_conf();
