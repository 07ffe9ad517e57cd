#!/bin/sh
## pglayout stripe.sh: commands for a person to review, adapt and run as root.
## pglayout never runs them. Every command is commented out on purpose ("# "):
## uncomment one at a time, after checking the device names. Lines starting
## with "##" are notes.
exit 0

## Nothing to prepare: this plan needs no stripe and no new tablespace.
