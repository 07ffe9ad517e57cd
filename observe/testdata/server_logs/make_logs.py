#!/usr/bin/env python3
"""Writes the server log fixtures of observe/log_parser_test.cc and
tests/cli/observe_command_test.cc (README.md in this folder describes them).

The checkpoints are invented; the line formats are those PostgreSQL 16 writes
(stderr, csvlog, jsonlog, syslog) and those of the usual exports (RDS, Cloud
Logging, CloudNativePG). Deterministic: run it again and nothing changes.
    python3 observe/testdata/server_logs/make_logs.py
"""

import bz2
import datetime as dt
import gzip
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
UTC = dt.timezone.utc
CHECKPOINTER = 1021
BACKENDS = {1019: "postmaster", 1021: "checkpointer", 2391: "autovacuum worker"}


def at(text):
    return dt.datetime.strptime(text, "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=UTC)


def complete(kind, c):
    return (
        f"{kind} complete: wrote {c['buffers']} buffers ({c['buffers'] / 163.84:.1f}%); "
        f"0 WAL file(s) added, {c.get('removed', 0)} removed, {c.get('recycled', 2)} recycled; "
        f"write={c['write']:.3f} s, sync={c['sync']:.3f} s, total={c['total']:.3f} s; "
        f"sync files={c.get('files', 14)}, longest=0.041 s, average=0.006 s; "
        f"distance={c['distance']} kB, estimate={c.get('estimate', c['distance'])} kB"
    )


def checkpoint_lines(checkpoints, kind="checkpoint"):
    """(time, pid, severity, message) of each start and complete."""
    lines = []
    for c in checkpoints:
        pid = c.get("pid", CHECKPOINTER)
        lines.append((at(c["start"]), pid, "LOG", f"{kind} starting: {c['flags']}"))
        if "total" in c:
            end = at(c["start"]) + dt.timedelta(seconds=c["total"])
            lines.append((end, pid, "LOG", complete(kind, c)))
    return lines


# --- Scenario S: five checkpoints around noon, written in every format.
# timed 1 (S1), requested 3 (S2 wal, S3 wal time, S4 CHECKPOINT), shutdown
# S5 left out; span 12:00 -> 12:15 = 900 s; WAL (65536 + 98304 + 16384) kB
# over 900 s; buffers (500 + 900 + 700 + 100) / 4 = 550 per checkpoint.
SCENARIO = [
    dict(start="2024-03-01 12:00:00.000", flags="time", buffers=500,
         write=135.1, sync=0.2, total=135.5, distance=30720),
    dict(start="2024-03-01 12:05:00.000", flags="wal", buffers=900,
         write=39.9, sync=0.3, total=40.25, distance=65536),
    dict(start="2024-03-01 12:10:00.000", flags="wal time", buffers=700,
         write=59.5, sync=0.4, total=60.0, distance=98304),
    dict(start="2024-03-01 12:15:00.000", flags="immediate force wait",
         buffers=100, write=0.9, sync=0.05, total=1.0, distance=16384,
         estimate=90112),
    dict(start="2024-03-01 12:16:00.000", flags="shutdown immediate",
         buffers=10, write=0.4, sync=0.05, total=0.5, distance=1024,
         estimate=81203),
]

# Lines of other processes: (time, pid, user@db or "", severity, message).
SCENARIO_OTHERS = [
    ("2024-03-01 11:59:58.120", 1019, "", "LOG", "database system is ready to accept connections"),
    ("2024-03-01 12:01:12.345", 2345, "app@shop", "LOG", "connection authorized: user=app database=shop application_name=api"),
    ("2024-03-01 12:03:40.001", 2345, "app@shop", "ERROR", "duplicate key value violates unique constraint \"orders_pkey\""),
    ("2024-03-01 12:03:40.001", 2345, "app@shop", "DETAIL", "Key (id)=(4711) already exists."),
    ("2024-03-01 12:03:40.001", 2345, "app@shop", "STATEMENT", "INSERT INTO orders (id, note) VALUES (4711, 'after checkpoint starting: wal')"),
    ("2024-03-01 12:07:02.774", 2391, "", "LOG", "automatic vacuum of table \"shop.public.orders\": index scans: 1"),
    ("2024-03-01 12:15:59.902", 1019, "", "LOG", "received fast shutdown request"),
    ("2024-03-01 12:16:00.700", 1019, "", "LOG", "database system is shut down"),
]


def scenario_events():
    """(time, pid, who, severity, message) of scenario S, by time."""
    events = [(at(t), pid, who, sev, msg) for t, pid, who, sev, msg in SCENARIO_OTHERS]
    events += [(t, pid, "", sev, msg) for t, pid, sev, msg in checkpoint_lines(SCENARIO)]
    return sorted(events, key=lambda e: e[0])


def ms(t):
    return t.strftime("%Y-%m-%d %H:%M:%S.") + f"{t.microsecond // 1000:03d}"


def session(pid):
    return f"65e1a8f0.{pid:x}"


def csvlog(events):
    out, seq = [], {}
    for t, pid, who, sev, msg in events:
        seq[pid] = seq.get(pid, 0) + 1
        user, db = who.split("@") if who else ("", "")
        backend = BACKENDS.get(pid, "client backend")
        quoted = '"' + msg.replace('"', '""') + '"'
        out.append(
            f"{ms(t)} UTC,{user},{db},{pid},,{session(pid)},{seq[pid]},,"
            f"2024-03-01 11:59:58 UTC,,0,{sev},00000,{quoted},,,,,,,,,\"\",\"{backend}\",,0")
    return "\n".join(out) + "\n"


def jsonlog_entry(t, pid, who, sev, msg, line):
    entry = {"timestamp": f"{ms(t)} UTC"}
    if who:
        entry["user"], entry["dbname"] = who.split("@")
    entry.update({"pid": pid, "session_id": session(pid), "line_num": line,
                  "session_start": "2024-03-01 11:59:58 UTC", "txid": 0,
                  "error_severity": sev, "message": msg,
                  "backend_type": BACKENDS.get(pid, "client backend"),
                  "query_id": 0})
    return entry


def jsonlog(events):
    return "".join(json.dumps(jsonlog_entry(*e, i + 1), separators=(",", ":")) + "\n"
                   for i, e in enumerate(events))


def syslog(events):
    out, seq = [], {}
    for t, pid, who, sev, msg in events:
        seq[pid] = seq.get(pid, 0) + 1
        stamp = t.strftime("%b ") + f"{t.day:2d}" + t.strftime(" %H:%M:%S")
        out.append(f"{stamp} db1 postgres[{pid}]: [{seq[pid]}-1] {sev}:  {msg}")
    return "\n".join(out) + "\n"


def rds(events):
    out = []
    for t, pid, who, sev, msg in events:
        remote = "10.0.1.23(51234)" if who else ""
        out.append(f"{t.strftime('%Y-%m-%d %H:%M:%S')} UTC:{remote}:{who or '@'}:[{pid}]:{sev}:  {msg}")
    return "\n".join(out) + "\n"


def cnpg_entry(t, pid, who, sev, msg, line):
    record = {"log_time": f"{ms(t)} UTC", "process_id": str(pid),
              "session_id": session(pid), "session_line_num": str(line),
              "session_start_time": "2024-03-01 11:59:58 UTC",
              "transaction_id": "0", "error_severity": sev,
              "sql_state_code": "00000", "message": msg,
              "backend_type": BACKENDS.get(pid, "client backend"),
              "query_id": "0"}
    if who:
        record["user_name"], record["database_name"] = who.split("@")
    # ts is when the instance manager relayed the line: a little later.
    relayed = t + dt.timedelta(milliseconds=7 + line % 5)
    return {"level": "info", "ts": relayed.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            "logger": "postgres", "msg": "record", "logging_pod": "shop-db-1",
            "record": record}


def cnpg_newest_first(events):
    entries = [cnpg_entry(*e, i + 1) for i, e in enumerate(events)]
    entries.insert(3, {"level": "info", "ts": "2024-03-01T12:02:00.000000Z",
                       "logger": "instance-manager", "msg": "Checking for free disk space for WALs",
                       "logging_pod": "shop-db-1"})
    return "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in reversed(entries))


# Cloud Logging: entries arrive late, by different delays, so that the
# export's order (by receiveTimestamp) is not the events' order: the CHECKPOINT
# (S4) is complete 1 s after it starts but received 7.3 s before its start.
DELAYS = [4.8, 2.1, 9.5, 0.7, 3.3, 12.0, 1.4, 5.9, 0.9, 7.2, 2.6, 4.4, 8.8, 0.5, 1.1, 3.9, 6.3, 2.2]


def cloud_entry(i, t, pid, who, sev, msg):
    received = t + dt.timedelta(seconds=DELAYS[i % len(DELAYS)])
    entry = {
        "insertId": f"s=7f3c{i:04x};i={i + 1};b=9a1e;m=1;t=60d4;x=3b1",
        "logName": "projects/shop-prod/logs/cloudsql.googleapis.com%2Fpostgres.log",
        "receiveTimestamp": received.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "resource": {"labels": {"database_id": "shop-prod:shop-db",
                                "project_id": "shop-prod", "region": "europe-west1"},
                     "type": "cloudsql_database"},
        "severity": "ERROR" if sev == "ERROR" else "INFO",
        "timestamp": t.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
    }
    if i % 2 == 0:
        who_text = "db=,user=" if not who else f"db={who.split('@')[1]},user={who.split('@')[0]}"
        entry["textPayload"] = f"{ms(t)} UTC [{pid}]: [{i + 1}-1] {who_text} {sev}:  {msg}"
    else:
        entry["jsonPayload"] = {"message": msg, "pid": pid}
    return dict(sorted(entry.items()))


def cloud_entries(events):
    entries = [cloud_entry(i, *e) for i, e in enumerate(events)]
    return sorted(entries, key=lambda e: e["receiveTimestamp"])


# --- Scenario R: a Debian server's stderr log (log_line_prefix '%m [%p]
# %q%u@%d '), rotated by logrotate with compress + delaycompress into
# postgresql.log.2.gz (oldest), postgresql.log.1 and postgresql.log.
ROTATED = [
    # postgresql.log.2.gz
    dict(start="2024-03-01 10:00:00.012", flags="time", buffers=1210, write=149.811, sync=0.161, total=150.102, distance=40960),
    dict(start="2024-03-01 10:05:00.008", flags="time", buffers=980, write=119.802, sync=0.082, total=120.012, distance=61440),
    dict(start="2024-03-01 10:10:00.031", flags="time", buffers=1500, write=149.601, sync=0.133, total=149.869, distance=81920),
    dict(start="2024-03-01 10:15:00.044", flags="time", buffers=1320, write=149.7, sync=0.12, total=149.956, distance=71680),
    # postgresql.log.1: a bulk load
    dict(start="2024-03-01 10:20:00.019", flags="time", buffers=2200, write=65.2, sync=0.21, total=65.481, distance=204800),
    dict(start="2024-03-01 10:21:20.250", flags="wal", buffers=3100, write=17.9, sync=0.4, total=18.5, distance=524288),
    dict(start="2024-03-01 10:21:40.400", flags="wal", buffers=2950, write=18.1, sync=0.45, total=18.7, distance=524288),
    dict(start="2024-03-01 10:26:40.411", flags="wal time", buffers=1800, write=29.2, sync=0.3, total=29.589, distance=491520),
    dict(start="2024-03-01 10:31:40.500", flags="time", buffers=1100, write=149.9, sync=0.11, total=150.1, distance=102400),
    # starts in postgresql.log.1, completes in postgresql.log
    dict(start="2024-03-01 10:36:40.600", flags="time", buffers=1000, write=149.85, sync=0.09, total=150.05, distance=61440),
    # postgresql.log: CHECKPOINT, a restart, and one still running at the end
    dict(start="2024-03-01 10:41:40.700", flags="immediate force wait", buffers=450, write=1.1, sync=0.05, total=1.2, distance=163840),
    dict(start="2024-03-01 10:45:00.000", flags="shutdown immediate", buffers=60, write=0.3, sync=0.06, total=0.41, distance=20480),
    dict(start="2024-03-01 10:50:03.100", flags="time", buffers=700, write=149.9, sync=0.1, total=150.1, distance=51200, pid=3021),
    dict(start="2024-03-01 10:55:03.200", flags="time", pid=3021),
]

ROTATED_OTHERS = [
    ("2024-03-01 09:58:00.101", 1019, "", "LOG", "starting PostgreSQL 16.2 (Debian 16.2-1.pgdg120+2) on x86_64-pc-linux-gnu, compiled by gcc (Debian 12.2.0-14) 12.2.0, 64-bit"),
    ("2024-03-01 09:58:00.130", 1019, "", "LOG", "listening on IPv4 address \"0.0.0.0\", port 5432"),
    ("2024-03-01 09:58:00.176", 1020, "", "LOG", "database system was shut down at 2024-03-01 09:57:41 UTC"),
    ("2024-03-01 09:58:00.190", 1019, "", "LOG", "database system is ready to accept connections"),
    ("2024-03-01 10:03:12.345", 2345, "app@shop", "LOG", "connection authorized: user=app database=shop application_name=api"),
    ("2024-03-01 10:11:47.002", 2391, "", "LOG", "automatic analyze of table \"shop.public.orders\""),
    ("2024-03-01 10:20:05.900", 2417, "loader@shop", "LOG", "duration: 95112.407 ms  statement: COPY orders FROM '/srv/load/orders.csv'"),
    ("2024-03-01 10:21:40.400", CHECKPOINTER, "", "LOG", "checkpoints are occurring too frequently (20 seconds apart)"),
    ("2024-03-01 10:21:40.400", CHECKPOINTER, "", "HINT", "Consider increasing the configuration parameter \"max_wal_size\"."),
    ("2024-03-01 10:25:13.201", 2417, "loader@shop", "LOG", "statement: INSERT INTO audit (note) VALUES ('checkpoint starting: wal')"),
    ("2024-03-01 10:44:59.950", 1019, "", "LOG", "received fast shutdown request"),
    ("2024-03-01 10:44:59.990", 1019, "", "LOG", "aborting any active transactions"),
    ("2024-03-01 10:44:59.999", CHECKPOINTER, "", "LOG", "shutting down"),
    ("2024-03-01 10:45:00.700", 1019, "", "LOG", "database system is shut down"),
    ("2024-03-01 10:45:03.001", 3019, "", "LOG", "starting PostgreSQL 16.2 (Debian 16.2-1.pgdg120+2) on x86_64-pc-linux-gnu, compiled by gcc (Debian 12.2.0-14) 12.2.0, 64-bit"),
    ("2024-03-01 10:45:03.090", 3020, "", "LOG", "database system was shut down at 2024-03-01 10:45:00 UTC"),
    ("2024-03-01 10:45:03.101", 3019, "", "LOG", "database system is ready to accept connections"),
    ("2024-03-01 10:55:58.000", 2345, "app@shop", "LOG", "disconnection: session time: 0:52:45.655 user=app database=shop host=10.0.1.23 port=51234"),
]

# logrotate ran at these times (the first line of each newer file).
ROTATIONS = [at("2024-03-01 10:20:00.000"), at("2024-03-01 10:38:00.000")]


def stderr_line(t, pid, who, sev, msg):
    who = f"{who} " if who else ""
    return f"{ms(t)} UTC [{pid}] {who}{sev}:  {msg}"


def rotated_files():
    events = [(at(t), pid, who, sev, msg) for t, pid, who, sev, msg in ROTATED_OTHERS]
    events += [(t, pid, "", sev, msg) for t, pid, sev, msg in checkpoint_lines(ROTATED)]
    events.sort(key=lambda e: e[0])
    files = [[], [], []]
    for e in events:
        index = sum(e[0] >= r for r in ROTATIONS)
        files[index].append(stderr_line(*e))
    return ["\n".join(f) + "\n" for f in files]


def write(name, data, compress=None):
    path = os.path.join(HERE, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    raw = data.encode()
    if compress == "gzip":
        raw = gzip.compress(raw, mtime=0)
    elif compress == "bzip2":
        raw = bz2.compress(raw)
    with open(path, "wb") as f:
        f.write(raw)


def main():
    oldest, middle, newest = rotated_files()
    write("rotated/postgresql.log.2.gz", oldest, "gzip")
    write("rotated/postgresql.log.1", middle)
    write("rotated/postgresql.log", newest)

    events = scenario_events()
    write("formats/postgresql-2024-03-01_115958.csv", csvlog(events))
    write("formats/postgresql-2024-03-01_115958.json.bz2", jsonlog(events), "bzip2")
    write("formats/syslog", syslog(events))
    # RDS: downloaded, then gzip-compressed without renaming it.
    write("formats/postgresql.log.2024-03-01-12", rds(events), "gzip")
    write("formats/cnpg-newest-first.jsonl", cnpg_newest_first(events))
    write("formats/cloudsql-export.jsonl",
          "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in cloud_entries(events)))
    # gcloud logging read --format=json: an array, newest first.
    by_time = sorted(cloud_entries(events), key=lambda e: e["timestamp"], reverse=True)
    write("formats/cloudsql-gcloud.json", json.dumps(by_time, indent=2) + "\n")

    write("bad/postgresql.conf",
          "# - Checkpoints -\n\ncheckpoint_timeout = 5min\t\t# range 30s-1d\n"
          "checkpoint_completion_target = 0.9\t# checkpoint target duration\n"
          "max_wal_size = 1GB\nmin_wal_size = 80MB\nlog_checkpoints = on\n")
    write("bad/postgresql-quiet.log", "\n".join(stderr_line(at(t), pid, who, sev, msg)
                                           for t, pid, who, sev, msg in SCENARIO_OTHERS[:6]) + "\n")


if __name__ == "__main__":
    main()
