// Preflight's structure checks: what a move, an online copy and a
// hash-partition conversion need from the relation (preflight_checks.h).

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "common/hash_rule.h"
#include "migrator/online_sql.h"
#include "migrator/preflight_checks.h"
#include "migrator/sql_util.h"
#include "migrator/steps.h"
#include "pg/sql.h"

namespace pglayout::migrator {
namespace {

// The live catalog's facts as the shared rule judges them
// (common/hash_rule.h), read as the planner's workload.toml was; the row key
// is the one the copy will use.
HashRuleFacts RuleFacts(const TableFacts& t, const ServerFacts& server) {
  HashRuleFacts f = t.rule;
  f.server_version_num = server.version_num;
  f.row_key = t.keys.row_key;
  return f;
}

// An online move of a partition detaches it and attaches its copy
// (docs/online-migration.md#moving-a-partition); the foreign keys to its
// parent are dropped and added back around that (the shared rule).
void CheckPartition(const std::string& o, const TableFacts& t,
                    const ServerFacts& server, Findings* f) {
  std::vector<ForeignKeyFact> from_partitioned;
  for (const ForeignKeyFacts& fk : t.partition.parent_fks_in) {
    if (fk.from_partitioned) from_partitioned.push_back({fk.name, fk.table});
  }
  for (const std::string& reason : CheckParentReferencers(
           t.partition.parent, from_partitioned, server.version_num)) {
    f->Refuse(o, reason);
  }
  for (const ColumnFacts& c : t.columns) {
    if (c.identity) {
      f->Refuse(o, "column " + DisplayIdent(c.name) +
                       " is an identity column, which a partition shares "
                       "with its parent and its copy cannot");
    }
  }
  if (t.partition.default_partition_partitioned) {
    f->Warn(o, "the DEFAULT partition " + t.partition.default_partition +
                   " of its parent is partitioned: ATTACH PARTITION scans it "
                   "under the swap's lock, which holds the parent (reads and "
                   "writes through it wait that long)");
  }
}

// The relations a conversion creates must not exist yet, nor share a
// name after PostgreSQL's 63-byte cut.
void CheckPartitionNames(const Placement& p, const TableFacts& t, Findings* f) {
  for (const std::string& name : t.taken_names) {
    f->Refuse(p.relation,
              fmt::format("the conversion creates {}.{}, which exists "
                          "already; rename or drop that relation first",
                          DisplayIdent(t.schema), DisplayIdent(name)));
  }
  std::set<std::string> seen;
  for (const std::string& name : PartitionRelationNames(t, TargetOf(p))) {
    if (!seen.insert(name).second) {
      f->Refuse(p.relation,
                fmt::format("two of the relations the conversion creates "
                            "would both be named {} (names are cut to 63 "
                            "bytes); rename one of its indexes first",
                            DisplayIdent(name)));
    }
  }
}

// What the table is (an ordinary, logged table, no partition to convert,
// no member of an inheritance tree, type or extension) and who copies it.
void CheckTableKind(const Placement& p, const TableFacts& t,
                    const ServerFacts& server, Findings* f) {
  const std::string& o = p.relation;
  if (t.kind != 'r') f->Refuse(o, "is not an ordinary table");
  if (t.storage.persistence != Persistence::kPermanent) {
    f->Refuse(o,
              "is unlogged or temporary: its copy would not survive a crash");
  }
  if (t.partition.is_partition) CheckPartition(o, t, server, f);
  if (t.has_inheritance) f->Refuse(o, "takes part in table inheritance");
  if (t.typed) f->Refuse(o, "is a typed table (CREATE TABLE ... OF)");
  if (t.extension_member) f->Refuse(o, "belongs to an extension");
  if (t.system) f->Refuse(o, "is a system relation");
  if (!server.superuser) {
    f->Refuse(o, fmt::format("an online copy installs a SECURITY DEFINER "
                             "capture trigger and needs a superuser; role {} "
                             "is not one",
                             server.user));
  }
}

// A row key the copy and the replay can identify rows by.
void CheckRowKey(const Placement& p, const TableFacts& t, Findings* f) {
  const std::string& o = p.relation;
  for (const std::string& k : t.keys.row_key) {
    const ColumnFacts* c = t.FindColumn(k);
    if (c && c->generated) {
      f->Refuse(o,
                "row key column " + DisplayIdent(k) + " is a generated column");
    }
    if (c && c->type.ends_with("[]")) {
      f->Refuse(o, "row key column " + DisplayIdent(k) + " is an array");
    }
  }
}

// What would keep reading or pointing at the old copy after the swap (or
// keep the new one from being built): invalid indexes, dependent views,
// rules, objects bound to its oid.
void CheckDependents(const Placement& p, const TableFacts& t, Findings* f) {
  const std::string& o = p.relation;
  for (const IndexFacts& i : t.indexes) {
    if (!i.valid) {
      f->Refuse(o, "index " + DisplayIdent(i.name) +
                       " is invalid; drop or REINDEX it first");
    }
  }
  for (const std::string& m : t.dependents.matviews) {
    f->Refuse(o, "materialized view " + m +
                     " depends on it and would keep reading the old copy");
  }
  for (const std::string& r : t.dependents.rules)
    f->Refuse(o, "has rule " + DisplayIdent(r));
  for (const std::string& u : t.dependents.rowtype_users) {
    f->Refuse(o, u + " refers to it by oid (its row type or a BEGIN ATOMIC "
                     "body) and would keep pointing at the old copy");
  }
  for (const std::string& d : t.dependents.bound) {
    f->Refuse(o, d +
                     " refers to it by oid and would keep reading the old "
                     "copy after the swap; " +
                     (p.strategy == Strategy::kMove
                          ? "move it with online = false (ALTER TABLE ... SET "
                            "TABLESPACE keeps the table), or drop "
                          : "drop ") +
                     "that object before the migration and create it again "
                     "after");
  }
}

// Logical replication, which follows the table by its oid.
void CheckReplication(const Placement& p, const TableFacts& t, Findings* f) {
  const std::string& o = p.relation;
  // The subscription's table list holds the table's oid: its apply worker
  // would find the new table by name, see no subscription state for it,
  // and skip every later change without an error.
  for (const std::string& sub : t.dependents.subscriptions) {
    f->Refuse(o, "receives logical replication from subscription " +
                     DisplayIdent(sub) +
                     ": after a rename swap it would silently stop applying "
                     "changes to it" +
                     (p.strategy == Strategy::kMove
                          ? "; move it with online = false (ALTER TABLE ... "
                            "SET TABLESPACE keeps the table)"
                          : "; partition it on the publisher's side, or stop "
                            "subscribing to it first"));
  }
}

// What the swap re-creates on the new table: its own capture trigger,
// incoming foreign keys, grants, row security.
void CheckSwap(const Placement& p, const TableFacts& t,
               const ServerFacts& server, Findings* f) {
  const std::string& o = p.relation;
  for (const std::string& name : t.dependents.triggers_named_like_ours) {
    f->Refuse(o, fmt::format("has a trigger named {}, the name an online copy "
                             "gives its own capture trigger; rename it first "
                             "(ALTER TRIGGER {} ON {} RENAME TO ...)",
                             name, name, o));
  }
  for (const std::string& role :
       std::set<std::string>(t.security.grantors_without_usage.begin(),
                             t.security.grantors_without_usage.end())) {
    f->Refuse(o, fmt::format("role {} granted privileges on it but has no "
                             "USAGE on schema {}, so it cannot grant them "
                             "again on the new table; GRANT USAGE ON SCHEMA "
                             "{} TO {} first",
                             role, DisplayIdent(t.schema), QuoteIdent(t.schema),
                             role));
  }
  if (t.security.row_security && !server.superuser) {
    f->Refuse(o,
              "has row-level security: copying it needs a superuser or "
              "BYPASSRLS, otherwise rows would be filtered out");
  }
}

// Code of other roles that copying the rows would run with pglayout's
// superuser privileges (docs/security.md#code-of-other-roles): refused
// before anything changes, naming the object, the function and its owner.
void CheckUntrustedCode(const Placement& p, const TableFacts& t, Findings* f) {
  const bool move = p.strategy == Strategy::kMove;
  const char* what = !move                         ? "the hash conversion"
                     : !t.partition.parent.empty() ? "the partition move"
                                                   : "the online move";
  for (const UntrustedCodeFacts& code : t.security.untrusted_code) {
    f->Refuse(
        p.relation,
        fmt::format("{} calls function {}, owned by role {}, which is not a "
                    "superuser: {} would run it with pglayout's privileges. "
                    "Review it, then make it a superuser's (ALTER FUNCTION {} "
                    "OWNER TO a superuser){}",
                    code.object, code.function, QuoteIdent(code.owner), what,
                    code.function,
                    move ? ", or move the table with online = false (ALTER "
                           "TABLE ... SET TABLESPACE copies its files and "
                           "runs nothing)"
                         : ""));
  }
}

// What the shadow-copy-and-swap path needs from any table
// (docs/online-migration.md#eligible-tables).
void CheckOnlineCopy(const Placement& p, const TableFacts& t,
                     const ServerFacts& server, Findings* f) {
  CheckTableKind(p, t, server, f);
  // A row key, no publication, no partitioned referencer before 18: the
  // rule the planner applies too.
  for (const std::string& reason : CheckOnlineSwap(RuleFacts(t, server))) {
    f->Refuse(p.relation, reason);
  }
  CheckRowKey(p, t, f);
  CheckDependents(p, t, f);
  CheckReplication(p, t, f);
  CheckSwap(p, t, server, f);
  CheckUntrustedCode(p, t, f);
}

void CheckMove(const Placement& p, const TableFacts& t,
               const ServerFacts& server, double offline_rate_mbps,
               Findings* f) {
  if (t.kind == 'p' && t.partition.is_partition) {
    f->Refuse(p.relation,
              fmt::format("is itself partitioned (a partition of {} with "
                          "partitions of its own): moving it moves nothing, "
                          "and pglayout does not detach and attach a "
                          "partitioned partition; place its partitions "
                          "instead",
                          t.partition.parent));
    return;
  }
  if (t.kind == 'p') {
    f->Refuse(p.relation,
              "is a partitioned table: moving it moves nothing; "
              "place its partitions instead");
    return;
  }
  if (t.kind != 'r' && t.kind != 'i' && t.kind != 'm') {
    f->Refuse(p.relation, fmt::format("is not a table, index or materialized "
                                      "view (relkind '{}')",
                                      t.kind));
    return;
  }
  if (t.system) f->Refuse(p.relation, "is a system relation");
  if (!p.online) return;
  if (t.kind == 'i') {
    if (server.version_num < 140000) {
      f->Refuse(p.relation,
                "an online index move (REINDEX CONCURRENTLY ... "
                "TABLESPACE) needs PostgreSQL 14; use online = "
                "false or upgrade");
    }
    return;
  }
  if (t.kind == 'm') {
    f->Refuse(p.relation,
              "a materialized view cannot be moved online; use "
              "online = false");
    return;
  }
  // Whatever keeps a table from being copied and swapped, ALTER TABLE
  // ... SET TABLESPACE moves it as the same object: each refusal says
  // so, with the lock that would cost.
  size_t first = f->list.size();
  CheckOnlineCopy(p, t, server, f);
  for (size_t i = first; i < f->list.size(); ++i) {
    Finding& found = f->list[i];
    if (found.severity != Finding::Severity::kRefusal ||
        found.reason.find("online = false") != std::string::npos) {
      continue;
    }
    found.reason += fmt::format("; online = false moves it offline ({})",
                                OfflineLockForecast(t, offline_rate_mbps));
  }
}

// A hash partition is split into partitions of its own by the parent's key
// (docs/online-migration.md#splitting-a-hash-partition): the copy's hash
// of a row must be the parent's, so the key is the parent's, columns,
// opclasses and collations alike.
void CheckSplit(const Placement& p, const TableFacts& t, Findings* f) {
  const std::string& o = p.relation;
  int modulus = 0, remainder = 0;
  if (!ParseHashBound(t.partition.bound, &modulus, &remainder)) {
    f->Refuse(o, fmt::format("is a partition of {} ({}), not a hash "
                             "partition: it can be moved (strategy = "
                             "\"move\"), not split",
                             t.partition.parent, t.partition.bound));
    return;
  }
  if (HashKeyColumns(t.partition.parent_key) != p.key) {
    f->Refuse(o, fmt::format("its parent {} is partitioned by {}: a split "
                             "partitions by the same key (plain columns, "
                             "default opclasses), not by ({})",
                             t.partition.parent, t.partition.parent_key,
                             DisplayIdentList(p.key)));
  }
  if (p.partitions < 2) {
    f->Refuse(o, "a split needs at least 2 partitions, not " +
                     std::to_string(p.partitions));
  }
}

void CheckHashPartition(const Placement& p, const TableFacts& t,
                        const ServerFacts& server, Findings* f) {
  const std::string& o = p.relation;
  if (t.partition.is_partition && t.kind == 'r') CheckSplit(p, t, f);
  if (t.kind == 'p') {
    f->Refuse(o,
              "is already partitioned, not as this plan says (its partitions "
              "are not the plan's, or not in the planned tablespaces); "
              "pglayout does not convert a partitioned table again: move its "
              "partitions (strategy = \"move\"), or split a hash partition "
              "into more (strategy = \"hash_partition\" on the partition, "
              "by the parent's key)");
    return;
  }
  CheckOnlineCopy(p, t, server, f);
  CheckPartitionNames(p, t, f);
  for (const std::string& k : p.key) {
    const ColumnFacts* c = t.FindColumn(k);
    if (!c) {
      f->Refuse(o,
                "partition key column " + DisplayIdent(k) + " does not exist");
    } else if (c->generated) {
      f->Refuse(o, "partition key column " + DisplayIdent(k) +
                       " is a generated column");
    }
  }
  // The rule the planner applies too (common/hash_rule.h).
  for (const std::string& reason :
       CheckHashConversion(RuleFacts(t, server), p.key)) {
    f->Refuse(o, reason);
  }
}

}  // namespace

std::vector<Finding> CheckRelation(const Placement& p, const TableFacts& t,
                                   const ServerFacts& server,
                                   double offline_rate_mbps) {
  Findings f;
  for (const std::string& gid : t.dependents.prepared_xacts) {
    f.Refuse(p.relation,
             "prepared transaction " + gid +
                 " holds a lock on it and would block the move until it is "
                 "resolved: COMMIT PREPARED or ROLLBACK PREPARED it first");
  }
  if (p.strategy == Strategy::kMove) {
    CheckMove(p, t, server, offline_rate_mbps, &f);
  } else {
    CheckHashPartition(p, t, server, &f);
  }
  return f.list;
}

}  // namespace pglayout::migrator
