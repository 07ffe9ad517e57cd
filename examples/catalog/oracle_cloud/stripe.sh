#!/bin/sh
# pglayout stripe.sh: commands for a person to review, adapt and run as root.
# pglayout never runs them. Every command is commented out on purpose:
# uncomment one at a time, after checking the device names.
exit 0

# --- tablespace directories: must exist, be empty and belong to postgres
# install -d -o postgres -g postgres -m 700 '/mnt/data1'    # pglayout_data1 on data1
# install -d -o postgres -g postgres -m 700 '/mnt/data2'    # pglayout_data2 on data2
# install -d -o postgres -g postgres -m 700 '/mnt/data3'    # pglayout_data3 on data3
# install -d -o postgres -g postgres -m 700 '/mnt/data4'    # pglayout_data4 on data4
# install -d -o postgres -g postgres -m 700 '/mnt/data5'    # pglayout_data5 on data5
# install -d -o postgres -g postgres -m 700 '/mnt/data6'    # pglayout_data6 on data6

# --- WAL on wal (sized for the WAL by capacity planning (1200 us per 8 KiB write + fdatasync); alone, so commits never queue behind data reads and checkpoint writes; WAL keeps it 69% busy (3000 commits/s, each counted as a WAL flush: the workload has no count of the server's flushes)). Skip if pg_wal is already a link there.
# A new cluster: initdb --waldir='/mnt/wal/pg_wal'
# An existing one (a short outage):
# pg_ctl stop -D '/mnt/sdb/pgdata' -m fast
# mv '/mnt/sdb/pgdata'/pg_wal '/mnt/wal/pg_wal' && ln -s '/mnt/wal/pg_wal' '/mnt/sdb/pgdata'/pg_wal
# pg_ctl start -D '/mnt/sdb/pgdata'
