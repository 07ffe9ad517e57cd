#!/bin/sh
## pglayout stripe.sh: commands for a person to review, adapt and run as root.
## pglayout never runs them. Every command is commented out on purpose ("# "):
## uncomment one at a time, after checking the device names. Lines starting
## with "##" are notes.
exit 0

## --- stripe data_stripe: RAID0 of data1, data2, data3, data4, data5, data6 (lvm). DESTROYS everything on these devices;
## check each device name first (lsblk -o NAME,SIZE,SERIAL,MOUNTPOINT).
## RAID0 of 6 alike, empty volumes: 117070 read IOPS together; 512 KiB chunk keeps each 8 KiB read on one member while large reads span members
# pvcreate '/dev/DISK_OF_data1' '/dev/DISK_OF_data2' '/dev/DISK_OF_data3' '/dev/DISK_OF_data4' '/dev/DISK_OF_data5' '/dev/DISK_OF_data6'
# vgcreate 'data_stripe_vg' '/dev/DISK_OF_data1' '/dev/DISK_OF_data2' '/dev/DISK_OF_data3' '/dev/DISK_OF_data4' '/dev/DISK_OF_data5' '/dev/DISK_OF_data6'
# lvcreate --type striped --stripes 6 --stripesize 512k --extents 100%FREE --name 'data_stripe' 'data_stripe_vg'
# mkfs.xfs '/dev/data_stripe_vg/data_stripe'    ## xfs reads the stripe geometry from LVM
# mkdir -p '/mnt/data_stripe' && mount -o noatime '/dev/data_stripe_vg/data_stripe' '/mnt/data_stripe'
# printf '%s\n' '/dev/data_stripe_vg/data_stripe /mnt/data_stripe xfs noatime,nofail 0 0' >> /etc/fstab
## (or with mdadm:)
# mdadm --create '/dev/md/data_stripe' --level=0 --raid-devices=6 --chunk=512K '/dev/DISK_OF_data1' '/dev/DISK_OF_data2' '/dev/DISK_OF_data3' '/dev/DISK_OF_data4' '/dev/DISK_OF_data5' '/dev/DISK_OF_data6'
# mkfs.xfs -d su=512k,sw=6 '/dev/md/data_stripe'
# mdadm --detail --scan >> /etc/mdadm/mdadm.conf && update-initramfs -u
# mkdir -p '/mnt/data_stripe' && mount -o noatime '/dev/md/data_stripe' '/mnt/data_stripe'
# printf '%s\n' '/dev/md/data_stripe /mnt/data_stripe xfs noatime,nofail 0 0' >> /etc/fstab

## --- tablespace directories: must exist, be empty and belong to postgres
# install -d -o postgres -g postgres -m 700 '/mnt/data7'    ## pglayout_data7 on data7
# install -d -o postgres -g postgres -m 700 '/mnt/data_stripe/pg'    ## pglayout_data_stripe on data_stripe

## --- WAL on wal (sized for the WAL by capacity planning (1200 us per 8 KiB write + fdatasync); alone, so commits never queue behind data reads and checkpoint writes; WAL keeps it 69% busy (3000 commits/s, each counted as a WAL flush: the workload has no count of the server's flushes)). Skip if pg_wal is already a link there.
## A new cluster: initdb --waldir='/mnt/wal/pg_wal'
## An existing one (a short outage):
# pg_ctl stop -D '/mnt/sdb/pgdata' -m fast
# mv '/mnt/sdb/pgdata'/pg_wal '/mnt/wal/pg_wal' && ln -s '/mnt/wal/pg_wal' '/mnt/sdb/pgdata'/pg_wal
# pg_ctl start -D '/mnt/sdb/pgdata'
