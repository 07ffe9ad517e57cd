#!/bin/sh
## pglayout stripe.sh: commands for a person to review, adapt and run as root.
## pglayout never runs them. Every command is commented out on purpose ("# "):
## uncomment one at a time, after checking the device names. Lines starting
## with "##" are notes.
exit 0

## --- WAL on wal (lowest commit latency (1500 us per 8 KiB write + fdatasync); alone, so commits never queue behind data reads and checkpoint writes; WAL keeps it 55% busy (1100 commits/s, each counted as a WAL flush: the workload has no count of the server's flushes)). Skip if pg_wal is already a link there.
## A new cluster: initdb --waldir='/mnt/wal/pg_wal'
## An existing one (a short outage):
# pg_ctl stop -D '/mnt/data/pgdata' -m fast
# mv '/mnt/data/pgdata'/pg_wal '/mnt/wal/pg_wal' && ln -s '/mnt/wal/pg_wal' '/mnt/data/pgdata'/pg_wal
# pg_ctl start -D '/mnt/data/pgdata'

## Nothing to prepare: this plan needs no stripe and no new tablespace.
