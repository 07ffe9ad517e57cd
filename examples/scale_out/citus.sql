/* pglayout: a Citus distribution plan (docs/citus.md). Review it, then run it on the */
/* coordinator: psql -v ON_ERROR_STOP=1 -f citus.sql */
/* Why: one host falls short: the busiest data volume of the single-host plan would be at 167%, over the 70% target; over the target: instance at 202% (2019 MB/s needed, the instance allows 1000) */
/* 3 workers, 48 shards per distributed table (16 per worker x 3 workers: a multiple of the workers, so the shards spread evenly; 16 per worker lets the cluster double twice and keep at least two per worker (citus_rebalance_start moves whole shards), and at least 32, Citus's default). */

/* 1. The extension. Every node (coordinator and workers) needs */
/*    shared_preload_libraries = 'citus' and a restart first; create it in this */
/*    database on every worker too. */
/* The literals below mean what they say whatever the database's default. */
SET standard_conforming_strings = on;
CREATE EXTENSION IF NOT EXISTS citus;

/* 2. The workers: replace each placeholder host (.invalid never resolves) and port. */
/*    citus_add_node records the node in the metadata and copies the metadata to it; */
/*    it copies no table data and takes no lock on the tables. */
SELECT citus_add_node('worker1.invalid', 5432);
SELECT citus_add_node('worker2.invalid', 5432);
SELECT citus_add_node('worker3.invalid', 5432);

/* 4. Reference tables, referenced ones first. Each is copied whole to every */
/*    worker; writes to it wait (reads go on) until the copy ends. */
/* public.products: 5 GiB, small (5GiB at the horizon, at most 8GiB) and read-mostly (0 row changes/s, at most 10), referenced by public.orders: a copy on every worker joins locally with every shard */
SELECT create_reference_table('"public"."products"');

/* 5. Distributed tables, parents before children, each group's anchor first. */
/*    Each call blocks writes to its table (reads go on) while its rows are copied */
/*    into the shards on the workers; create_distributed_table_concurrently does it */
/*    without blocking writes (needs a replica identity; not in a transaction). */
/* co-location group 1 (id / a_id): public.a, public.b */
/*   by foreign key b_a_id_fkey (public.b -> public.a) */
/* public.a by id: copies 205 GiB into 48 shards; distributed by id, a column every unique key contains */
SELECT create_distributed_table('"public"."a"', 'id', colocate_with => 'none', shard_count => 48);
/* public.b by a_id: copies 135 GiB into 48 shards; follows public.a through its foreign key b_a_id_fkey: distributed by a_id, co-located with it */
SELECT create_distributed_table('"public"."b"', 'a_id', colocate_with => '"public"."a"');
/* co-location group 2 (id): public.c */
/* public.c by id: copies 124 GiB into 48 shards; distributed by id, a column every unique key contains */
SELECT create_distributed_table('"public"."c"', 'id', colocate_with => 'none', shard_count => 48);
/* co-location group 3 (id): public.customers */
/* public.customers by id: copies 40 GiB into 48 shards; distributed by id, a column every unique key contains */
SELECT create_distributed_table('"public"."customers"', 'id', colocate_with => 'none', shard_count => 48);
/* co-location group 4 (id): public.invoices */
/* public.invoices by id: copies 35 GiB into 48 shards; distributed by id, a column every unique key contains */
SELECT create_distributed_table('"public"."invoices"', 'id', colocate_with => 'none', shard_count => 48);
/* co-location group 5 (id): public.orders */
/* public.orders by id: copies 60 GiB into 48 shards; distributed by id, a column every unique key contains */
SELECT create_distributed_table('"public"."orders"', 'id', colocate_with => 'none', shard_count => 48);

/* 6. Local tables: they stay on the coordinator. */
/* public.audit_log: no column to distribute by: no primary key: give the hash key with --key TABLE=COLUMN[,...]; it stays on the coordinator */

/* Later, after adding workers: SELECT citus_rebalance_start(); moves shards to them. */
