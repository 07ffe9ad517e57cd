-- pglayout plan.sql: the statements `pglayout migrate` runs, in order, for review.
-- Lines marked [online] are done by migrate's online engine (copy with change
-- capture, then a short swap) and are shown commented out: running this file
-- by hand never takes a long lock (nor creates what migrate will create).
-- [outside a transaction] statements cannot run inside BEGIN ... COMMIT.

-- tablespace on volume data1 [outside a transaction]
CREATE TABLESPACE "pglayout_data1" LOCATION '/mnt/data1';

-- I/O costs and concurrency of volume data1
ALTER TABLESPACE "pglayout_data1" SET ("effective_io_concurrency" = '24', "maintenance_io_concurrency" = '24', "random_page_cost" = '1.1', "seq_page_cost" = '1');

-- tablespace on volume data2 [outside a transaction]
CREATE TABLESPACE "pglayout_data2" LOCATION '/mnt/data2';

-- I/O costs and concurrency of volume data2
ALTER TABLESPACE "pglayout_data2" SET ("effective_io_concurrency" = '24', "maintenance_io_concurrency" = '24', "random_page_cost" = '1.1', "seq_page_cost" = '1');

-- tablespace on volume data3 [outside a transaction]
CREATE TABLESPACE "pglayout_data3" LOCATION '/mnt/data3';

-- I/O costs and concurrency of volume data3
ALTER TABLESPACE "pglayout_data3" SET ("effective_io_concurrency" = '24', "maintenance_io_concurrency" = '24', "random_page_cost" = '1.1', "seq_page_cost" = '1');

-- tablespace on volume data4 [outside a transaction]
CREATE TABLESPACE "pglayout_data4" LOCATION '/mnt/data4';

-- I/O costs and concurrency of volume data4
ALTER TABLESPACE "pglayout_data4" SET ("effective_io_concurrency" = '24', "maintenance_io_concurrency" = '24', "random_page_cost" = '1.1', "seq_page_cost" = '1');

-- tablespace on volume data5 [outside a transaction]
CREATE TABLESPACE "pglayout_data5" LOCATION '/mnt/data5';

-- I/O costs and concurrency of volume data5
ALTER TABLESPACE "pglayout_data5" SET ("effective_io_concurrency" = '24', "maintenance_io_concurrency" = '24', "random_page_cost" = '1.1', "seq_page_cost" = '1');

-- tablespace on volume data6 [outside a transaction]
CREATE TABLESPACE "pglayout_data6" LOCATION '/mnt/data6';

-- I/O costs and concurrency of volume data6
ALTER TABLESPACE "pglayout_data6" SET ("effective_io_concurrency" = '24', "maintenance_io_concurrency" = '24', "random_page_cost" = '1.1', "seq_page_cost" = '1');

-- public.audit_log: created on data5: 100 read + 333 write IOPS, 2% of it, 25 GiB
-- [online] ALTER TABLE "public"."audit_log" SET TABLESPACE "pglayout_data5";

-- public.b: created on data6: 800 read + 5778 write IOPS, 28% of it, 135 GiB
-- [online] ALTER TABLE "public"."b" SET TABLESPACE "pglayout_data6";

-- index public.b_pkey follows its table (built on the online copy)
-- [online] ALTER INDEX "public"."b_pkey" SET TABLESPACE "pglayout_data6";

-- public.customers: created on data6: 2500 read + 556 write IOPS, 13% of it, 40 GiB
-- [online] ALTER TABLE "public"."customers" SET TABLESPACE "pglayout_data6";

-- public.invoices: created on data6: 1200 read + 556 write IOPS, 7% of it, 35 GiB
-- [online] ALTER TABLE "public"."invoices" SET TABLESPACE "pglayout_data6";

-- public.orders: created on data6: 2000 read + 889 write IOPS, 12% of it, 60 GiB
-- [online] ALTER TABLE "public"."orders" SET TABLESPACE "pglayout_data6";

-- public.products: created on data5: 800 read + 56 write IOPS, 4% of it, 5 GiB
-- [online] ALTER TABLE "public"."products" SET TABLESPACE "pglayout_data5";

-- public.a: 5 hash partitions on (id), built online by migrate; <oid> is the table's oid, known at run time (`pglayout migrate plan.toml` prints the exact SQL)
-- [online] CREATE TABLE "public"."pglayout_new_<oid>" (LIKE "public"."a" INCLUDING ALL) PARTITION BY HASH ("id");

-- partition 0 and its indexes on pglayout_data1
-- [online] SET default_tablespace = 'pglayout_data1';

-- remainder 0 of 5
-- [online] CREATE TABLE "public"."a_p0" PARTITION OF "public"."pglayout_new_<oid>" FOR VALUES WITH (MODULUS 5, REMAINDER 0) TABLESPACE "pglayout_data1";

-- partition 1 and its indexes on pglayout_data2
-- [online] SET default_tablespace = 'pglayout_data2';

-- remainder 1 of 5
-- [online] CREATE TABLE "public"."a_p1" PARTITION OF "public"."pglayout_new_<oid>" FOR VALUES WITH (MODULUS 5, REMAINDER 1) TABLESPACE "pglayout_data2";

-- partition 2 and its indexes on pglayout_data3
-- [online] SET default_tablespace = 'pglayout_data3';

-- remainder 2 of 5
-- [online] CREATE TABLE "public"."a_p2" PARTITION OF "public"."pglayout_new_<oid>" FOR VALUES WITH (MODULUS 5, REMAINDER 2) TABLESPACE "pglayout_data3";

-- partition 3 and its indexes on pglayout_data4
-- [online] SET default_tablespace = 'pglayout_data4';

-- remainder 3 of 5
-- [online] CREATE TABLE "public"."a_p3" PARTITION OF "public"."pglayout_new_<oid>" FOR VALUES WITH (MODULUS 5, REMAINDER 3) TABLESPACE "pglayout_data4";

-- partition 4 and its indexes on pglayout_data5
-- [online] SET default_tablespace = 'pglayout_data5';

-- remainder 4 of 5
-- [online] CREATE TABLE "public"."a_p4" PARTITION OF "public"."pglayout_new_<oid>" FOR VALUES WITH (MODULUS 5, REMAINDER 4) TABLESPACE "pglayout_data5";

-- back to the database's default
-- [online] RESET default_tablespace;

-- copy every row with change capture; then, in one short transaction, the old table leaves for schema pglayout (kept until migrate --finalize) ...
-- [online] ALTER TABLE "public"."a" RENAME TO "old_<oid>";
-- [online] ALTER TABLE "public"."old_<oid>" SET SCHEMA pglayout;

-- ... and the partitioned table takes its name
-- [online] ALTER TABLE "public"."pglayout_new_<oid>" RENAME TO "a";

-- public.c: 5 hash partitions on (id), built online by migrate; <oid> is the table's oid, known at run time (`pglayout migrate plan.toml` prints the exact SQL)
-- [online] CREATE TABLE "public"."pglayout_new_<oid>" (LIKE "public"."c" INCLUDING ALL) PARTITION BY HASH ("id");

-- partition 0 and its indexes on pglayout_data6
-- [online] SET default_tablespace = 'pglayout_data6';

-- remainder 0 of 5
-- [online] CREATE TABLE "public"."c_p0" PARTITION OF "public"."pglayout_new_<oid>" FOR VALUES WITH (MODULUS 5, REMAINDER 0) TABLESPACE "pglayout_data6";

-- partition 1 and its indexes on pglayout_data1
-- [online] SET default_tablespace = 'pglayout_data1';

-- remainder 1 of 5
-- [online] CREATE TABLE "public"."c_p1" PARTITION OF "public"."pglayout_new_<oid>" FOR VALUES WITH (MODULUS 5, REMAINDER 1) TABLESPACE "pglayout_data1";

-- partition 2 and its indexes on pglayout_data2
-- [online] SET default_tablespace = 'pglayout_data2';

-- remainder 2 of 5
-- [online] CREATE TABLE "public"."c_p2" PARTITION OF "public"."pglayout_new_<oid>" FOR VALUES WITH (MODULUS 5, REMAINDER 2) TABLESPACE "pglayout_data2";

-- partition 3 and its indexes on pglayout_data3
-- [online] SET default_tablespace = 'pglayout_data3';

-- remainder 3 of 5
-- [online] CREATE TABLE "public"."c_p3" PARTITION OF "public"."pglayout_new_<oid>" FOR VALUES WITH (MODULUS 5, REMAINDER 3) TABLESPACE "pglayout_data3";

-- partition 4 and its indexes on pglayout_data4
-- [online] SET default_tablespace = 'pglayout_data4';

-- remainder 4 of 5
-- [online] CREATE TABLE "public"."c_p4" PARTITION OF "public"."pglayout_new_<oid>" FOR VALUES WITH (MODULUS 5, REMAINDER 4) TABLESPACE "pglayout_data4";

-- back to the database's default
-- [online] RESET default_tablespace;

-- copy every row with change capture; then, in one short transaction, the old table leaves for schema pglayout (kept until migrate --finalize) ...
-- [online] ALTER TABLE "public"."c" RENAME TO "old_<oid>";
-- [online] ALTER TABLE "public"."old_<oid>" SET SCHEMA pglayout;

-- ... and the partitioned table takes its name
-- [online] ALTER TABLE "public"."pglayout_new_<oid>" RENAME TO "c";

-- max_wal_size was 4GB [outside a transaction]
ALTER SYSTEM SET "max_wal_size" = '26GB';

-- min_wal_size [outside a transaction]
ALTER SYSTEM SET "min_wal_size" = '6GB';

-- random_page_cost was 4 [outside a transaction]
ALTER SYSTEM SET "random_page_cost" = '1.1';

-- effective_io_concurrency was 1 [outside a transaction]
ALTER SYSTEM SET "effective_io_concurrency" = '24';

-- maintenance_io_concurrency was 10 [outside a transaction]
ALTER SYSTEM SET "maintenance_io_concurrency" = '24';

-- apply what does not need a restart [outside a transaction]
SELECT pg_catalog.pg_reload_conf();
