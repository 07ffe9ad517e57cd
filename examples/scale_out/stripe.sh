#!/bin/sh
## pglayout stripe.sh: commands for a person to review, adapt and run as root.
## pglayout never runs them. Every command is commented out on purpose ("# "):
## uncomment one at a time, after checking the device names. Lines starting
## with "##" are notes.
exit 0

## --- tablespace directories: must exist, be empty and belong to postgres
# install -d -o postgres -g postgres -m 700 '/mnt/sdd'    ## pglayout_sdd on sdd
# install -d -o postgres -g postgres -m 700 '/mnt/sde'    ## pglayout_sde on sde
# install -d -o postgres -g postgres -m 700 '/mnt/sdf'    ## pglayout_sdf on sdf
# install -d -o postgres -g postgres -m 700 '/mnt/sdg'    ## pglayout_sdg on sdg
# install -d -o postgres -g postgres -m 700 '/mnt/sdh'    ## pglayout_sdh on sdh

## --- WAL on sdc (lowest commit latency (600 us per 8 KiB write + fdatasync); alone, so commits never queue behind data reads and checkpoint writes; WAL keeps it 8% busy (3000 commits/s, each counted as a WAL flush: the workload has no count of the server's flushes)). Skip if pg_wal is already a link there.
## A new cluster: initdb --waldir='/mnt/sdc/pg_wal'
## An existing one (a short outage):
# pg_ctl stop -D '/mnt/sdb/pgdata' -m fast
# mv '/mnt/sdb/pgdata'/pg_wal '/mnt/sdc/pg_wal' && ln -s '/mnt/sdc/pg_wal' '/mnt/sdb/pgdata'/pg_wal
# pg_ctl start -D '/mnt/sdb/pgdata'
